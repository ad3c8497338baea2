#include "torch/sgemm_order.h"

#include <cstddef>

#include "torch/fma32.h"

namespace attn::kernels {

// PyTorch calls OpenBLAS in column-major terms, i.e. on the transposed problem
// C^T = B^T A^T, so OpenBLAS's "A" is our B (its rows are our columns) and its "transa" is
// our B being a transposed view. OpenBLAS 0.3.21 on this CPU ("Cooperlake" kernels) picks:
//   - a small-matrix kernel when M*N*K <= 100^3 (sgemm_small_kernel_permit_skylakex.c),
//     except that with a transposed B it does so only if M*N <= 1200 and K >= 32:
//       NN ("b0"/"nn" kernels): a k-ordered chain of fused multiply-adds per output,
//           except "dot-like" for the last <= 8 columns when K >= 32 (16 lanes, lane l
//           fusing the products k = l, l+16, ..., then the lanes added up);
//       TN: dot-like for every output;
//     the dot-like lanes are added as a tree of neighbours for columns in groups of four
//     or rows in groups of four, and by GCC's halving otherwise.
//   - otherwise the blocked kernel: K is cut into blocks of GEMM_Q = 320 (the last two
//     halved), each output's chain restarts from 0 in every block, and each block's chain
//     is added to C, which starts as 0, or as the bias for addmm (beta = 1).
// A single contiguous column (N == 1) is not transposed by PyTorch, and the small kernel
// for that problem is a plain fused chain; the view W.T of a one-row weight is transposed.

namespace {

constexpr double kSmallKernelMaxMNK = 100.0 * 100.0 * 100.0;
constexpr int64_t kGemmQ = 320;  // SGEMM_DEFAULT_Q for SkylakeX/Cooperlake

// Adds 16 lanes as a tree of neighbours: (0+1), (2+3), ... then pairs of those, ...
// (REDUCE_M4 in OpenBLAS's small-matrix kernel).
float reduce_lanes_neighbours(float* lanes) {
  for (int shift : {1, 2, 4, 8})
    for (int l = 0; l < 16; l += 2 * shift) lanes[l] = lanes[l] + lanes[l + shift];
  return lanes[0];
}

// Adds 16 lanes as GCC's _mm512_reduce_add_ps does: halves (l + l+8), then (l + l+4),
// then (l + l+2), then the last two.
float reduce_lanes_halves(float* lanes) {
  for (int half : {8, 4, 2, 1})
    for (int l = 0; l < half; ++l) lanes[l] = lanes[l + half] + lanes[l];
  return lanes[0];
}

// A(i, k), whether PyTorch passed A as is or as a transposed view.
float a_at(const SgemmCall& g, int64_t i, int64_t k) {
  return g.a_transposed ? g.A[k * g.lda + i] : g.A[i * g.lda + k];
}

}  // namespace

float dot_like(const SgemmCall& g, int64_t i, int64_t j) {
  float lanes[16] = {};
  for (int64_t k = 0; k < g.K; ++k)
    lanes[k % 16] = fma32(a_at(g, i, k), g.B.at(k, j), lanes[k % 16]);
  const bool neighbours = j < (g.N & ~int64_t{3}) || i < (g.M & ~int64_t{3});
  return neighbours ? reduce_lanes_neighbours(lanes) : reduce_lanes_halves(lanes);
}

// The columns [first, N) the small kernel computes dot-like (first == N: none).
int64_t first_dot_like_column(const SgemmCall& g, SgemmKernel kernel) {
  if (kernel == SgemmKernel::SmallTN) return 0;
  if (kernel == SgemmKernel::Blocked || kernel == SgemmKernel::SmallNT) return g.N;
  const int64_t full_blocks = g.N & ~int64_t{15};
  const bool dot_like_tail = (g.N - full_blocks) <= 8 && g.K >= 32 && g.N > 1;
  return dot_like_tail ? full_blocks : g.N;
}

SgemmKernel sgemm_kernel(int64_t M, int64_t N, int64_t K, bool b_transposed, bool a_transposed) {
  const double mnk = static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K);
  if (mnk > kSmallKernelMaxMNK) return SgemmKernel::Blocked;
  // A transposed view of A is OpenBLAS's transposed B: its "NT" kernel, a k-ordered chain
  // of fused multiply-adds for every output, permitted at any shape below 100^3.
  if (a_transposed && !b_transposed) return SgemmKernel::SmallNT;
  if (a_transposed) return SgemmKernel::Blocked;  // TT: not reached by attn-walk's products
  if (!b_transposed) return SgemmKernel::SmallNN;
  return (M * N <= 1200 && K >= 32) ? SgemmKernel::SmallTN : SgemmKernel::Blocked;
}

ChainOrder blocked_chain_order(int64_t K) {
  // driver/level3/level3_thread.c: GEMM_Q while at least two blocks are left, then the
  // remainder in two halves (the first rounded up) if it is more than one block.
  ChainOrder order;
  order.add_to_c = true;
  order.k_bounds.push_back(0);
  for (int64_t ls = 0, min_l; ls < K; ls += min_l) {
    min_l = K - ls;
    if (min_l >= 2 * kGemmQ) min_l = kGemmQ;
    else if (min_l > kGemmQ) min_l = (min_l + 1) / 2;
    order.k_bounds.push_back(ls + min_l);
  }
  if (K == 0) order.k_bounds.push_back(0);
  return order;
}

ChainOrder single_chain(int64_t K) { return ChainOrder{{0, K}, false}; }

void sgemm_reference(const SgemmCall& g) {
  const SgemmKernel kernel = sgemm_kernel(g.M, g.N, g.K, g.B.transposed, g.a_transposed);
  const int64_t first_dot = first_dot_like_column(g, kernel);
  const ChainOrder blocked = blocked_chain_order(g.K);
  for (int64_t i = 0; i < g.M; ++i) {
    for (int64_t j = 0; j < g.N; ++j) {
      const float bias = g.bias ? g.bias[j] : 0.0f;
      float c;
      if (kernel == SgemmKernel::Blocked) {
        // C starts as 0 (beta = 0 clears it) or the bias; every block's chain is added.
        c = g.bias ? bias : 0.0f;
        for (size_t b = 0; b + 1 < blocked.k_bounds.size(); ++b) {
          float acc = 0.0f;
          for (int64_t k = blocked.k_bounds[b]; k < blocked.k_bounds[b + 1]; ++k)
            acc = fma32(a_at(g, i, k), g.B.at(k, j), acc);
          c = acc + c;
        }
      } else {
        if (j >= first_dot) {
          c = dot_like(g, i, j);
        } else {
          c = 0.0f;
          for (int64_t k = 0; k < g.K; ++k) c = fma32(a_at(g, i, k), g.B.at(k, j), c);
        }
        // The small kernels with beta = 1 store alpha * acc + beta * C.
        if (g.bias) c = c + bias;
      }
      g.C[i * g.ldc + j] = c;
    }
  }
}

}  // namespace attn::kernels
