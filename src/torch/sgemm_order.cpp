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
// SkylakeX runs the same kernels with K-blocks of 448. Haswell has no small-matrix kernels:
// every product is blocked (K-blocks of 320), and its kernel sums the outputs of some tiles
// in two chains (haswell_two_chain_outputs). With one OpenBLAS thread, or below 65536 * 4
// multiply-adds, the one-thread driver rounds the halved last K-blocks differently.

namespace {

constexpr double kSmallKernelMaxMNK = 100.0 * 100.0 * 100.0;
// interface/gemm.c: at most 65536 * 4 multiply-adds run on one thread, whatever the count.
constexpr double kThreadedMinMNK = 65536.0 * 4.0;

// param.h's SGEMM_DEFAULT_Q (the K-block), _P (the block of OpenBLAS's M, our N) and
// _UNROLL_M (the multiple blocks are rounded to) of each kernel.
struct KernelParams {
  int64_t q, p, unroll_m;
};
KernelParams params_of(BlasKernel kernel) {
  switch (kernel) {
    case BlasKernel::SkylakeX: return {448, 448, 16};
    case BlasKernel::Haswell: return {320, 320, 8};
    default: return {320, 640, 16};
  }
}

// level3_thread.c's SWITCH_RATIO and GEMM_PREFERED_SIZE as Debian's OpenBLAS (DYNAMIC_ARCH,
// its driver built for the generic target, whose param.h sets neither) has them: the
// defaults. How it shares a product out among threads; measured against PyTorch on Haswell's
// tiles (docs/fidelity.md: the Haswell target's own 8 and 8 miss some of the goldens').
constexpr int64_t kSwitchRatio = 2;
constexpr int64_t kPreferredSize = 1;

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
  if (kernel == SgemmKernel::Blocked || kernel == SgemmKernel::HaswellBlocked || kernel == SgemmKernel::SmallNT)
    return g.N;
  const int64_t full_blocks = g.N & ~int64_t{15};
  const bool dot_like_tail = (g.N - full_blocks) <= 8 && g.K >= 32 && g.N > 1;
  return dot_like_tail ? full_blocks : g.N;
}

SgemmKernel sgemm_kernel(int64_t M, int64_t N, int64_t K, bool b_transposed, bool a_transposed) {
  // KERNEL.HASWELL names no small-matrix kernels: every product takes the blocked one.
  if (blas_order().kernel == BlasKernel::Haswell) return SgemmKernel::HaswellBlocked;
  // SkylakeX and Cooperlake share their kernels (KERNEL.COOPERLAKE includes KERNEL.SKYLAKEX).
  const double mnk = static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K);
  if (mnk > kSmallKernelMaxMNK) return SgemmKernel::Blocked;
  // A transposed view of A is OpenBLAS's transposed B: its "NT" kernel, a k-ordered chain
  // of fused multiply-adds for every output, permitted at any shape below 100^3.
  if (a_transposed && !b_transposed) return SgemmKernel::SmallNT;
  if (a_transposed) return SgemmKernel::Blocked;  // TT: not reached by attn-walk's products
  if (!b_transposed) return SgemmKernel::SmallNN;
  return (M * N <= 1200 && K >= 32) ? SgemmKernel::SmallTN : SgemmKernel::Blocked;
}

ChainOrder blocked_chain_order(int64_t K, BlasKernel kernel, bool threaded) {
  // GEMM_Q while at least two blocks are left, then the remainder in two halves if it is more
  // than one block: the first (min_l + 1) / 2 in level3_thread.c, min_l / 2 rounded up to
  // GEMM_UNROLL_M in level3.c.
  const KernelParams kp = params_of(kernel);
  ChainOrder order;
  order.add_to_c = true;
  order.k_bounds.push_back(0);
  for (int64_t ls = 0, min_l; ls < K; ls += min_l) {
    min_l = K - ls;
    if (min_l >= 2 * kp.q) min_l = kp.q;
    else if (min_l > kp.q) min_l = threaded ? (min_l + 1) / 2 : (min_l / 2 + kp.unroll_m - 1) / kp.unroll_m * kp.unroll_m;
    order.k_bounds.push_back(ls + min_l);
  }
  if (K == 0) order.k_bounds.push_back(0);
  return order;
}

