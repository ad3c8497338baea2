// The register-tiled chain kernel behind gemm_chains(), written once for any vector width.
// Included only by the per-ISA files (gemm_avx512.cpp, gemm_avx2.cpp), each compiled for its
// instruction set; `V` supplies the vector type and its operations.
//
// Tiling does not change any result: a tile of MR rows x NR columns keeps one accumulator
// lane per output element, and every lane runs exactly the chain of gemm_chains_reference
// (acc = fma(a_ik, b_kj, acc) for k in order). Only which elements run side by side changes.
//
// Nothing from the standard library is instantiated here: a template compiled with AVX-512
// enabled must not be shared with (and picked by the linker for) the portable code.
#pragma once

#include <cstdint>

#include "kernels/gemm.h"
#include "kernels/gemm_detail.h"

namespace attn::kernels::detail {

// Not clang-format: it would move each #pragma GCC unroll to column 0, away from its loop.
// clang-format off
template <class V, int MR, int NV>
struct TileKernel {
  static constexpr int W = V::width;
  static constexpr int NR = NV * W;   // columns per tile
  static constexpr int64_t NC = kTileCols;  // columns of C per pass over a row tile

  static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
  static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

  // acc(r, c) = chain over kc steps of a(r, k) * Bp[k*NR + c]; then C = acc (+ C).
  // a(r, k) is Ap[r * a_row + k * a_k]: a packed sliver (a_row = 1, a_k = MR) or rows of A
  // read in place (a_row = lda, a_k = 1).
  // `start`, when not null, replaces C as what the chains are added to: the same NR values
  // for every row (C's start values, not yet written into C).
  // `resume`: the chains start from C's values instead of 0 and are stored as they end, C = acc
  // (one chain cut into calls; `add` and `start` are not used).
  static void micro(int64_t kc, const float* Ap, int64_t a_row, int64_t a_k, const float* Bp, float* C,
                    int64_t ldc, int rows, int cols, bool add, const float* start, bool resume = false) {
    // A tile of few rows (a task's or a plan's last rows) on x86: a tile of 4 or 2 rows computes
    // them, not MR rows with rows repeated (a 2-row tile of 6 computed 3 times its outputs).
    // Every lane's chain is the same; only how many rows run side by side changes.
    if constexpr (W >= 8 && MR > 4) {
      if (rows <= 4) {
        if (rows <= 2) TileKernel<V, 2, NV>::micro(kc, Ap, a_row, a_k, Bp, C, ldc, rows, cols, add, start, resume);
        else TileKernel<V, 4, NV>::micro(kc, Ap, a_row, a_k, Bp, C, ldc, rows, cols, add, start, resume);
        return;
      }
    }
    const bool full = rows == MR && cols == NR;
    // 64 steps: the scores of an attention head of 64 dimensions (GPT-2's), in a loop that
    // knows its length and leaves no remainder after its unrolled steps.
    if (resume) {
      if (full) micro_tile<true, 0, true>(kc, Ap, a_row, a_k, Bp, C, ldc, rows, cols, add, start);
      else micro_tile<false, 0, true>(kc, Ap, a_row, a_k, Bp, C, ldc, rows, cols, add, start);
    } else if (full && kc == kHeadDim64) {
      micro_tile<true, kHeadDim64>(kc, Ap, a_row, a_k, Bp, C, ldc, rows, cols, add, start);
    } else if (full) {
      micro_tile<true>(kc, Ap, a_row, a_k, Bp, C, ldc, rows, cols, add, start);
    } else {
      micro_tile<false>(kc, Ap, a_row, a_k, Bp, C, ldc, rows, cols, add, start);
    }
  }
  static constexpr int64_t kHeadDim64 = 64;

  // Every lane's chain: acc(r, c) = fma(a(r, k), Bp[k*NR + c], acc(r, c)) for k = 0 .. kc - 1.
  // Four steps per pass: the loop's own counting and branch once per 4 x MR x NV
  // multiply-adds. (Each lane's chain is the same; only the loop's bookkeeping changes.)
  __attribute__((always_inline)) static inline void chains(int64_t kc, const float* const* a_rows, int64_t a_k,
                                                           const float* Bp, typename V::vec (&acc)[MR][NV]) {
    #pragma GCC unroll 4
    for (int64_t k = 0; k < kc; ++k) {
      typename V::vec b[NV];
      #pragma GCC unroll 16
      for (int v = 0; v < NV; ++v) b[v] = V::load(Bp + k * NR + v * W);
      #pragma GCC unroll 16
      for (int r = 0; r < MR; ++r) {
        const typename V::vec a = V::broadcast(a_rows[r] + k * a_k);
        #pragma GCC unroll 16
        for (int v = 0; v < NV; ++v) acc[r][v] = V::fma(a, b[v], acc[r][v]);
      }
    }
  }

