// The last bits of PyTorch 1.13's CPU kernels (AVX2 build, OpenBLAS), reproduced so
// that our float32 results are the same floats, not just close:
//   - exp: SLEEF's expf (u10), which Vectorized<float>::exp() calls;
//   - sum: the cascade sum of ReduceOps/SumKernel.cpp;
//   - softmax's row reductions: vec::reduce_all over 8-lane vectors;
//   - dot: OpenBLAS sdot (float products added in double for short vectors);
//   - matrix products: which OpenBLAS sgemm kernel PyTorch's call reaches, and the order
//     in which that kernel adds up each output (sgemm below).
#pragma once

#include <cstdint>

#include "kernels/gemm.h"

namespace attn::kernels {

float sleef_expf(float d);
float cascade_sum(const float* x, int64_t n);
float reduce_all_sum(const float* x, int64_t n);
float reduce_all_max(const float* x, int64_t n);
float blas_sdot(const float* x, const float* y, int64_t n);

// torch.softmax(x, dim) for a dim that is not the last (SoftMaxKernel.cpp's _vec_softmax),
// x seen as (outer, dim_size, inner): each of the outer * inner columns is normalised alone.
// `threads` is the PyTorch run's torch.get_num_threads(): it decides which columns take the
// vectorised exp and which the scalar one (see torch_kernels.cpp).
void softmax_over_dim(const float* in, float* out, int64_t outer, int64_t dim_size, int64_t inner,
                      int64_t threads);

// ---- sgemm ---------------------------------------------------------------------------------
// One float32 matrix product as PyTorch hands it to OpenBLAS:
//   C (M, N) = A (M, K) @ B (K, N) [+ bias]
// A is row-major with row stride lda. B.transposed says PyTorch passed B as a transposed
// view (x @ W.T in nn.Linear, queries @ keys.T) rather than a row-major matrix; that picks a
// different OpenBLAS kernel. A bias is nn.Linear's addmm: C starts as the bias (beta = 1).
struct SgemmCall {
  int64_t M = 0, N = 0, K = 0;
  const float* A = nullptr;
  int64_t lda = 0;
  ConstMat B;
  float* C = nullptr;
  int64_t ldc = 0;
  const float* bias = nullptr;  // N values, or null
};

// Which kernel OpenBLAS 0.3.21 runs for the call (see torch_kernels.cpp).
enum class SgemmKernel { SmallNN, SmallTN, Blocked };
SgemmKernel sgemm_kernel(int64_t M, int64_t N, int64_t K, bool b_transposed);
// The blocked kernel's K-blocks and their order (OpenBLAS's level-3 driver).
ChainOrder blocked_chain_order(int64_t K);

// The readable definition, one output at a time.
void sgemm_reference(const SgemmCall& call);
// The same bits, fast: register-tiled chains on all threads (kernels/gemm.h). When A's rows
// end in zeros (causal attention weights), those products are skipped, exactly.
void sgemm(const SgemmCall& call);

}  // namespace attn::kernels
