// OpenBLAS's sgemm, fast: the kernel and the order of every output's sum that
// torch/sgemm_order.h defines, computed with the register-tiled chains of kernels/gemm.h on
// all threads. The same bits as sgemm_reference().
#pragma once

#include "torch/sgemm_order.h"

namespace attn::kernels {

// C = A @ B [+ bias] for one call. When A's rows end in zeros (causal attention weights),
// those products are skipped, exactly.
void sgemm(const SgemmCall& call);

// One (M, K) @ (K, N) product as torch.mm hands it to sgemm: A as is (K contiguous) or as a
// transposed view (stored (K, M)), B as is or transposed (stored (N, K)); C (M, N) row-major.
inline void mm(const float* A, bool a_transposed, const float* B, bool b_transposed, float* C, int64_t M,
               int64_t K, int64_t N) {
  SgemmCall call;
  call.M = M;
  call.N = N;
  call.K = K;
  call.A = A;
  call.lda = a_transposed ? M : K;
  call.a_transposed = a_transposed;
  call.B = ConstMat{B, b_transposed ? K : N, b_transposed};
  call.C = C;
  call.ldc = N;
  sgemm(call);
}

}  // namespace attn::kernels
