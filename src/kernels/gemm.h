// Fast matrix products that keep OpenBLAS's order of operations, so the float32 bits
// do not change.
//
// For every output element C(i, j) the k-sum is cut into blocks [k_bounds[b], k_bounds[b+1]).
// Inside a block the products are chained with fused multiply-adds from 0 in k order:
//     acc = 0;  for k in block: acc = fma(A(i, k), B(k, j), acc)
// and the block's chain then goes to C: stored as is (the first block, when `add_to_c` is
// false) or added, C = acc + C. This is what OpenBLAS's sgemm kernels do per output; only
// the blocks differ between its small-matrix kernel (one block, stored) and its blocked
// kernel (blocks of at most GEMM_Q, each added to C, which starts as 0 or the bias).
//
// gemm_chains_reference() is that definition written out; gemm_chains() computes the same
// bits with register tiles (each vector lane runs one element's chain), on all threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "torch/sgemm_order.h"  // ConstMat, ChainOrder, single_chain

namespace attn::kernels {

// Storage on 64-byte boundaries: a packed panel's vector loads then never straddle two
// cache lines. (Intel cores split such a load into two; malloc's large blocks start 16
// bytes past a page, which made every 512-bit load of a head's packed keys a split one.)
// The block comes from the plain operator new, so the executable's allocator still maps
// large ones with huge pages; the pointer it returned is kept just before the data.
template <class T>
struct CacheLineAllocator {
  using value_type = T;
  static constexpr uintptr_t kAlign = 64;
  CacheLineAllocator() = default;
  template <class U>
  CacheLineAllocator(const CacheLineAllocator<U>&) {}
  T* allocate(size_t n) {
    void* raw = ::operator new(n * sizeof(T) + kAlign + sizeof(void*));
    const uintptr_t data = (reinterpret_cast<uintptr_t>(raw) + sizeof(void*) + kAlign - 1) & ~(kAlign - 1);
    reinterpret_cast<void**>(data)[-1] = raw;
    return reinterpret_cast<T*>(data);
  }
  void deallocate(T* p, size_t) { ::operator delete(reinterpret_cast<void**>(p)[-1]); }
  template <class U>
  bool operator==(const CacheLineAllocator<U>&) const { return true; }
  template <class U>
  bool operator!=(const CacheLineAllocator<U>&) const { return false; }
};

// Haswell's two chains. OpenBLAS's Haswell kernel sums some outputs of a blocked product in
// two chains per K-block (torch/sgemm_order.h: haswell_two_chain_rects): even steps of the
// block, and its last (k1 - k0) % 8 steps, in one; odd steps in the other; odd + even is the
// block's sum, added to C as above. Which outputs depends on the whole product's shape and
// OpenBLAS's thread count. The kernels compute the outputs in one chain, then compute those
// outputs in two (vector tiles of up to 6 rows x 8 columns, every K-block, from C's start
// values), and store them over the one-chain ones: the same bits as the definition. The x86
// one-chain tiles leave out the vectors whose outputs are all two-chain ones (their row tiles
// cut at the rectangles' edges), so most two-chain outputs are computed once, not twice.
struct TwoChainOutputs {
  std::vector<OutputRect> rects;  // sorted by first row
  int64_t max_height = 0;         // the tallest rectangle's rows
  // Which product they are (its shape, threads, and whether transposed; 0: not known), so that
  // the tiles' plans for them can be kept and used again (gemm.cpp: plan_two_chain_tiles).
  uint64_t product = 0;
  bool empty() const { return rects.empty(); }
};
// The two-chain outputs of an (M, N) x K product under the order in use: none unless its
// kernel is Haswell's blocked one.
TwoChainOutputs two_chain_outputs(int64_t M, int64_t N, int64_t K);
// The same for C (M, N) computed as OpenBLAS computes it when PyTorch asks for C.T, an (N, M)
// x K product (autograd's keys.T gradient), its outputs transposed back.
TwoChainOutputs two_chain_outputs_transposed(int64_t M, int64_t N, int64_t K);
// Which outputs of one call are two-chain ones: the call's row 0 is row `row0` of the product
// `outputs` describes; columns are the product's own (B's). outputs null: none. A call with
// two-chain outputs must give C's start values (c_init) when its order adds to C.
struct TwoChainView {
  const TwoChainOutputs* outputs = nullptr;
  int64_t row0 = 0;
  bool any() const { return outputs && !outputs->empty(); }
};
// Row bounds 0 = b_0 < ... < b_n = M every `step` rows, each moved to the nearest edge of a
// two-chain rectangle of `two` (its rows the call's) at most kTwoChainReach rows away, so that
// blocks of rows cut no run of two-chain rows (none: every `step` rows). A block then has at
// most step + 2 * kTwoChainReach rows.
constexpr int64_t kTwoChainReach = 3;  // less than half of either x86 kernel's tile
std::vector<int64_t> two_chain_row_bounds(int64_t M, int64_t step, const TwoChainView& two);
// How many 6 x 8 tiles of two-chain outputs the kernels have recomputed in this process (all
// threads): the tests' evidence that the fast path, not the definition, ran.
int64_t two_chain_tiles_run();
// How many register-tile vectors (MR rows x one vector of columns, one K-block) the x86
// one-chain tiles have left out because their outputs are all two-chain ones, which the
// recomputation stores (all threads): the tests' evidence that the skipping ran.
int64_t two_chain_vectors_skipped();
// The order of an (M, N) x K product as the blocked kernel sums it (the K-blocks of the driver
// OpenBLAS runs it on), for the kernel in use.
ChainOrder product_chain_order(int64_t M, int64_t N, int64_t K);

// C (M, N), row stride ldc, from A (M, K) and B (K, N) in the order above.
//
// row_k_end (optional, M entries) is a promise that A(i, k) == 0 (or -0) for every
// k >= row_k_end[i], as in a causal attention matrix (row_k_end[i] = i + 1). Those products
// are then skipped. That is exact when B is finite there: adding 0 * b = +-0 never moves a
// sum, and the one thing it can change, the sign of a zero result, is detected (-0) and
// recomputed in full. If B is not finite there, the hint is ignored.
//
// c_init (optional, N entries; only with order.add_to_c) gives C's start values, the same
// for every row (a bias, or zeros), so C need not be filled with them first: C's own
// contents are then never read.
void gemm_chains(int64_t M, int64_t N, int64_t K, ConstMat A, ConstMat B, float* C, int64_t ldc,
                 const ChainOrder& order, const int64_t* row_k_end = nullptr, const float* c_init = nullptr,
                 TwoChainView two = {});

// One chain per element of C (M, N), continued from C's value over K more steps and stored as
// it ends: C(i, j) = fma(A(i, K-1), B(K-1, j), ... fma(A(i, 0), B(0, j), C(i, j))). A chain cut
// into pieces, one call each, gives the same floats as the whole chain: what a product over a
// K-block computes (then adds to its C) when the block's rows of A arrive a few at a time.
void gemm_chains_resume(int64_t M, int64_t N, int64_t K, ConstMat A, ConstMat B, float* C, int64_t ldc);

// Haswell's two chains of one K-block continued over a piece of it, for the outputs `two` names
// in rows [0, M) (the product's own rows): `state` (two_chain_state_size floats, zeros at the
// block's start) holds their even and odd chains so far, in the kernels' own layout; the piece's
// K steps are steps [from, from + K) of a block of block_len steps (its parity and its paired
// steps, the first block_len / 8 * 8, count from the block's start). What gemm_chains_resume
// computes for one chain, in two; two_chain_state_sums then gives the block's sums, odd + even.
// Outputs in rows past M are not touched: a later call with more rows continues their chains.
size_t two_chain_state_size(const TwoChainOutputs& two, int64_t N);
void gemm_two_chains_resume(int64_t M, int64_t N, int64_t K, ConstMat A, ConstMat B, float* state, int64_t from,
                            int64_t block_len, const TwoChainOutputs& two);
// C(i, j) = odd + even of every output of `two` in rows [0, M), the others not touched.
void two_chain_state_sums(const TwoChainOutputs& two, const float* state, int64_t M, int64_t N, float* C,
                          int64_t ldc);

// dst (M, K), its rows K floats apart, = src (K, M), its rows ld apart, transposed: moves only,
// with the active vector unit's register transposes. What a product whose A is the transposed
// view of a row-major block reads in place, row by row, instead of packing it tile by tile.
void transpose_rows(const float* src, int64_t ld, int64_t K, int64_t M, float* dst);

// The definition: scalar loops, one element at a time.
void gemm_chains_reference(int64_t M, int64_t N, int64_t K, ConstMat A, ConstMat B, float* C,
                           int64_t ldc, const ChainOrder& order);

// For each row of the (M, K) matrix A: one past its last nonzero entry (0 for an all-zero row).
std::vector<int64_t> trailing_zero_bounds(int64_t M, int64_t K, ConstMat A);

// B laid out for the kernels, to multiply many A's by the same B without re-packing it (the
// keys and values of one attention head, used by every block of query rows).
struct PackedB {
  int64_t K = 0, N = 0;
  ChainOrder order;
  int isa = 0;           // the kernel it was packed for (kernels::Isa)
  int64_t n_padded = 0;  // N rounded up to the kernel's panel width
  std::vector<float, CacheLineAllocator<float>> data;
  int64_t last_nonfinite_row = 0;  // the last row of B holding an inf or NaN (-1: none)
  ConstMat source;                 // B itself, read again for the rare exact fix-up
};
// Packs B (K, N) for `order`; B must outlive the uses of `out`. Storage of `out` is reused.
// check_finite: find B's last non-finite row, which the zero-tail hint needs (without it,
// the hint of gemm_chains_packed is ignored).
void pack_b(int64_t K, int64_t N, ConstMat B, const ChainOrder& order, PackedB& out, bool check_finite = false);
// C (M, n) = A (M, K) @ the first n <= N columns of the packed B, as gemm_chains().
void gemm_chains_packed(int64_t M, int64_t n, ConstMat A, const PackedB& B, float* C, int64_t ldc,
                        const int64_t* row_k_end = nullptr, const float* c_init = nullptr, TwoChainView two = {});

// Several products in one parallel job (one wake-up of the threads instead of one each):
// gemm_tasks_packed cuts an (M, N) product into parts, 4 values each (i0, m, j0, n), in
// order, and returns how many neighbouring parts make a good run for one thread (the `run`
// of parallel_for_shares: whole rows where there are many, whose runs are computed as one
// part); gemm_chains_packed_part computes rows [i0, i0 + m) x columns [j0, j0 + n) of C (all
// of A, C and c_init given from their origin), on the calling thread, as gemm_chains_packed
// would. `two`: the product's Haswell two-chain outputs, whose runs of rows the parts then do
// not cut (the parts' rows move by up to 3).
int64_t gemm_tasks_packed(int64_t M, int64_t N, std::vector<int64_t>& tasks, TwoChainView two = {});
void gemm_chains_packed_part(int64_t i0, int64_t m, int64_t j0, int64_t n, ConstMat A, const PackedB& B, float* C,
                             int64_t ldc, const float* c_init = nullptr, TwoChainView two = {});

// The scores of a block of causal-attention rows fused with the first step of their
// softmax, where a kernel for it exists (AVX-512; B packed from 64 steps, one block of the
// blocked order; M a multiple of gemm_tile_rows() up to 64; n a multiple of the panel width,
// whole panels of real columns): C (M, n) = (A @ the first n columns of B, stored as
// gemm_chains_packed stores them from zero start values) * 2^scale_exp, the same floats as
// multiplying gemm_chains_packed's C by 2^scale_exp afterwards. Also, per row i,
// row_max[i] = the maximum of its n values, which is exact where row_unchecked[i] is false;
// true means the row's tile met a NaN or an infinity (or values so large that their sum
// overflowed), and the maximum must not be used. Returns false, computing nothing, where the
// fused kernel does not apply.
// With two-chain outputs among them, those are recomputed (then scaled) and their rows marked
// unchecked.
bool gemm_scores_scaled_max(int64_t M, int64_t n, ConstMat A, const PackedB& B, float* C, int64_t ldc, int scale_exp,
                            float* row_max, bool* row_unchecked, TwoChainView two = {});

// Rows of C per register tile (MR) of the active kernel: 8 with AVX-512, 6 with AVX2, 1 in
// the scalar definition; in the page 4 with the fused tiles, else 3.
int64_t gemm_tile_rows();

// The products' kernels, as `attn-walk bench` reports them: natively the instruction set
// ("avx512", "avx2", "scalar"); in the page "simd128_relaxed_madd" where the browser's
// relaxed multiply-add fuses (checked once), else "simd128_exact_emulation".
const char* gemm_kernel_name();

// n zeros (at least): a c_init for products whose C starts at 0.
const float* zero_row(int64_t n);

}  // namespace attn::kernels