ChainOrder blocked_chain_order(int64_t K) {
  const BlasOrder o = blas_order();
  return blocked_chain_order(K, o.kernel, o.threads > 1);
}

ChainOrder single_chain(int64_t K) { return ChainOrder{{0, K}, false}; }

namespace {

// OpenBLAS's view of a product: column-major C (m, n) = our C transposed, so its m is our N
// (the columns j) and its n our M (the rows i).
struct OpenBlasSplit {
  int64_t m, n;
  std::vector<OutputRect>* two;  // in our terms
  // OpenBLAS's rows [om, om + rows) x columns [on, on + cols): our rows [on, ...) x columns [om, ...).
  void mark(int64_t om, int64_t rows, int64_t on, int64_t cols) {
    if (rows > 0 && cols > 0) two->push_back(OutputRect{on, on + cols, om, om + rows});
  }
};

// One call of Haswell's kernel (sgemm_kernel_8x4_haswell_2.c) on OpenBLAS's rows
// [m0, m0 + mlen) and columns [n0, n0 + nlen): the columns go in groups of 12 while more than
// 11 are left, then 8, 4, 2, 1; the rows in 8s, then 4, 2, 1. Two tiles keep two chains:
//   - 8 rows x 4 columns (COMPUTE_m8n4);
//   - with 12 columns and at least 16 rows, the 8 x 6 tiles at the ends of its staggered
//     16 x 6 tiles (COMPUTE_H_m8n6 and COMPUTE_T_m8n6): the left six columns' first 8 rows,
//     and the last 8 rows of the left half if there is an even number of 8-row blocks, of the
//     right half if odd.
void haswell_kernel_call(OpenBlasSplit& s, int64_t m0, int64_t mlen, int64_t n0, int64_t nlen) {
  const int64_t blocks = mlen / 8;
  for (int64_t c = n0, left = nlen; left > 0;) {
    const int64_t w = left > 11 ? 12 : left > 7 ? 8
                                   : left > 3   ? 4
                                   : left > 1   ? 2
                                                : 1;
    if (w == 4) {
      s.mark(m0, 8 * blocks, c, 4);
    } else if (w == 12 && mlen >= 16) {
      for (int64_t b = 0; b < blocks; ++b) {
        const bool left_pair = b == 0 || (blocks % 2 == 0 && b == blocks - 1);
        const bool right_pair = blocks % 2 == 1 && b == blocks - 1;
        if (left_pair) s.mark(m0 + 8 * b, 8, c, 6);
        if (right_pair) s.mark(m0 + 8 * b, 8, c + 6, 6);
      }
    }
    c += w;
    left -= w;
  }
}

// The first block of rows a thread (or the one-thread driver) takes, and the later ones
// (level3.c rounds the later halves as the first, level3_thread.c halves (min_i + 1)).
int64_t first_rows(int64_t left, const KernelParams& kp) {
  if (left >= 2 * kp.p) return kp.p;
  if (left > kp.p) return (left / 2 + kp.unroll_m - 1) / kp.unroll_m * kp.unroll_m;
  return left;
}
int64_t later_rows(int64_t left, const KernelParams& kp, bool threaded) {
  if (left >= 2 * kp.p) return kp.p;
  if (left > kp.p) return ((threaded ? (left + 1) / 2 : left / 2) + kp.unroll_m - 1) / kp.unroll_m * kp.unroll_m;
  return left;
}

// level3_thread.c's partition of `len` into `parts` ranges (gemm_driver): each the remainder
// over the parts left, at least `least`, rounded up to GEMM_PREFERED_SIZE.
std::vector<int64_t> partition(int64_t len, int64_t parts, int64_t least) {
  std::vector<int64_t> bounds{0};
  for (int64_t left = len, done = 0; left > 0; ++done) {
    int64_t width = (left + parts - done - 1) / (parts - done);
    if (width < least) width = least;
    if (!(kPreferredSize > left || width <= kPreferredSize)) width = (width + kPreferredSize - 1) / kPreferredSize * kPreferredSize;
    left -= width;
    if (left < 0) width += left;
    bounds.push_back(bounds.back() + width);
  }
  return bounds;
}

}  // namespace