  // MR rows x NX vectors of columns taken from anywhere: vector v's B at bp[v] (a vector of a
  // packed panel, rows NR apart), its C at c[v], its start values at start[v] (with `add`;
  // null: C's own). Where a row tile leaves out the vectors whose outputs are all Haswell
  // two-chain ones (region's plan), the vectors left are paired up across panels, so that a
  // pair still runs MR x 2 accumulators, as many as a whole tile (an odd one runs alone).
  template <int NX>
  __attribute__((noinline)) static void micro_vectors(int64_t kc, const float* Ap, int64_t a_row, int64_t a_k, const float* const* bp,
                            float* const* c, int64_t ldc, bool add, const float* const* start) {
    typename V::vec acc[MR][NX];
    #pragma GCC unroll 16
    for (int r = 0; r < MR; ++r)
      #pragma GCC unroll 16
      for (int v = 0; v < NX; ++v) acc[r][v] = V::zero();
    const float* a_rows[MR];
    #pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) a_rows[r] = Ap + r * a_row;
    const float* b[NX];
    #pragma GCC unroll 16
    for (int v = 0; v < NX; ++v) b[v] = bp[v];
    #pragma GCC unroll 4
    for (int64_t k = 0; k < kc; ++k) {
      typename V::vec bv[NX];
      #pragma GCC unroll 16
      for (int v = 0; v < NX; ++v) bv[v] = V::load(b[v] + k * NR);
      #pragma GCC unroll 16
      for (int r = 0; r < MR; ++r) {
        const typename V::vec av = V::broadcast(a_rows[r] + k * a_k);
        #pragma GCC unroll 16
        for (int v = 0; v < NX; ++v) acc[r][v] = V::fma(av, bv[v], acc[r][v]);
      }
    }
    #pragma GCC unroll 16
    for (int v = 0; v < NX; ++v)
      #pragma GCC unroll 16
      for (int r = 0; r < MR; ++r) {
        float* out = c[v] + r * ldc;
        V::store(out, !add ? acc[r][v] : V::add(acc[r][v], V::load(start[v] ? start[v] : out)));
      }
  }

  // Which vectors of a panel at column `col` of the region are all two-chain outputs (bit v),
  // from the plan's 8-column groups of the tile (bit g: group g's outputs all two-chain).
  static unsigned two_chain_vectors(uint64_t groups, int64_t col, int cols) {
    unsigned skip = 0;
    #pragma GCC unroll 16
    for (int v = 0; v < NV; ++v) {
      const int64_t c0 = col + v * W, c1 = min64(col + (v + 1) * W, col + cols);
      if (c0 >= c1) {  // past the region's columns: nothing to compute
        skip |= 1u << v;
        continue;
      }
      bool all = true;
      for (int64_t g = c0 / 8; g <= (c1 - 1) / 8; ++g) all = all && g < 64 && ((groups >> g) & 1u);
      if (all) skip |= 1u << v;
    }
    return skip;
  }

