// OpenBLAS's sgemm, fast: the kernel and the order of every output's sum that
// torch/sgemm_order.h defines, computed with the register-tiled chains of kernels/gemm.h on
// all threads. The same bits as sgemm_reference().
#pragma once

#include "torch/sgemm_order.h"

namespace attn::kernels {

struct PackedB;

// B operands packed for the kernels once and kept, for products whose B is a weight that does
// not change while this lives (a model's parameters where the weights file lies), as an
// inference runtime prepacks its constant weights: each later product by it skips packing.
// Kept by where B lies, its layout, its shape, the chain order it was packed for and the
// instruction set. Safe to share between threads.
class PackedWeights {
 public:
  PackedWeights();
  ~PackedWeights();
  PackedWeights(const PackedWeights&) = delete;
  PackedWeights& operator=(const PackedWeights&) = delete;
  // B (K, N) packed for `order` (with its non-finite rows found, for the zero-tail hint):
  // packed on the first call for it, the same storage after.
  const PackedB& packed(int64_t K, int64_t N, ConstMat B, const ChainOrder& order);
  int64_t count() const;  // how many have been packed

 private:
  struct Store;
  Store* store_;
};

// C = A @ B [+ bias] for one call. When A's rows end in zeros (causal attention weights),
// those products are skipped, exactly. `weights`, if given, keeps B packed from one call to
// the next (B must then be a weight: see PackedWeights); the bits are the same.
void sgemm(const SgemmCall& call, PackedWeights* weights = nullptr);

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