std::vector<uint8_t> haswell_two_chain_outputs(int64_t M, int64_t N, int64_t K, int threads) {
  std::vector<uint8_t> two(static_cast<size_t>(M * N), 0);
  for (const OutputRect& r : haswell_two_chain_rects(M, N, K, threads))
    for (int64_t i = r.i0; i < r.i1; ++i)
      for (int64_t j = r.j0; j < r.j1; ++j) two[static_cast<size_t>(i * N + j)] = 1;
  return two;
}

std::vector<OutputRect> haswell_two_chain_rects(int64_t M, int64_t N, int64_t K, int threads) {
  std::vector<OutputRect> two;
  OpenBlasSplit s{N, M, &two};
  const KernelParams kp = params_of(BlasKernel::Haswell);
  const double mnk = static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K);
  int64_t threads_m = 1, threads_n = 1;
  if (threads > 1 && mnk > kThreadedMinMNK) {
    // level3_thread.c: at least SWITCH_RATIO rows per thread, columns in parts of at most
    // SWITCH_RATIO * threads_m.
    if (s.m >= 2 * kSwitchRatio) {
      threads_m = threads;
      while (s.m < threads_m * kSwitchRatio) threads_m /= 2;
    }
    if (s.n >= kSwitchRatio * threads_m) {
      threads_n = (s.n + kSwitchRatio * threads_m - 1) / (kSwitchRatio * threads_m);
      if (threads_m * threads_n > threads) threads_n = threads / threads_m;
    }
  }
  // The first block of rows meets the columns as they are packed, in calls of 12 columns
  // (3 * GEMM_UNROLL_N), else 4, else what is left (the 8 of 2 * GEMM_UNROLL_N is commented
  // out in both drivers); the later blocks meet them in one call per range.
  auto packed_calls = [&s](int64_t m0, int64_t rows, int64_t js, int64_t width) {
    for (int64_t jjs = js, jj; jjs < js + width; jjs += jj) {
      jj = js + width - jjs;
      jj = jj >= 12 ? 12 : jj > 4 ? 4
                                  : jj;
      haswell_kernel_call(s, m0, rows, jjs, jj);
    }
  };
  if (threads_m * threads_n <= 1) {
    // level3.c: blocks of rows, each against all columns.
    for (int64_t is = 0, rows; is < s.m; is += rows) {
      rows = is == 0 ? first_rows(s.m, kp) : later_rows(s.m - is, kp, false);
      if (is == 0) packed_calls(is, rows, 0, s.n);
      else haswell_kernel_call(s, is, rows, 0, s.n);
    }
    return two;
  }
  const int64_t nthreads = threads_m * threads_n;
  const std::vector<int64_t> range_m = partition(s.m, threads_m, 0);
  const std::vector<int64_t> range_n = partition(s.n, nthreads, kSwitchRatio);
  auto n_range = [&](int64_t t) {
    return t + 1 < static_cast<int64_t>(range_n.size()) ? std::pair{range_n[t], range_n[t + 1]}
                                                        : std::pair{range_n.back(), range_n.back()};
  };
  for (int64_t t = 0; t < nthreads; ++t) {
    const int64_t pos_m = t % threads_m, pos_n = t / threads_m;
    if (pos_m + 1 >= static_cast<int64_t>(range_m.size())) continue;
    const int64_t m_from = range_m[pos_m], m_to = range_m[pos_m + 1];
    if (m_from >= m_to) continue;
    // Each range of columns a thread reads, in halves (DIVIDE_RATE 2).
    auto halves = [&](int64_t owner, auto&& call) {
      const auto [from, to] = n_range(owner);
      const int64_t div = (to - from + 1) / 2;
      for (int64_t js = from; js < to; js += div) call(js, std::min(to - js, div));
    };
    const int64_t first = first_rows(m_to - m_from, kp);
    // Its own columns as it packs them; the other threads' as they packed them.
    halves(t, [&](int64_t js, int64_t width) { packed_calls(m_from, first, js, width); });
    for (int64_t other = pos_n * threads_m; other < (pos_n + 1) * threads_m; ++other)
      if (other != t) halves(other, [&](int64_t js, int64_t width) { haswell_kernel_call(s, m_from, first, js, width); });
    for (int64_t is = m_from + first, rows; is < m_to; is += rows) {
      rows = later_rows(m_to - is, kp, true);
      for (int64_t owner = pos_n * threads_m; owner < (pos_n + 1) * threads_m; ++owner)
        halves(owner, [&](int64_t js, int64_t width) { haswell_kernel_call(s, is, rows, js, width); });
    }
  }
  return two;
}

