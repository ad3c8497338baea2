// Internal: the vector softmax pieces (softmax_avx2.cpp, softmax_avx512.cpp), used by
// softmax.cpp when the CPU has AVX2 and FMA (and AVX-512F); aarch64's (softmax_neon.cpp); and
// the page's (softmax_simd128.cpp).
#pragma once

#include <cstdint>

namespace attn::kernels::detail {

// out[i] = sleef_expf(x[i] - shift) for n values (shift 0 for plain expf).
void exp_shifted_avx2(const float* x, float* out, int64_t n, float shift);
// reduce_all over x[0, valid) laid out as a row of n >= 8 values whose other entries are the
// identity (-inf for max, 0 for sum): lane e % 8 takes element e, lanes folded as a tree.
float reduce_max_avx2(const float* x, int64_t valid);
float reduce_sum_avx2(const float* x, int64_t valid);
// The last step of reduce_sum_avx2: its 8 lanes folded as a tree into the sum.
float fold_sum_avx2(const float lanes[8]);
// x[i] = op(x[i], s) for n values.
void multiply_avx2(float* x, int64_t n, float s);
void divide_avx2(float* x, int64_t n, float s);

// The elementwise ones, 16 lanes at a time (softmax_avx512.cpp), when the CPU has AVX-512F.
void exp_shifted_avx512(const float* x, float* out, int64_t n, float shift);
void multiply_avx512(float* x, int64_t n, float s);
void divide_avx512(float* x, int64_t n, float s);

// Two passes of the causal row fused (AVX-512): x[i] /= divisor, returning the maximum of
// the results (nan: whether any is NaN); and, for `count` (1 to 4) rows at once,
// x[r][i] = sleef_expf(x[r][i] - shift[r]) for i < n[r], with each row's sum, as
// reduce_sum_avx2 adds them, in sums[r]; every x[r][i] <= shift[r].
float divide_max_avx512(float* x, int64_t n, float divisor, bool& nan);
void exp_shifted_sum_rows_avx512(float* const* x, const int64_t* n, const float* shift, int count, float* sums);
// The same two passes with AVX2 (softmax_avx2.cpp), 8 lanes: the same floats.
float divide_max_avx2(float* x, int64_t n, float divisor, bool& nan);
void exp_shifted_sum_rows_avx2(float* const* x, const int64_t* n, const float* shift, int count, float* sums);

// The page's (WebAssembly SIMD128; softmax_simd128.cpp): exp_shifted_avx2, reduce_max_avx2,
// reduce_sum_avx2, multiply_avx2 and divide_avx2, 4 lanes at a time, the same floats. They abort
// in a native build.
void exp_shifted_simd128(const float* x, float* out, int64_t n, float shift);
float reduce_max_simd128(const float* x, int64_t valid);
float reduce_sum_simd128(const float* x, int64_t valid);
void multiply_simd128(float* x, int64_t n, float s);
void divide_simd128(float* x, int64_t n, float s);

// aarch64's (NEON; softmax_neon.cpp): the same five pieces, 4 lanes at a time, the same floats.
// They abort on other architectures.
void exp_shifted_neon(const float* x, float* out, int64_t n, float shift);
float reduce_max_neon(const float* x, int64_t valid);
float reduce_sum_neon(const float* x, int64_t valid);
void multiply_neon(float* x, int64_t n, float s);
void divide_neon(float* x, int64_t n, float s);
// fold_sum_avx2's tree of 8 lanes.
float fold_sum_neon(const float lanes[8]);
// The causal rows' two passes (divide_max_avx2, exp_shifted_sum_rows_avx2): the same floats.
float divide_max_neon(float* x, int64_t n, float divisor, bool& nan);
void exp_shifted_sum_rows_neon(float* const* x, const int64_t* n, const float* shift, int count, float* sums);

}  // namespace attn::kernels::detail

namespace attn::kernels::detail {

// Softmax's backward on one row of causal attention weights (attention_backward.cpp), AVX2 +
// FMA: the sum of g[j] * w[j] as vec::map2_reduce_all adds it on a row of n >= 8 values whose
// entries from `valid` on have w = 0 (lane j % 8; the first 8 products rounded, the rest fused
// into their lanes; the lanes folded as reduce_all). Only [0, valid) is read: the products
// past it are zeros, which can change only the sign of a zero sum (the caller checks).
float causal_grad_dot_avx2(const float* g, const float* w, int64_t valid);
// The same for four rows ld floats apart, row r's valid + r entries: sums[r].
void causal_grad_dot4_avx2(const float* g, const float* w, int64_t ld, int64_t valid, float sums[4]);
// out[j] = ((g[j] - sum) * w[j]) / divisor for j < valid: the rest of the backward of
// softmax(scores / divisor) for the kept scores of the row.
void causal_grad_scale_avx2(const float* g, const float* w, float sum, float divisor, float* out, int64_t valid);
// The same two with aarch64's NEON (softmax_backward_neon.cpp), the 8 lanes as two vectors of
// 4: the same floats. They abort on other architectures.
float causal_grad_dot_neon(const float* g, const float* w, int64_t valid);
void causal_grad_scale_neon(const float* g, const float* w, float sum, float divisor, float* out, int64_t valid);

}  // namespace attn::kernels::detail
