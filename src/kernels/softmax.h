// Fast softmax rows with the exact operations of PyTorch's AVX2 softmax kernel
// (torch_kernels.h: reduce_all max, SLEEF expf, reduce_all sum, times 1/sum).
//
// The vector path evaluates expf on 8 values at once with the same sequence of roundings,
// and keeps the 8-lane layout of the reductions, so each row's bits equal
// softmax_row_reference(). Rows whose maximum is not finite (NaN, +-inf) take the
// reference path.
#pragma once

#include <cstdint>

namespace attn::kernels {

// torch.softmax(row, dim=-1) of one row of n values, in place; the readable definition.
void softmax_row_reference(float* row, int64_t n);

// The same for `rows` rows of n values each, in place, fast.
void softmax_rows(float* x, int64_t rows, int64_t n);

// One row of causal attention, fused: the row has full_n scores, of which only the first
// `valid` are kept (divided by `divisor`) and the rest are masked to -inf, so their weights
// are exactly 0. The result equals softmax_row_reference() of
//     [s_0/divisor, ..., s_{valid-1}/divisor, -inf, ..., -inf]   (full_n values).
// Only the first n values of the row are stored and written (valid <= n <= full_n): the
// weights, then zeros; masked scores past `valid` are never read.
void masked_softmax_row(float* row, int64_t valid, int64_t n, int64_t full_n, float divisor);

// masked_softmax_row() for `count` rows, row r at first_row + r * ld keeping first_valid + r
// scores (consecutive rows of a causal block), all with the same n and full_n. The same
// results; faster, since several rows' sums run side by side.
//
// `divided`, when given, tells what the scores' product already did (gemm_scores_scaled_max):
// the first divided->cols scores of every row (at most first_valid) are divided already, and
// divided->max[r] is their maximum in row r, to be used unless divided->unchecked[r].
struct DividedPrefix {
  int64_t cols = 0;
  const float* max = nullptr;
  const bool* unchecked = nullptr;
};
void masked_softmax_rows(float* first_row, int64_t count, int64_t ld, int64_t first_valid, int64_t n,
                         int64_t full_n, float divisor, const DividedPrefix* divided = nullptr);

// Whether dividing by `divisor` is scaling by a power of two, the same float for every x:
// divisor = 2^-scale_exp with 2^scale_exp itself a normal float, so that x / divisor and
// x * 2^scale_exp are the same real number, rounded once. Sets scale_exp when true.
bool division_is_scaling(float divisor, int& scale_exp);

// expf(x) for n values (SLEEF's xexpf, as sleef_expf()), fast.
void exp_values(const float* x, float* out, int64_t n);

}  // namespace attn::kernels
