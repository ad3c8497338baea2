// Internal: the interface between gemm.cpp (tasks, threads, the reference) and the
// per-ISA tile kernels (gemm_avx512.cpp, gemm_avx2.cpp, gemm_neon.cpp, gemm_simd128.cpp).
#pragma once

#include <cstdint>

#include "torch/sgemm_order.h"  // ConstMat

namespace attn::kernels::detail {

// One rectangle of C computed by one thread, every K-block of it in order.
struct Region {
  int64_t m = 0, n = 0;             // rows and columns of this rectangle
  int64_t j0 = 0;                   // its first column (a multiple of the kernel's NR)
  ConstMat A;                       // A at the rectangle's first row
  const float* packed_b = nullptr;  // all of B, packed by pack_b_<isa>
  int64_t n_padded = 0;             // N rounded up to NR
  float* C = nullptr;               // C at the rectangle's corner
  int64_t ldc = 0;
  const int64_t* k_bounds = nullptr;  // the ChainOrder's blocks
  int n_bounds = 0;
  bool add_to_c = false;
  const float* c_init = nullptr;       // with add_to_c: C's start values for the rectangle's
                                       // columns, the same for every row, instead of C's own
  const int64_t* row_k_end = nullptr;  // per row of the rectangle, or null
  float* scratch_a = nullptr;          // room for max_block_k * kScratchRowsA floats
  bool resume = false;                 // one K-block: the chains start from C's values, C = acc
  // Haswell's two-chain outputs (optional; x86 kernels): the row tiles to take, tile t rows
  // [tile_starts[t], tile_starts[t + 1]) (at most MR, their edges on the two-chain rectangles'),
  // and tile_two[t] bit g set where the tile's outputs in columns [8g, 8g + 8) of the region
  // are all two-chain ones: the tiles leave those vectors to fix_two_chains.
  const int64_t* tile_starts = nullptr;
  int64_t n_tiles = 0;
  const uint64_t* tile_two = nullptr;
  int64_t* skipped = nullptr;  // with a plan: += the vectors of tiles left to fix_two_chains
};

constexpr int64_t kScratchRowsA = 16;  // at least any kernel's MR
constexpr int64_t kTileCols = 256;     // the kernels' NC, a multiple of every NR

// Columns of B per panel (NR) and rows per register tile (MR) for each kernel.
constexpr int64_t kPanelAvx512 = 32, kPanelAvx2 = 16;
constexpr int kTileRowsAvx512 = 8, kTileRowsAvx2 = 6;
// aarch64's NEON (gemm_neon.cpp): 6 x 16, 24 of the 32 registers accumulating.
constexpr int64_t kPanelNeon = 16;
constexpr int kTileRowsNeon = 6;
// The page's kernel (gemm_simd128.cpp): each 4-float vector is two f64x2 registers, so the
// tile is small. It is bound by its arithmetic (about 5 instructions per multiply-add): 4 x 4,
// 8 x 2, 4 x 6 and 8 x 3 ran within 15% of each other in node, 8 x 3 the fastest.
constexpr int64_t kPanelSimd128 = 8;
constexpr int kTileRowsSimd128 = 3;

// Packs columns [j_begin, j_end) of B (K, N), rows below k_limit, for every K-block;
// j_begin a multiple of NR.
void pack_b_avx512(const ConstMat& B, int64_t N, const int64_t* k_bounds, int n_bounds,
                   int64_t k_limit, int64_t j_begin, int64_t j_end, int64_t n_padded, float* out);
void pack_b_avx2(const ConstMat& B, int64_t N, const int64_t* k_bounds, int n_bounds,
                 int64_t k_limit, int64_t j_begin, int64_t j_end, int64_t n_padded, float* out);
void gemm_region_avx512(const Region& r);

// The scores of a block of attention rows with their scaling and row maxima (AVX-512 only):
// see gemm_scores_scaled_max in gemm.h.
constexpr int64_t kScoresMaxRows = 64;
struct ScoresRegion {
  int64_t m = 0, n = 0;      // rows (a multiple of MR, at most kScoresMaxRows), columns (of NR)
  const float* A = nullptr;  // row-major, in place
  int64_t lda = 0;
  const float* packed_b = nullptr;  // one block of 64 steps, packed by pack_b_avx512
  float* C = nullptr;
  int64_t ldc = 0;
  int scale_exp = 0;
  float* row_max = nullptr;       // m values out
  bool* row_unchecked = nullptr;  // m values out
};
void scores_scaled_max_avx512(const ScoresRegion& g);
void gemm_region_avx2(const Region& r);
// aarch64's (NEON); they abort on other architectures.
void pack_b_neon(const ConstMat& B, int64_t N, const int64_t* k_bounds, int n_bounds, int64_t k_limit,
                 int64_t j_begin, int64_t j_end, int64_t n_padded, float* out);
void gemm_region_neon(const Region& r);
// Haswell's two chains (kernels/gemm.h) for up to kTwoChainRows rows x 8 columns: steps
// [from, to) of a K-block, continued from even and odd (kTwoChainRows x 8 each, rows past
// `rows` ignored) and stored back. Step s is even (s - 0 even, or s >= paired) or odd.
constexpr int kTwoChainRows = 6;
struct TwoChainSteps {
  int rows = 0;                        // 1 .. kTwoChainRows
  int cols = 8;                        // columns that exist (the scalar path reads only those)
  const float* a[kTwoChainRows] = {};  // A(r, step from + t) = a[r][t * a_k]
  int64_t a_k = 1;
  const float* b = nullptr;  // B(step from + t, 8 columns) = b + t * b_k
  int64_t b_k = 8;
  int64_t from = 0, to = 0, paired = 0;
  float* even = nullptr;  // with `sums`: not used (the chains start from 0)
  float* odd = nullptr;
  // A whole K-block's chains from 0 instead: then sums = odd + even (the first block stored,
  // store_sum) or sums = (odd + even) + sums (kTwoChainRows x 8 each).
  float* sums = nullptr;
  bool store_sum = false;
};
void two_chain_steps_avx2(const TwoChainSteps& t);  // AVX2 + FMA (also on AVX-512 CPUs)
// dst (M, K) = src (K, M, rows ld apart) transposed, with each vector unit's register
// transposes (kernels/gemm.h: transpose_rows picks one).
void transpose_rows_avx2(const float* src, int64_t ld, int64_t K, int64_t M, float* dst);
void transpose_rows_avx512(const float* src, int64_t ld, int64_t K, int64_t M, float* dst);
void transpose_rows_neon(const float* src, int64_t ld, int64_t K, int64_t M, float* dst);
// AVX-512F: where A is read in place (a_k = 1); false, computing nothing, elsewhere.
bool two_chain_steps_avx512(const TwoChainSteps& t);
void two_chain_steps_neon(const TwoChainSteps& t);

// The page's (WebAssembly SIMD128); they abort in a native build.
void pack_b_simd128(const ConstMat& B, int64_t N, const int64_t* k_bounds, int n_bounds,
                    int64_t k_limit, int64_t j_begin, int64_t j_end, int64_t n_padded, float* out);
void gemm_region_simd128(const Region& r);
// "simd128_relaxed_madd" where the page's products run the fused tiles of gemm_relaxed_wasm.*,
// else "simd128_exact_emulation".
const char* simd128_kernel_name();
// Rows per tile of the page's products: the fused tiles' 4, else kTileRowsSimd128.
int simd128_tile_rows();

}  // namespace attn::kernels::detail