// Whether OpenBLAS runs the product on its threaded driver (interface/gemm.c and
// level3_thread.c's split; the one-thread driver otherwise).
bool openblas_threaded(int64_t M, int64_t N, int64_t K, int threads) {
  const double mnk = static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K);
  if (threads <= 1 || mnk <= kThreadedMinMNK) return false;
  const int64_t m = N, n = M;  // OpenBLAS's
  int64_t threads_m = 1, threads_n = 1;
  if (m >= 2 * kSwitchRatio) {
    threads_m = threads;
    while (m < threads_m * kSwitchRatio) threads_m /= 2;
  }
  if (n >= kSwitchRatio * threads_m) {
    threads_n = (n + kSwitchRatio * threads_m - 1) / (kSwitchRatio * threads_m);
    if (threads_m * threads_n > threads) threads_n = threads / threads_m;
  }
  return threads_m * threads_n > 1;
}

namespace {

// One block [k0, k1) of one output's sum as the blocked kernels add it: one chain of fused
// multiply-adds from 0, or Haswell's two: even k steps and the last (k1 - k0) % 8 steps in
// one, odd k steps in the other (8 steps per turn of its loop), added at the end.
float block_sum(const SgemmCall& g, int64_t i, int64_t j, int64_t k0, int64_t k1, bool two_chains) {
  float even = 0.0f, odd = 0.0f;
  const int64_t paired_end = two_chains ? k0 + (k1 - k0) / 8 * 8 : k0;
  for (int64_t k = k0; k < paired_end; k += 2) {
    even = fma32(a_at(g, i, k), g.B.at(k, j), even);
    odd = fma32(a_at(g, i, k + 1), g.B.at(k + 1, j), odd);
  }
  for (int64_t k = paired_end; k < k1; ++k) even = fma32(a_at(g, i, k), g.B.at(k, j), even);
  return two_chains ? odd + even : even;
}

}  // namespace

void sgemm_reference(const SgemmCall& g) {
  const SgemmKernel kernel = sgemm_kernel(g.M, g.N, g.K, g.B.transposed, g.a_transposed);
  const int64_t first_dot = first_dot_like_column(g, kernel);
  const BlasOrder order = blas_order();
  const bool blocked = kernel == SgemmKernel::Blocked || kernel == SgemmKernel::HaswellBlocked;
  const ChainOrder blocks =
      blocked_chain_order(g.K, order.kernel, openblas_threaded(g.M, g.N, g.K, order.threads));
  std::vector<uint8_t> two;
  if (kernel == SgemmKernel::HaswellBlocked) two = haswell_two_chain_outputs(g.M, g.N, g.K, order.threads);
  for (int64_t i = 0; i < g.M; ++i) {
    for (int64_t j = 0; j < g.N; ++j) {
      const float bias = g.bias ? g.bias[j] : 0.0f;
      float c;
      if (blocked) {
        // C starts as 0 (beta = 0 clears it) or the bias; every block's sum is added.
        const bool pairs = !two.empty() && two[static_cast<size_t>(i * g.N + j)];
        c = g.bias ? bias : 0.0f;
        for (size_t b = 0; b + 1 < blocks.k_bounds.size(); ++b)
          c = block_sum(g, i, j, blocks.k_bounds[b], blocks.k_bounds[b + 1], pairs) + c;
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
