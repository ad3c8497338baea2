#include "kernels/softmax.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/cpu.h"
#include "kernels/parallel.h"
#include "kernels/softmax_detail.h"
#include "torch/torch_kernels.h"

namespace attn::kernels {

namespace {

// In the page (kSimd128) the softmax runs the SIMD128 pieces of softmax_simd128.cpp (the same
// floats) where natively AVX2's run; on aarch64, NEON's (softmax_neon.cpp). The fused two-pass
// rows below are x86's and aarch64's: the page's rows take the pieces' five passes.
bool use_avx2() { return x86_vectors(active_isa()); }
bool use_avx512() { return active_isa() == Isa::Avx512; }
bool use_neon() { return active_isa() == Isa::Neon; }
bool use_vectors() { return use_avx2() || use_neon() || kSimd128; }

// The elementwise steps and the reductions, 16 lanes wide where the CPU allows, else 8 or (in
// the page) 4 (each lane's operations are the same either way; the reductions keep 8 lanes).
void exp_shifted(const float* x, float* out, int64_t n, float shift) {
  if (use_avx512()) detail::exp_shifted_avx512(x, out, n, shift);
  else if (use_avx2()) detail::exp_shifted_avx2(x, out, n, shift);
  else if (use_neon()) detail::exp_shifted_neon(x, out, n, shift);
  else detail::exp_shifted_simd128(x, out, n, shift);
}
void multiply(float* x, int64_t n, float s) {
  if (use_avx512()) detail::multiply_avx512(x, n, s);
  else if (use_avx2()) detail::multiply_avx2(x, n, s);
  else if (use_neon()) detail::multiply_neon(x, n, s);
  else detail::multiply_simd128(x, n, s);
}
void divide(float* x, int64_t n, float s) {
  if (use_avx512()) detail::divide_avx512(x, n, s);
  else if (use_avx2()) detail::divide_avx2(x, n, s);
  else if (use_neon()) detail::divide_neon(x, n, s);
  else detail::divide_simd128(x, n, s);
}
float reduce_max(const float* x, int64_t valid) {
  return use_avx2()   ? detail::reduce_max_avx2(x, valid)
         : use_neon() ? detail::reduce_max_neon(x, valid)
                      : detail::reduce_max_simd128(x, valid);
}
float reduce_sum(const float* x, int64_t valid) {
  return use_avx2()   ? detail::reduce_sum_avx2(x, valid)
         : use_neon() ? detail::reduce_sum_neon(x, valid)
                      : detail::reduce_sum_simd128(x, valid);
}

// Rows shorter than 8 values are reduced left to right (reduce_all's scalar path); leave
// them, and rows whose maximum is not finite, to the reference.
bool vector_row(int64_t n) { return n >= 8 && use_vectors(); }

// Steps 2 and 3 of the softmax for a row whose first `valid` of n values count (the rest
// are -inf, i.e. exactly 0 after exp), given its finite maximum.
void exp_and_normalise(float* row, int64_t valid, int64_t n, float max_input) {
  exp_shifted(row, row, valid, max_input);
  const float sum = reduce_sum(row, valid);
  const float inv_sum = 1.0f / sum;
  multiply(row, valid, inv_sum);
  for (int64_t i = valid; i < n; ++i) row[i] = 0.0f;
}

}  // namespace

void softmax_row_reference(float* row, int64_t n) {
  if (n == 0) return;
  // 1. the row maximum, so that exp never overflows
  const float max_input = reduce_all_max(row, n);
  // 2. exponentiate the shifted scores (exp(-inf) = 0 for masked entries) and sum
  for (int64_t i = 0; i < n; ++i) row[i] = sleef_expf(row[i] - max_input);
  const float sum = reduce_all_sum(row, n);
  // 3. normalise: PyTorch multiplies by the reciprocal rather than dividing
  const float inv_sum = 1.0f / sum;
  for (int64_t i = 0; i < n; ++i) row[i] *= inv_sum;
}

void softmax_rows(float* x, int64_t rows, int64_t n) {
  if (n <= 0 || rows <= 0) return;
  auto one_row = [&](float* row) {
    if (!vector_row(n)) return softmax_row_reference(row, n);
    const float max_input = reduce_max(row, n);
    if (!std::isfinite(max_input)) return softmax_row_reference(row, n);
    exp_and_normalise(row, n, n, max_input);
  };
  // Chunks of rows of about 64K values each, spread over the threads.
  const int64_t per_task = std::max<int64_t>(1, (int64_t{1} << 16) / n);
  const int64_t tasks = (rows + per_task - 1) / per_task;
  parallel_for(tasks, [&](int64_t t) {
    for (int64_t r = t * per_task; r < std::min(rows, (t + 1) * per_task); ++r) one_row(x + r * n);
  });
}

namespace {

// The rest of a causal row whose kept scores are already divided: the generic steps.
void finish_divided_row(float* row, int64_t valid, int64_t n, int64_t full_n) {
  // In a row of 8 or more values, element e always goes to reduction lane e % 8, and the
  // masked entries are the identities of the reductions (-inf for max, 0 after exp for
  // the sum): the first `valid` values alone decide the result.
  if (vector_row(full_n) && valid > 0) {
    const float max_input = reduce_max(row, valid);
    if (std::isfinite(max_input)) return exp_and_normalise(row, valid, n, max_input);
  }
  // Otherwise the definition, on the whole row.
  std::vector<float> full(static_cast<size_t>(full_n), -std::numeric_limits<float>::infinity());
  std::copy(row, row + valid, full.begin());
  softmax_row_reference(full.data(), full_n);
  std::copy(full.begin(), full.begin() + n, row);
}

// The two passes, 16 lanes wide with AVX-512, else 8 (AVX2) or 4 (NEON): the same floats.
float divide_max(float* x, int64_t n, float divisor, bool& nan) {
  return use_avx512() ? detail::divide_max_avx512(x, n, divisor, nan)
         : use_avx2() ? detail::divide_max_avx2(x, n, divisor, nan)
                      : detail::divide_max_neon(x, n, divisor, nan);
}
void exp_shifted_sum_rows(float* const* x, const int64_t* n, const float* shift, int count, float* sums) {
  if (use_avx512()) detail::exp_shifted_sum_rows_avx512(x, n, shift, count, sums);
  else if (use_avx2()) detail::exp_shifted_sum_rows_avx2(x, n, shift, count, sums);
  else detail::exp_shifted_sum_rows_neon(x, n, shift, count, sums);
}

// Up to 4 causal rows with AVX-512, AVX2 or NEON, in two passes over each instead of five: divide
// with the maximum, then exp with the sum, the rows' exps side by side. Rows whose maximum is
// NaN or infinite (or that keep nothing) leave with the generic steps.
//
// With `done`: row r's first done[r] scores are divided already, their maximum pre_max[r]
// (pre_unchecked[r]: not to be used); only the rest are divided here.
void masked_rows_fused(float* const* rows, const int64_t* valid, int count, int64_t n, int64_t full_n,
                       float divisor, const int64_t* done, const float* pre_max, const bool* pre_unchecked) {
  float* fast[4];
  int64_t fast_valid[4];
  float shift[4];
  int fast_count = 0;
  for (int r = 0; r < count; ++r) {
    bool nan = false;
    float max_input = 0.0f;
    if (valid[r] > 0) {
      const int64_t from = done ? std::min(done[r], valid[r]) : 0;
      float* rest = rows[r] + from;
      const int64_t left = valid[r] - from;
      max_input = from == valid[r] ? -std::numeric_limits<float>::infinity() : divide_max(rest, left, divisor, nan);
      // The maximum of the two parts is the row's (as divide_max's, up to the sign of a zero).
      if (from > 0) {
        if (pre_unchecked[r]) nan = true;  // the generic steps decide
        else max_input = std::max(max_input, pre_max[r]);
      }
    }
    if (valid[r] > 0 && !nan && std::isfinite(max_input)) {
      fast[fast_count] = rows[r];
      fast_valid[fast_count] = valid[r];
      shift[fast_count++] = max_input;
    } else {
      finish_divided_row(rows[r], valid[r], n, full_n);
    }
  }
  if (fast_count == 0) return;
  float sums[4];
  exp_shifted_sum_rows(fast, fast_valid, shift, fast_count, sums);
  for (int r = 0; r < fast_count; ++r) {
    multiply(fast[r], fast_valid[r], 1.0f / sums[r]);
    std::fill(fast[r] + fast_valid[r], fast[r] + n, 0.0f);
  }
}

}  // namespace

void masked_softmax_rows(float* first_row, int64_t count, int64_t ld, int64_t first_valid, int64_t n,
                         int64_t full_n, float divisor, const DividedPrefix* divided) {
  for (int64_t g = 0; g < count; g += 4) {
    const int k = static_cast<int>(std::min<int64_t>(4, count - g));
    float* rows[4];
    int64_t valid[4], done[4];
    for (int r = 0; r < k; ++r) {
      rows[r] = first_row + (g + r) * ld;
      valid[r] = first_valid + g + r;
      done[r] = divided ? std::min(divided->cols, valid[r]) : 0;
    }
    if ((use_avx2() || use_neon()) && vector_row(full_n)) {  // not the page's SIMD128
      if (divided)
        masked_rows_fused(rows, valid, k, n, full_n, divisor, done, divided->max + g, divided->unchecked + g);
      else
        masked_rows_fused(rows, valid, k, n, full_n, divisor, nullptr, nullptr, nullptr);
      continue;
    }
    for (int r = 0; r < k; ++r) {
      // masked_fill then / divisor: the kept scores are divided (-inf / divisor stays -inf).
      float* rest = rows[r] + done[r];
      const int64_t count_left = valid[r] - done[r];
      if (use_vectors()) divide(rest, count_left, divisor);
      else
        for (int64_t i = 0; i < count_left; ++i) rest[i] /= divisor;
      finish_divided_row(rows[r], valid[r], n, full_n);
    }
  }
}

void masked_softmax_row(float* row, int64_t valid, int64_t n, int64_t full_n, float divisor) {
  masked_softmax_rows(row, 1, 0, valid, n, full_n, divisor);
}

bool division_is_scaling(float divisor, int& scale_exp) {
  int exponent = 0;  // divisor = mantissa * 2^exponent, mantissa in [0.5, 1)
  if (std::frexp(divisor, &exponent) != 0.5f || exponent <= -125 || exponent >= 126) return false;
  scale_exp = 1 - exponent;
  return true;
}

void exp_values(const float* x, float* out, int64_t n) {
  if (!use_vectors()) {
    for (int64_t i = 0; i < n; ++i) out[i] = sleef_expf(x[i]);
    return;
  }
  exp_shifted(x, out, n, 0.0f);
}

}  // namespace attn::kernels