  // The scores of causal attention and the first step of their softmax, in one pass over
  // MR whole rows of A (read in place, a_row = lda) and `panels` whole panels of a packed B
  // of kHeadDim64 steps: each tile's chains, C = acc + 0 as the blocked product stores them,
  // then times 2^scale_exp (exact: the division by a power-of-two sqrt(head_dim)), stored; and
  // per row, the running maximum of those values (row_max, MR vectors, read and written)
  // and their running sum in `sum` (one vector for the MR rows), which only serves to
  // notice a NaN or an infinity among them. The maximum and the sum take the adder pipes,
  // which the multiply-adds leave idle; the maximum then needs no pass of its own.
  // (Not inlined into its caller, whose arrays would otherwise take registers from the loop.)
  __attribute__((noinline)) static void scores_scaled_max(const float* A, int64_t lda, const float* Bp, int64_t panels,
                                                          float* C, int64_t ldc, float scale_exp,
                                                          typename V::vec* row_max, typename V::vec& sum) {
    const float* a_rows[MR];
    #pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) a_rows[r] = A + r * lda;
    for (int64_t p = 0; p < panels; ++p) {
      typename V::vec acc[MR][NV];
      #pragma GCC unroll 16
      for (int r = 0; r < MR; ++r)
        #pragma GCC unroll 16
        for (int v = 0; v < NV; ++v) acc[r][v] = V::zero();
      chains(kHeadDim64, a_rows, 1, Bp + p * kHeadDim64 * NR, acc);
      // Only the accumulators live through the chains: anything more, and GCC keeps the
      // keys' vectors on the stack. The epilogue's own values are made here.
      const typename V::vec scale = V::set1(scale_exp), zero = V::zero();
      typename V::vec total = zero;
      #pragma GCC unroll 16
      for (int r = 0; r < MR; ++r) {
        typename V::vec row = zero;
        #pragma GCC unroll 16
        for (int v = 0; v < NV; ++v) {
          const typename V::vec s = V::scale(V::add(acc[r][v], zero), scale);
          V::store(C + r * ldc + p * NR + v * W, s);
          row = v == 0 ? s : V::max(row, s);
          total = V::add(total, s);
        }
        row_max[r] = V::max(row_max[r], row);
      }
      sum = V::add(sum, total);
    }
  }

  // Full: a whole MR x NR tile. Its own instantiation, so that the edge tiles' code does not
  // make the compiler keep the accumulators on the stack. KC, when not 0, is kc known when
  // compiling.
  // Resume: the chains start from C and are stored as they end (micro's `resume`).
  template <bool Full, int64_t KC = 0, bool Resume = false>
  __attribute__((noinline)) static void micro_tile(int64_t kc_arg, const float* Ap, int64_t a_row, int64_t a_k, const float* Bp, float* C,
                         int64_t ldc, int rows, int cols, bool add, const float* start) {
    const int64_t kc = KC != 0 ? KC : kc_arg;
    // Every loop over rows and vectors is unrolled, so that acc is indexed by constants and
    // lives in registers (GCC otherwise keeps a copy of it on the stack).
    typename V::vec acc[MR][NV];
    #pragma GCC unroll 16
    for (int r = 0; r < MR; ++r)
      #pragma GCC unroll 16
      for (int v = 0; v < NV; ++v) {
        const int count = cols - v * W;
        acc[r][v] = !Resume                ? V::zero()
                    : Full                 ? V::load(C + r * ldc + v * W)
                    : r < rows && count > 0 ? V::load_first(C + r * ldc + v * W, count)
                                            : V::zero();
      }
    const float* a_rows[MR];
    #pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) a_rows[r] = Ap + (r < rows ? r : rows - 1) * a_row;  // edge: repeat a row
    chains(kc, a_rows, a_k, Bp, acc);
    if (Resume) {  // the chains so far, stored as they are
      #pragma GCC unroll 16
      for (int r = 0; r < MR; ++r)
        #pragma GCC unroll 16
        for (int v = 0; v < NV; ++v) {
          const int count = cols - v * W;
          if (Full) V::store(C + r * ldc + v * W, acc[r][v]);
          else if (r < rows && count > 0) V::store_first(C + r * ldc + v * W, acc[r][v], count);
        }
      return;
    }
    if (Full) {
      if (add && start) {
        #pragma GCC unroll 16
        for (int v = 0; v < NV; ++v) {
          const typename V::vec s = V::load(start + v * W);
          #pragma GCC unroll 16
          for (int r = 0; r < MR; ++r) V::store(C + r * ldc + v * W, V::add(acc[r][v], s));
        }
        return;
      }
      #pragma GCC unroll 16
      for (int r = 0; r < MR; ++r)
        #pragma GCC unroll 16
        for (int v = 0; v < NV; ++v) {
          float* c = C + r * ldc + v * W;
          V::store(c, add ? V::add(acc[r][v], V::load(c)) : acc[r][v]);
        }
      return;
    }
    // An edge tile: only the elements that exist, with masked loads and stores.
    #pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) {
      #pragma GCC unroll 16
      for (int v = 0; v < NV; ++v) {
        const int count = cols - v * W;
        if (r >= rows || count <= 0) continue;
        float* c = C + r * ldc + v * W;
        const typename V::vec base = !add ? V::zero() : start ? V::load_first(start + v * W, count) : V::load_first(c, count);
        V::store_first(c, add ? V::add(acc[r][v], base) : acc[r][v], count);
      }
    }
  }

