// OpenBLAS's sgemm as PyTorch 1.13 calls it, as a definition: which kernel OpenBLAS 0.3.21
// runs for a product, and the order in which that kernel adds up each output. The fast
// kernels (kernels/gemm.h, kernels/sgemm.h) take their operands and orders from here and
// compute the same bits; sgemm_reference() below is the readable definition they are
// tested against.
#pragma once

#include <cstdint>
#include <vector>

namespace attn::kernels {

// A read-only matrix operand. Element (r, c) is data[r * ld + c], or data[c * ld + r] when
// `transposed` (the matrix is stored as its transpose, as for x @ W.T or keys.T).
struct ConstMat {
  const float* data = nullptr;
  int64_t ld = 0;
  bool transposed = false;
  float at(int64_t r, int64_t c) const { return transposed ? data[c * ld + r] : data[r * ld + c]; }
  // The operand starting at element (r, c).
  ConstMat offset(int64_t r, int64_t c) const {
    return {transposed ? data + c * ld + r : data + r * ld + c, ld, transposed};
  }
};

// The order of one output's k-sum (kernels/gemm.h says it in full): the sum is cut into
// blocks [k_bounds[b], k_bounds[b+1]), each block a chain of fused multiply-adds from 0 in
// k order, and each block's chain stored (the first, unless add_to_c) or added to C.
struct ChainOrder {
  std::vector<int64_t> k_bounds;  // 0 = k_bounds[0] < ... < k_bounds.back() = K
  bool add_to_c = false;          // false: the first block's chain is stored, later ones added
};

// One block covering all of K: OpenBLAS's small-matrix kernels.
ChainOrder single_chain(int64_t K);

// One float32 matrix product as PyTorch hands it to OpenBLAS:
//   C (M, N) = A (M, K) @ B (K, N) [+ bias]
// A is row-major with row stride lda, or, when a_transposed, stored as (K, M) with row
// stride lda and used as its transpose (autograd's grad.T @ x for a weight's gradient,
// attn_weights.T @ grad in bmm's backward). B.transposed says PyTorch passed B as a transposed
// view (x @ W.T in nn.Linear, queries @ keys.T) rather than a row-major matrix; that picks a
// different OpenBLAS kernel. A bias is nn.Linear's addmm: C starts as the bias (beta = 1).
struct SgemmCall {
  int64_t M = 0, N = 0, K = 0;
  const float* A = nullptr;
  int64_t lda = 0;
  bool a_transposed = false;
  ConstMat B;
  float* C = nullptr;
  int64_t ldc = 0;
  const float* bias = nullptr;  // N values, or null
};

// Which kernel OpenBLAS 0.3.21 runs for the call (see sgemm_order.cpp).
enum class SgemmKernel { SmallNN, SmallTN, SmallNT, Blocked };
SgemmKernel sgemm_kernel(int64_t M, int64_t N, int64_t K, bool b_transposed, bool a_transposed = false);
// The blocked kernel's K-blocks and their order (OpenBLAS's level-3 driver).
ChainOrder blocked_chain_order(int64_t K);

// The small kernels' "dot-like" outputs: the columns [first, N) they compute that way
// (first == N: none; every column for SmallTN, none for SmallNT or Blocked), and one such output
// C(i, j) without the bias: 16 lanes of fused multiply-adds, then the lanes added up.
int64_t first_dot_like_column(const SgemmCall& g, SgemmKernel kernel);
float dot_like(const SgemmCall& g, int64_t i, int64_t j);

// The readable definition, one output at a time. kernels::sgemm (kernels/sgemm.h) computes
// the same bits fast.
void sgemm_reference(const SgemmCall& call);

}  // namespace attn::kernels
