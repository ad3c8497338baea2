// The last bits of PyTorch 1.13's CPU kernels (AVX2 build, OpenBLAS), reproduced so
// that our float32 results are the same floats, not just close:
//   - exp: SLEEF's expf (u10), which Vectorized<float>::exp() calls;
//   - sum: the cascade sum of ReduceOps/SumKernel.cpp;
//   - softmax's row reductions: vec::reduce_all over 8-lane vectors;
//   - dot: OpenBLAS sdot (float products added in double for short vectors);
//   - matrix products: which OpenBLAS sgemm kernel PyTorch's call reaches, and the order
//     in which that kernel adds up each output, are in torch/sgemm_order.h.
#pragma once

#include <cstdint>

namespace attn::kernels {

float sleef_expf(float d);
float cascade_sum(const float* x, int64_t n);
float reduce_all_sum(const float* x, int64_t n);
float reduce_all_max(const float* x, int64_t n);
float blas_sdot(const float* x, const float* y, int64_t n);
// t.sum(dim=0) of a row-major (rows, cols) matrix, as SumKernel.cpp reduces a dimension that
// is not the innermost: out[j] = 0 + (column j summed down the rows, see torch_kernels.cpp).
// Only columns [begin, end) when given (end -1: to the last), each summed as in the whole, so
// that threads may share the columns out.
void column_sums(const float* x, int64_t rows, int64_t cols, float* out, int64_t begin = 0, int64_t end = -1);

// torch.softmax(x, dim) for a dim that is not the last (SoftMaxKernel.cpp's _vec_softmax),
// x seen as (outer, dim_size, inner): each of the outer * inner columns is normalised alone.
// `threads` is the PyTorch run's torch.get_num_threads(): it decides which columns take the
// vectorised exp and which the scalar one (see torch_kernels.cpp).
void softmax_over_dim(const float* in, float* out, int64_t outer, int64_t dim_size, int64_t inner,
                      int64_t threads);

}  // namespace attn::kernels