  // dst (M, K), its rows K floats apart, = src (K, M) transposed, src's rows ld apart: W x W
  // blocks through register transposes, the edges one by one (moves only). W rows of src at a
  // time, read along: src's rows are often 4 KiB apart, and a sweep down all K of them per W
  // columns would evict its own lines from L1 (one cache set) before the next W used them.
  static void transpose_rows(const float* src, int64_t ld, int64_t K, int64_t M, float* dst) {
    const int64_t whole = M / W * W;
    int64_t k = 0;
    for (; k + W <= K; k += W)
      for (int64_t i = 0; i < whole; i += W) V::transpose(src + k * ld + i, ld, dst + i * K + k, K);
    for (; k < K; ++k)
      for (int64_t i = 0; i < whole; ++i) dst[i * K + k] = src[k * ld + i];
    for (int64_t i = whole; i < M; ++i)
      for (k = 0; k < K; ++k) dst[i * K + k] = src[k * ld + i];
  }

  // Columns [j_begin, j_end) of B (j_begin a multiple of NR), every K-block, into panels:
  // block b starts at out + k_bounds[b] * n_padded, and within it panel p (columns
  // p*NR ... p*NR + NR - 1) holds kc_b rows of NR values, zero-padded past column N.
  // Rows from k_limit on are not needed (the zero-tail hint) and not packed.
  static void pack_b(const ConstMat& B, int64_t N, const int64_t* k_bounds, int n_bounds, int64_t k_limit,
                     int64_t j_begin, int64_t j_end, int64_t n_padded, float* out) {
    for (int b = 0; b + 1 < n_bounds; ++b) {
      const int64_t k0 = k_bounds[b], kc_block = k_bounds[b + 1] - k0;
      const int64_t kc = min64(kc_block, max64(0, k_limit - k0));
      for (int64_t j = j_begin; j < j_end; j += NR) {
        float* panel = out + k0 * n_padded + (j / NR) * kc_block * NR;
        const int64_t cols = min64(NR, N - j);
        if (!B.transposed) {
          for (int64_t k = 0; k < kc; ++k) {
            const float* src = B.data + (k0 + k) * B.ld + j;
            float* dst = panel + k * NR;
            if (cols == NR) {
              for (int v = 0; v < NV; ++v) V::store(dst + v * W, V::load(src + v * W));
            } else {
              for (int64_t c = 0; c < NR; ++c) dst[c] = c < cols ? src[c] : 0.0f;
            }
          }
        } else if (cols == NR) {
          // Stored transposed: column c of B is a contiguous row of the storage. Whole
          // W x W blocks go through register transposes, the last k's one by one.
          // The next panel's NR rows are far apart (ld floats): ask for them now.
          if (j + 2 * NR <= N)
            for (int64_t c = 0; c < NR; ++c)
              for (int64_t kk = 0; kk < kc; kk += 16) __builtin_prefetch(B.data + (j + NR + c) * B.ld + k0 + kk);
          int64_t k = 0;
          for (; k + W <= kc; k += W)
            for (int v = 0; v < NV; ++v)
              V::transpose(B.data + (j + v * W) * B.ld + k0 + k, B.ld, panel + k * NR + v * W, NR);
          for (int64_t c = 0; c < NR; ++c) {
            const float* src = B.data + (j + c) * B.ld + k0;
            for (int64_t kk = k; kk < kc; ++kk) panel[kk * NR + c] = src[kk];
          }
        } else {
          for (int64_t c = 0; c < NR; ++c) {
            const float* src = B.data + (j + c) * B.ld + k0;
            if (c < cols) {
              for (int64_t k = 0; k < kc; ++k) panel[k * NR + c] = src[k];
            } else {
              for (int64_t k = 0; k < kc; ++k) panel[k * NR + c] = 0.0f;
            }
          }
        }
      }
    }
  }

  // A transposed A's rows [i0, i0 + rows) x columns [k0, k1), interleaved: out[k * Rows + r],
  // zero-padded. Rows: the tile's rows (MR, or the page's fused tiles' own).
  template <int Rows = MR>
  static void pack_a(const ConstMat& A, int64_t i0, int rows, int64_t k0, int64_t k1, float* out) {
    const int64_t kc = k1 - k0;
    if (rows == Rows) {  // a whole tile: Rows neighbouring floats per k, copied as they are
      for (int64_t k = 0; k < kc; ++k) {
        const float* src = A.data + (k0 + k) * A.ld + i0;
        #pragma GCC unroll 16
        for (int r = 0; r < Rows; ++r) out[k * Rows + r] = src[r];
      }
      return;
    }
    for (int64_t k = 0; k < kc; ++k)
      for (int r = 0; r < Rows; ++r) out[k * Rows + r] = r < rows ? A.data[(k0 + k) * A.ld + i0 + r] : 0.0f;
  }

