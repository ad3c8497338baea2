#include "torch/torch_kernels.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>

#include "torch/fma32.h"
#include "torch/libc_math.h"

namespace attn::kernels {

// ---- exp ---------------------------------------------------------------------------------
// SLEEF's xexpf: split x = q*ln2 + s (ln2 in two parts), a degree-6 polynomial for e^s,
// then scale by 2^q. With FMA available every "mla" is one fused multiply-add.
float sleef_expf(float d) {
  if (std::isnan(d)) return d;
  // Out of range the result is 0 or inf whatever q is; returning first also keeps q's
  // float-to-int conversion defined (-inf or 1e30 has no int32_t value: UBSan's finding).
  if (d < -104.0f) return 0.0f;
  if (d > 100.0f) return std::numeric_limits<float>::infinity();
  const float q_f = std::nearbyint(d * 1.442695040888963407359924681001892137426645954152985934135449406931f);
  const int32_t q = static_cast<int32_t>(q_f);
  float s = fma32(q_f, -0.693145751953125f, d);
  s = fma32(q_f, -1.428606765330187045e-06f, s);

  float u = 0.000198527617612853646278381f;
  u = fma32(u, s, 0.00139304355252534151077271f);
  u = fma32(u, s, 0.00833336077630519866943359f);
  u = fma32(u, s, 0.0416664853692054748535156f);
  u = fma32(u, s, 0.166666671633720397949219f);
  u = fma32(u, s, 0.5f);
  u = 1.0f + fma32(s * s, u, s);

  // ldexp in two halves so that neither power of two overflows on its own.
  const int32_t q1 = q >> 1, q2 = q - q1;
  return u * std::ldexp(1.0f, q1) * std::ldexp(1.0f, q2);
}

// ---- sum ---------------------------------------------------------------------------------

namespace {

struct Vec8 {
  std::array<float, 8> v{};
  Vec8& operator+=(const Vec8& o) {
    for (int i = 0; i < 8; ++i) v[i] += o.v[i];
    return *this;
  }
};

inline void add_to(float& acc, float x) { acc += x; }
inline void add_to(Vec8& acc, const Vec8& x) { acc += x; }

int64_t ceil_log2(int64_t x) {
  if (x <= 2) return 1;
  int64_t bits = 0;
  for (uint64_t v = static_cast<uint64_t>(x) - 1; v; v >>= 1) ++bits;
  return bits;
}

// multi_row_sum: nrows running sums over `size` rows, with a cascade of 4 levels so
// only partial sums of similar size are added together (SumKernel.cpp).
template <typename T, int nrows, typename Load>
std::array<T, nrows> multi_row_sum(int64_t size, Load load) {
  constexpr int num_levels = 4;
  const int64_t level_power = std::max<int64_t>(4, ceil_log2(size) / num_levels);
  const int64_t level_step = int64_t{1} << level_power;
  const int64_t level_mask = level_step - 1;
  T acc[num_levels][nrows] = {};
  int64_t i = 0;
  while (i + level_step <= size) {
    for (int64_t j = 0; j < level_step; ++j, ++i)
      for (int k = 0; k < nrows; ++k) add_to(acc[0][k], load(i, k));
    for (int j = 1; j < num_levels; ++j) {
      for (int k = 0; k < nrows; ++k) {
        add_to(acc[j][k], acc[j - 1][k]);
        acc[j - 1][k] = T{};
      }
      if ((i & (level_mask << (j * level_power))) != 0) break;
    }
  }
  for (; i < size; ++i)
    for (int k = 0; k < nrows; ++k) add_to(acc[0][k], load(i, k));
  for (int j = 1; j < num_levels; ++j)
    for (int k = 0; k < nrows; ++k) add_to(acc[0][k], acc[j][k]);
  std::array<T, nrows> out;
  for (int k = 0; k < nrows; ++k) out[k] = acc[0][k];
  return out;
}

// row_sum: the row seen as (-1, 4) for instruction-level parallelism, then the leftovers.
template <typename T, typename Load>
T row_sum(int64_t size, Load load) {
  constexpr int ilp = 4;
  const int64_t size_ilp = size / ilp;
  auto partial = multi_row_sum<T, ilp>(size_ilp, [&](int64_t i, int k) { return load(i * ilp + k); });
  for (int64_t i = size_ilp * ilp; i < size; ++i) add_to(partial[0], load(i));
  for (int k = 1; k < ilp; ++k) add_to(partial[0], partial[k]);
  return partial[0];
}

}  // namespace

float cascade_sum(const float* x, int64_t n) {
  if (n < 8) return row_sum<float>(n, [&](int64_t i) { return x[i]; });
  // vectorized_inner_sum: 8-lane vectors through row_sum, the scalar tail, then the lanes.
  const int64_t vec_size = n / 8;
  const Vec8 vec_acc = row_sum<Vec8>(vec_size, [&](int64_t i) {
    Vec8 v;
    std::memcpy(v.v.data(), x + i * 8, sizeof(float) * 8);
    return v;
  });
  float final_acc = 0.0f;
  for (int64_t k = vec_size * 8; k < n; ++k) final_acc += x[k];
  for (float lane : vec_acc.v) final_acc += lane;
  return final_acc;
}

// ---- sum over the rows ---------------------------------------------------------------------
// t.sum(dim=0) of a contiguous (rows, cols) tensor (a bias's gradient, a batch's sum):
// SumKernel.cpp's outer reductions. With 8 columns or more, vectorized_outer_sum takes the
// columns 32 at a time through multi_row_sum, then 8 at a time through row_sum, the rest one
// by one through row_sum; with fewer, scalar_outer_sum takes them 4 at a time through
// multi_row_sum and the rest through row_sum. Every lane sums its own column, so a column's
// sum depends only on which of the two it went through. The output starts at 0 and the sum
// is added to it. One column is the contiguous sum (cascade_sum).

void column_sums(const float* x, int64_t rows, int64_t cols, float* out, int64_t begin, int64_t end) {
  if (end < 0) end = cols;
  if (cols == 1) {
    if (begin < end) out[0] = 0.0f + cascade_sum(x, rows);
    return;
  }
  // Which way a column goes depends on its place in the whole width, not in [begin, end).
  const int64_t multi_end = cols >= 8 ? cols / 32 * 32 : cols / 4 * 4;
  for (int64_t j = begin; j < end; ++j) {
    const auto load = [&](int64_t i) { return x[i * cols + j]; };
    const float sum = j < multi_end
                          ? multi_row_sum<float, 1>(rows, [&](int64_t i, int) { return load(i); })[0]
                          : row_sum<float>(rows, load);
    out[j] = 0.0f + sum;
  }
}

// ---- softmax reductions ------------------------------------------------------------------
// vec::reduce_all: rows shorter than 8 go left to right. Longer rows are combined
// lane-wise (lane l holds elements l, l+8, ...; the tail goes into the first lanes), and
// the 8 lanes are then folded as a tree of AVX shuffles: halves (l, l+4), then (l, l^2),
// then (l, l^1).

template <typename Op>
static float reduce_all(const float* x, int64_t n, Op op) {
  constexpr int64_t lanes = 8;
  if (n < lanes) {
    float acc = x[0];
    for (int64_t i = 1; i < n; ++i) acc = op(acc, x[i]);
    return acc;
  }
  float acc[lanes];
  std::copy(x, x + lanes, acc);
  int64_t d = lanes;
  for (; d + lanes <= n; d += lanes)
    for (int64_t l = 0; l < lanes; ++l) acc[l] = op(acc[l], x[d + l]);
  for (int64_t l = 0; d + l < n; ++l) acc[l] = op(acc[l], x[d + l]);
  for (int shift : {4, 2, 1}) {
    float folded[lanes];
    for (int l = 0; l < lanes; ++l) folded[l] = op(acc[l], acc[l ^ shift]);
    std::copy(folded, folded + lanes, acc);
  }
  return acc[0];
}

float reduce_all_sum(const float* x, int64_t n) {
  return reduce_all(x, n, [](float a, float b) { return a + b; });
}

float reduce_all_max(const float* x, int64_t n) {
  // vec::maximum propagates NaN.
  return reduce_all(x, n, [](float a, float b) { return (a > b || std::isnan(a)) ? a : b; });
}

// ---- dot ---------------------------------------------------------------------------------
// OpenBLAS's sdot (kernel/x86_64/sdot.c with the SkylakeX micro-kernel): the first
// n & ~31 products go through float vector accumulators (fused multiply-adds), the rest are
// added one by one to a double, then the vector part is added and the double rounded.

namespace {

// sdot_kernel_16 (sdot_microk_skylakex-2.c) on n, a multiple of 32: four 16-lane
// accumulators over blocks of 64, folded to 8 lanes (l + l+8); four 8-lane accumulators
// over a last block of 32; then (((a0 + a1) + a2) + a3), halves (l + l+4), and two
// horizontal adds.
float sdot_vector_part(const float* x, const float* y, int64_t n) {
  float wide[4][16] = {};
  const int64_t n64 = n & ~int64_t{63};
  int64_t i = 0;
  for (; i < n64; i += 64)
    for (int q = 0; q < 4; ++q)
      for (int l = 0; l < 16; ++l) wide[q][l] = fma32(x[i + 16 * q + l], y[i + 16 * q + l], wide[q][l]);
  float acc[4][8];
  for (int q = 0; q < 4; ++q)
    for (int l = 0; l < 8; ++l) acc[q][l] = wide[q][l] + wide[q][l + 8];
  for (; i < n; i += 32)
    for (int q = 0; q < 4; ++q)
      for (int l = 0; l < 8; ++l) acc[q][l] = fma32(x[i + 8 * q + l], y[i + 8 * q + l], acc[q][l]);
  float a[8], h[4];
  for (int l = 0; l < 8; ++l) a[l] = ((acc[0][l] + acc[1][l]) + acc[2][l]) + acc[3][l];
  for (int l = 0; l < 4; ++l) h[l] = a[l] + a[l + 4];
  return (h[0] + h[1]) + (h[2] + h[3]);
}

}  // namespace

float blas_sdot(const float* x, const float* y, int64_t n) {
  const int64_t n1 = n & ~int64_t{31};
  const float vector_part = n1 ? sdot_vector_part(x, y, n1) : 0.0f;
  double dot = 0.0;
  for (int64_t i = n1; i < n; ++i) dot += static_cast<double>(y[i] * x[i]);  // float products
  dot += vector_part;
  return static_cast<float>(dot);
}

// ---- softmax over a dimension that is not the last --------------------------------------
// _vec_softmax: parallel_for over the outer * inner columns with a grain of
// GRAIN_SIZE / dim_size (32768 / dim_size): serial unless there are more columns than that,
// and then n = min(threads, ceil(columns / grain)) threads each take one contiguous range of
// ceil(columns / n) columns (ParallelOpenMP.h). Within its range a thread takes 8 columns at once (Vectorized<float> of the AVX2
// build) while they lie in one row of `inner` and in its range; the others go one by one.
// Both compute the same steps: the column's maximum, exp(x - max) summed from the top,
// then each divided by the sum. Only the exp differs: SLEEF's expf (u10) for the vectors,
// the C library's expf (glibc's: libc_expf) for single columns. Their last bits differ now and then.
namespace {

void softmax_column(const float* in, float* out, int64_t dim_size, int64_t stride, bool vectorised) {
  float max_input = in[0];
  for (int64_t d = 1; d < dim_size; ++d) {
    const float x = in[d * stride];
    if (vectorised)  // vec::maximum: _mm256_max_ps, NaN if either is NaN
      max_input = (std::isnan(max_input) || std::isnan(x)) ? std::numeric_limits<float>::quiet_NaN()
                                                           : (max_input > x ? max_input : x);
    else
      max_input = std::max(max_input, x);
  }
  float sum = 0.0f;
  for (int64_t d = 0; d < dim_size; ++d) {
    const float diff = in[d * stride] - max_input;
    const float e = vectorised ? sleef_expf(diff) : libc_expf(diff);
    out[d * stride] = e;
    sum = sum + e;
  }
  for (int64_t d = 0; d < dim_size; ++d) out[d * stride] = out[d * stride] / sum;
}

}  // namespace

void softmax_over_dim(const float* in, float* out, int64_t outer, int64_t dim_size, int64_t inner,
                      int64_t threads) {
  constexpr int64_t kStep = 8;  // Vectorized<float>::size()
  const int64_t columns = outer * inner;
  if (columns <= 0 || dim_size <= 0) return;
  const auto run = [&](int64_t begin, int64_t end) {
    int64_t idx = begin;
    while (idx < end) {
      const int64_t inner_idx = idx % inner;
      const bool vectorised = inner_idx + kStep <= inner && idx + kStep <= end;
      // A vector of 8 columns, or the scalar tail: to the end of the range or of the row.
      const int64_t count = vectorised ? kStep : (idx + kStep > end ? end - idx : inner - inner_idx);
      for (int64_t i = idx; i < idx + count && i < end; ++i) {
        const int64_t offset = (i / inner) * dim_size * inner + i % inner;
        softmax_column(in + offset, out + offset, dim_size, inner, vectorised);
      }
      idx += count;
    }
  };
  // parallel_for(0, columns, grain): one range per thread, or one range in all.
  const int64_t grain = 32768 / dim_size;  // at::internal::GRAIN_SIZE / dim_size
  if (!(columns > grain && columns > 1 && threads > 1)) return run(0, columns);
  const int64_t num_threads = grain > 0 ? std::min(threads, (columns + grain - 1) / grain) : threads;
  const int64_t chunk = (columns + num_threads - 1) / num_threads;
  for (int64_t tid = 0; tid < num_threads; ++tid) {
    const int64_t begin = tid * chunk;
    if (begin < columns) run(begin, std::min(columns, begin + chunk));
  }
}

}  // namespace attn::kernels
