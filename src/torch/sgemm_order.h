// OpenBLAS's sgemm as PyTorch 1.13 calls it, as a definition: which kernel OpenBLAS 0.3.21
// runs for a product, and the order in which that kernel adds up each output. The fast
// kernels (kernels/gemm.h, kernels/sgemm.h) take their operands and orders from here and
// compute the same bits; sgemm_reference() below is the readable definition they are
// tested against.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace attn::kernels {

// Which of OpenBLAS 0.3.21's sgemm kernels the order is. Debian's OpenBLAS picks it from the
// CPU when it loads: Cooperlake with avx512_bf16 (Zen 4, Sapphire Rapids), SkylakeX with
// AVX-512 without it (Skylake-SP to Ice Lake), Haswell with AVX2 (and Zen 1-3, whose "Zen"
// kernels are Haswell's). OPENBLAS_CORETYPE=Haswell|Zen|SkylakeX overrides it, as OpenBLAS
// reads it; OpenBLAS does not accept "Cooperlake" there (its list stops before it), so that
// name, like the pre-FMA kernels attn-walk does not reproduce, leaves the CPU's choice.
enum class BlasKernel {
  Cooperlake,
  SkylakeX,
  Haswell
};
const char* blas_kernel_name(BlasKernel kernel);  // "cooperlake", "skylakex", "haswell"
// One of the three names, in any case; false for anything else.
bool parse_blas_kernel(const std::string& name, BlasKernel* kernel);

// The kernel and the thread count OpenBLAS would run with in this process: the CPU's kernel
// or OPENBLAS_CORETYPE's; OPENBLAS_NUM_THREADS, GOTO_NUM_THREADS or OMP_NUM_THREADS, else the
// CPUs this process may run on, at most that many (2 where there is no x86 OpenBLAS to
// follow, as in the page: the goldens' count). ATTN_WALK_BLAS_KERNEL (one of the names)
// and ATTN_WALK_BLAS_THREADS fix them regardless of the machine (the test suite's choice).
BlasKernel detected_blas_kernel();
int detected_blas_threads();

// The order every product follows, process-wide; the detected one until set. The thread
// count matters as OpenBLAS's drivers split the work: one thread and several block K
// differently, and Haswell's tiles (some outputs summed in two chains) follow the split.
struct BlasOrder {
  BlasKernel kernel = BlasKernel::Cooperlake;
  int threads = 2;
};
BlasOrder blas_order();
void set_blas_order(BlasOrder order);

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

// Which kernel OpenBLAS 0.3.21 runs for the call under the order in use (see sgemm_order.cpp).
// HaswellBlocked: Haswell's blocked kernel, which has no small-matrix kernels and sums some
// outputs in two chains (even and odd k), depending on where the driver's tiles put them; the
// fast kernels recompute those outputs in two chains (kernels/gemm.h).
enum class SgemmKernel {
  SmallNN,
  SmallTN,
  SmallNT,
  Blocked,
  HaswellBlocked
};
SgemmKernel sgemm_kernel(int64_t M, int64_t N, int64_t K, bool b_transposed, bool a_transposed = false);
// The blocked kernel's K-blocks and their order (OpenBLAS's level-3 driver) under the order in
// use, for a product large enough for the threaded driver when there is more than one thread
// (every blocked product of the fast kernels: sgemm_reference decides it by the product's size).
ChainOrder blocked_chain_order(int64_t K);
// The same for a driver said explicitly: threaded (level3_thread.c) or not (level3.c).
ChainOrder blocked_chain_order(int64_t K, BlasKernel kernel, bool threaded);
// Haswell's tiles: which outputs C(i, j) of an (M, N) product its kernel sums in two chains
// (1 at i * N + j), as OpenBLAS's driver with `threads` threads cuts the product into calls.
std::vector<uint8_t> haswell_two_chain_outputs(int64_t M, int64_t N, int64_t K, int threads);
// The same outputs as rectangles of C, rows [i0, i1) x columns [j0, j1), in the order the driver
// meets them (they may overlap): what the fast kernels recompute in two chains.
struct OutputRect {
  int64_t i0, i1, j0, j1;
};
std::vector<OutputRect> haswell_two_chain_rects(int64_t M, int64_t N, int64_t K, int threads);
// Whether OpenBLAS runs an (M, N) x K product on its threaded driver with `threads` threads
// (level3_thread.c; the one-thread driver level3.c otherwise), which cuts K-blocks differently.
bool openblas_threaded(int64_t M, int64_t N, int64_t K, int threads);

// The small kernels' "dot-like" outputs: the columns [first, N) they compute that way
// (first == N: none; every column for SmallTN, none for SmallNT or Blocked), and one such output
// C(i, j) without the bias: 16 lanes of fused multiply-adds, then the lanes added up.
int64_t first_dot_like_column(const SgemmCall& g, SgemmKernel kernel);
float dot_like(const SgemmCall& g, int64_t i, int64_t j);

// The readable definition, one output at a time. kernels::sgemm (kernels/sgemm.h) computes
// the same bits fast.
void sgemm_reference(const SgemmCall& call);

}  // namespace attn::kernels