  // Where the chains of rows [i0, i0 + rows) stop within the K-block [k0, k1): k1, or with the
  // zero-tail hint the last of their rows' last nonzeros.
  static int64_t tile_k_end(const Region& g, int64_t i0, int rows, int64_t k0, int64_t k1) {
    if (!g.row_k_end) return k1;
    int64_t k_end = k0;
    for (int r = 0; r < rows; ++r) k_end = max64(k_end, min64(k1, g.row_k_end[i0 + r]));
    return k_end;
  }

  // One region of C, every K-block in order, B already packed.
  static void region(const Region& g) {
    for (int b = 0; b + 1 < g.n_bounds; ++b) {
      const int64_t k0 = g.k_bounds[b], k1 = g.k_bounds[b + 1], kc_block = k1 - k0;
      const bool add = g.add_to_c || b > 0;
      const float* start = b == 0 && g.add_to_c ? g.c_init : nullptr;
      const float* block = g.packed_b + k0 * g.n_padded;
      for (int64_t j0 = 0; j0 < g.n; j0 += NC) {
        const int64_t n = min64(NC, g.n - j0);
        const int64_t tiles = g.tile_starts ? g.n_tiles : (g.m + MR - 1) / MR;
        for (int64_t t = 0; t < tiles; ++t) {
          const int64_t i0 = g.tile_starts ? g.tile_starts[t] : t * MR;
          const int rows = static_cast<int>(g.tile_starts ? g.tile_starts[t + 1] - i0 : min64(MR, g.m - i0));
          const uint64_t two_groups = g.tile_starts ? g.tile_two[t] : 0;
          // With the zero-tail hint, a row tile stops after its rows' last nonzero.
          const int64_t k_end = tile_k_end(g, i0, rows, k0, k1);
          // Row-major A is read in place; a transposed A is packed into a sliver first.
          const float* a = g.A.data + i0 * g.A.ld + k0;
          int64_t a_row = g.A.ld, a_k = 1;
          if (g.A.transposed) {
            pack_a(g.A, i0, rows, k0, k_end, g.scratch_a);
            a = g.scratch_a;
            a_row = 1;
            a_k = MR;
          }
          // Haswell's two-chain outputs (the plan): a whole tile's vectors whose outputs are all
          // two-chain ones are left out (fix_two_chains stores them), the rest computed in pairs.
          constexpr int kMaxVectors = static_cast<int>(NC / NR) * NV;
          const float* pair_b[kMaxVectors];
          float* pair_c[kMaxVectors];
          const float* pair_s[kMaxVectors];
          int paired = 0;
          for (int64_t p = 0; p * NR < n; ++p) {
            const int64_t col = g.j0 + j0 + p * NR;  // in B's columns; a multiple of NR
            const int cols = static_cast<int>(min64(NR, n - p * NR));
            const float* bp = block + (col / NR) * kc_block * NR;
            float* c = g.C + i0 * g.ldc + j0 + p * NR;
            const float* s = start ? start + j0 + p * NR : nullptr;
            const unsigned skip = two_groups ? two_chain_vectors(two_groups, j0 + p * NR, cols) : 0;
            if (skip == (1u << NV) - 1) {
              *g.skipped += NV;
              continue;
            }
            if (skip && rows == MR && cols == NR) {
              for (int v = 0; v < NV; ++v) {
                if ((skip >> v) & 1u) {
                  *g.skipped += 1;
                  continue;
                }
                pair_b[paired] = bp + v * W;
                pair_c[paired] = c + v * W;
                pair_s[paired++] = s ? s + v * W : nullptr;
              }
              continue;
            }
            micro(k_end - k0, a, a_row, a_k, bp, c, g.ldc, rows, cols, add, s, g.resume);
          }
          int q = 0;
          for (; q + 2 <= paired; q += 2)
            micro_vectors<2>(k_end - k0, a, a_row, a_k, pair_b + q, pair_c + q, g.ldc, add, pair_s + q);
          if (q < paired) micro_vectors<1>(k_end - k0, a, a_row, a_k, pair_b + q, pair_c + q, g.ldc, add, pair_s + q);
        }
      }
    }
  }
};
// clang-format on

// Haswell's two chains (gemm_detail.h: TwoChainSteps) for up to kTwoChainRows rows x 8
// columns, one even and one odd accumulator per output: 12 of AVX2's 16 registers, 24 of
// NEON's 32. Steps [from, to) of a K-block, in its order: the paired steps (below `paired`)
// alternate even, odd, ...; the rest go to the even chain.
// Not clang-format: it would move each #pragma GCC unroll to column 0, away from its loop.
// clang-format off
template <class V>
struct TwoChainKernel {
  static constexpr int W = V::width, G = 8 / W, R = kTwoChainRows;
  static_assert(G * W == 8, "8 columns");
  using vec = typename V::vec;

  __attribute__((always_inline)) static inline void step(vec (&acc)[R][G], const float* const* a, int64_t a_k,
                                                         const float* b, int64_t b_k, int64_t t) {
    vec bv[G];
    #pragma GCC unroll 8
    for (int g = 0; g < G; ++g) bv[g] = V::load(b + t * b_k + g * W);
    #pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const vec av = V::broadcast(a[r] + t * a_k);
      #pragma GCC unroll 8
      for (int g = 0; g < G; ++g) acc[r][g] = V::fma(av, bv[g], acc[r][g]);
    }
  }

  static void run(const TwoChainSteps& ts) {
    vec even[R][G], odd[R][G];
    const bool whole_block = ts.sums != nullptr;
    #pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
      #pragma GCC unroll 8
      for (int g = 0; g < G; ++g) {
        even[r][g] = whole_block ? V::zero() : V::load(ts.even + r * 8 + g * W);
        odd[r][g] = whole_block ? V::zero() : V::load(ts.odd + r * 8 + g * W);
      }
    const float* a[R];
    const int last = ts.rows > 1 && ts.rows <= R ? ts.rows - 1 : 0;
    #pragma GCC unroll 8
    for (int r = 0; r < R; ++r) a[r] = ts.a[r <= last ? r : last];  // edge: repeat a row
    const int64_t from = ts.from, lim = ts.to < ts.paired ? ts.to : ts.paired;
    int64_t s = from;
    if (s < lim && (s & 1)) step(odd, a, ts.a_k, ts.b, ts.b_k, s++ - from);
    for (; s + 8 <= lim; s += 8) {  // Haswell's turn of 8 steps
      step(even, a, ts.a_k, ts.b, ts.b_k, s - from);
      step(odd, a, ts.a_k, ts.b, ts.b_k, s + 1 - from);
      step(even, a, ts.a_k, ts.b, ts.b_k, s + 2 - from);
      step(odd, a, ts.a_k, ts.b, ts.b_k, s + 3 - from);
      step(even, a, ts.a_k, ts.b, ts.b_k, s + 4 - from);
      step(odd, a, ts.a_k, ts.b, ts.b_k, s + 5 - from);
      step(even, a, ts.a_k, ts.b, ts.b_k, s + 6 - from);
      step(odd, a, ts.a_k, ts.b, ts.b_k, s + 7 - from);
    }
    for (; s + 2 <= lim; s += 2) {
      step(even, a, ts.a_k, ts.b, ts.b_k, s - from);
      step(odd, a, ts.a_k, ts.b, ts.b_k, s + 1 - from);
    }
    if (s < lim) step(even, a, ts.a_k, ts.b, ts.b_k, s++ - from);
    for (; s < ts.to; ++s) step(even, a, ts.a_k, ts.b, ts.b_k, s - from);  // past the paired steps
    if (whole_block) {  // the block's sum, odd + even, stored or added to the sums so far
      #pragma GCC unroll 8
      for (int r = 0; r < R; ++r)
        #pragma GCC unroll 8
        for (int g = 0; g < G; ++g) {
          float* sum = ts.sums + r * 8 + g * W;
          const vec block = V::add(odd[r][g], even[r][g]);
          V::store(sum, ts.store_sum ? block : V::add(block, V::load(sum)));
        }
      return;
    }
    #pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
      #pragma GCC unroll 8
      for (int g = 0; g < G; ++g) {
        V::store(ts.even + r * 8 + g * W, even[r][g]);
        V::store(ts.odd + r * 8 + g * W, odd[r][g]);
      }
  }
};
// clang-format on

}  // namespace attn::kernels::detail
