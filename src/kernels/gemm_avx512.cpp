// The chain kernel with AVX-512: tiles of 8 rows x 32 columns (16 accumulators); and the
// attention scores' variant with their division and row maxima (scores_scaled_max).
// Compiled with -mavx512f (see CMakeLists.txt); only called when the CPU has AVX-512F.
#include "kernels/gemm_tile.h"

#if defined(__AVX512F__) && defined(__FMA__)
// GCC 12 warns that the intrinsics' own unused pass-through operand is uninitialised.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#else
#include <cstdlib>
#endif

namespace attn::kernels::detail {

#if defined(__AVX512F__) && defined(__FMA__)

namespace {

struct Avx512 {
  using vec = __m512;
  static constexpr int width = 16;
  static vec zero() { return _mm512_setzero_ps(); }
  static vec load(const float* p) { return _mm512_loadu_ps(p); }
  static void store(float* p, vec v) { _mm512_storeu_ps(p, v); }
  static vec broadcast(const float* p) { return _mm512_set1_ps(*p); }
  static vec set1(float x) { return _mm512_set1_ps(x); }
  static vec fma(vec a, vec b, vec c) { return _mm512_fmadd_ps(a, b, c); }  // a * b + c, one rounding
  static vec add(vec a, vec b) { return _mm512_add_ps(a, b); }
  static vec max(vec a, vec b) { return _mm512_max_ps(a, b); }
  static vec scale(vec a, vec exponent) { return _mm512_scalef_ps(a, exponent); }  // a * 2^exponent, one rounding
  // The first `count` (>= 1) lanes; a full vector from 16 on. Lanes past them are not touched.
  static __mmask16 first(int count) { return count >= 16 ? __mmask16(0xffff) : __mmask16((1u << count) - 1u); }
  static vec load_first(const float* p, int count) { return _mm512_maskz_loadu_ps(first(count), p); }
  static void store_first(float* p, vec v, int count) { _mm512_mask_storeu_ps(p, first(count), v); }

  // dst[r * dst_ld + c] = src[c * src_ld + r] for a 16 x 16 block (moves only, no arithmetic).
  static void transpose(const float* src, int64_t src_ld, float* dst, int64_t dst_ld) {
    __m512 s[16];
    for (int g = 0; g < 4; ++g) {  // within each 128-bit lane: 4 x 4 transposes
      const __m512 r0 = _mm512_loadu_ps(src + (4 * g + 0) * src_ld), r1 = _mm512_loadu_ps(src + (4 * g + 1) * src_ld);
      const __m512 r2 = _mm512_loadu_ps(src + (4 * g + 2) * src_ld), r3 = _mm512_loadu_ps(src + (4 * g + 3) * src_ld);
      const __m512 t0 = _mm512_unpacklo_ps(r0, r1), t1 = _mm512_unpackhi_ps(r0, r1);
      const __m512 t2 = _mm512_unpacklo_ps(r2, r3), t3 = _mm512_unpackhi_ps(r2, r3);
      s[4 * g + 0] = _mm512_shuffle_ps(t0, t2, 0x44);
      s[4 * g + 1] = _mm512_shuffle_ps(t0, t2, 0xEE);
      s[4 * g + 2] = _mm512_shuffle_ps(t1, t3, 0x44);
      s[4 * g + 3] = _mm512_shuffle_ps(t1, t3, 0xEE);
    }
    for (int c = 0; c < 4; ++c) {  // then the 4 x 4 grid of 128-bit lanes
      const __m512 p01 = _mm512_shuffle_f32x4(s[c], s[4 + c], 0x44), p23 = _mm512_shuffle_f32x4(s[c], s[4 + c], 0xEE);
      const __m512 q01 = _mm512_shuffle_f32x4(s[8 + c], s[12 + c], 0x44), q23 = _mm512_shuffle_f32x4(s[8 + c], s[12 + c], 0xEE);
      _mm512_storeu_ps(dst + (c + 0) * dst_ld, _mm512_shuffle_f32x4(p01, q01, 0x88));
      _mm512_storeu_ps(dst + (c + 4) * dst_ld, _mm512_shuffle_f32x4(p01, q01, 0xDD));
      _mm512_storeu_ps(dst + (c + 8) * dst_ld, _mm512_shuffle_f32x4(p23, q23, 0x88));
      _mm512_storeu_ps(dst + (c + 12) * dst_ld, _mm512_shuffle_f32x4(p23, q23, 0xDD));
    }
  }
};

}  // namespace

using Kernel = TileKernel<Avx512, kTileRowsAvx512, 2>;
static_assert(Kernel::NR == kPanelAvx512 && kTileCols % Kernel::NR == 0, "panel width");

void pack_b_avx512(const ConstMat& B, int64_t N, const int64_t* k_bounds, int n_bounds, int64_t k_limit,
                   int64_t j_begin, int64_t j_end, int64_t n_padded, float* out) {
  Kernel::pack_b(B, N, k_bounds, n_bounds, k_limit, j_begin, j_end, n_padded, out);
}

void gemm_region_avx512(const Region& r) { Kernel::region(r); }

void scores_scaled_max_avx512(const ScoresRegion& g) {
  constexpr int64_t MR = kTileRowsAvx512, NR = Kernel::NR;
  constexpr int64_t kStrip = 4 * NR;  // 128 columns: 32 KiB of keys, reused by every row tile from L1
  __m512 maxes[kScoresMaxRows], sums[kScoresMaxRows / MR];
  const int64_t tiles = g.m / MR;
  for (int64_t i = 0; i < g.m; ++i) maxes[i] = _mm512_set1_ps(-__builtin_inff());
  for (int64_t t = 0; t < tiles; ++t) sums[t] = _mm512_setzero_ps();
  for (int64_t j0 = 0; j0 < g.n; j0 += kStrip) {
    const int64_t panels = (g.n - j0 < kStrip ? g.n - j0 : kStrip) / NR;
    for (int64_t t = 0; t < tiles; ++t)
      Kernel::scores_scaled_max(g.A + t * MR * g.lda, g.lda, g.packed_b + (j0 / NR) * Kernel::kHeadDim64 * NR,
                                panels, g.C + t * MR * g.ldc + j0, g.ldc, static_cast<float>(g.scale_exp),
                                maxes + t * MR, sums[t]);
  }
  for (int64_t i = 0; i < g.m; ++i) g.row_max[i] = _mm512_reduce_max_ps(maxes[i]);
  for (int64_t t = 0; t < tiles; ++t) {
    // s - s is 0 for every finite s, NaN for an infinity or a NaN.
    const __m512 zero_if_finite = _mm512_sub_ps(sums[t], sums[t]);
    const bool finite = _mm512_cmp_ps_mask(zero_if_finite, _mm512_setzero_ps(), _CMP_EQ_OQ) == 0xffff;
    for (int64_t r = 0; r < MR; ++r) g.row_unchecked[t * MR + r] = !finite;
  }
}

namespace {

// Haswell's two chains (gemm_detail.h: TwoChainSteps) with A read in place (a_k = 1), in 512-bit
// vectors: one vector per row holds both chains of the 8 columns, lane 2c the even chain of
// column c and lane 2c + 1 its odd one. A pair of steps k, k + 1 is one FMA per row: A's two
// steps broadcast together (a_k, a_k+1, a_k, ...) against B's rows k and k + 1 interleaved
// (vpermt2ps). A lone step (the odd one a piece may start with, the steps past the paired
// ones) updates one chain's lanes under a mask. Every lane runs the chain of fused multiply-adds
// that TwoChainPairsAvx2 (gemm_avx2.cpp) runs, with half the instructions.
// Not clang-format: it would move each #pragma GCC unroll to column 0, away from its loop.
// clang-format off
template <int R>
struct TwoChainPairsAvx512 {
  static_assert(R <= kTwoChainRows, "rows of TwoChainSteps");

  // lanes 2c and 2c + 1: x[c] and y[c] (c = 0 .. 7)
  static __m512 interleave(__m256 x, __m256 y) {
    const __m512i idx = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    return _mm512_permutex2var_ps(_mm512_castps256_ps512(x), idx, _mm512_castps256_ps512(y));
  }

  __attribute__((always_inline)) static inline void pair(__m512 (&acc)[R], const float* const* a, int64_t t,
                                                         const float* b0, const float* b1) {
    const __m512 bz = interleave(_mm256_loadu_ps(b0), _mm256_loadu_ps(b1));
    #pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      double two;  // A(r, k) and A(r, k + 1), as 8 bytes
      __builtin_memcpy(&two, a[r] + t, sizeof two);
      acc[r] = _mm512_fmadd_ps(_mm512_castpd_ps(_mm512_set1_pd(two)), bz, acc[r]);
    }
  }

  // One step into the lanes of `lanes` (0x5555: the even chains, 0xAAAA: the odd ones).
  __attribute__((always_inline)) static inline void lone(__m512 (&acc)[R], const float* const* a, int64_t t,
                                                         const float* bk, __mmask16 lanes) {
    const __m256 row = _mm256_loadu_ps(bk);
    const __m512 bz = interleave(row, row);
    #pragma GCC unroll 8
    for (int r = 0; r < R; ++r) acc[r] = _mm512_mask3_fmadd_ps(_mm512_set1_ps(a[r][t]), bz, acc[r], lanes);
  }

  static void run(const TwoChainSteps& ts) {
    __m512 acc[R];
    const bool whole_block = ts.sums != nullptr;
    #pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
      acc[r] = whole_block ? _mm512_setzero_ps() : interleave(_mm256_loadu_ps(ts.even + r * 8), _mm256_loadu_ps(ts.odd + r * 8));
    const float* a[R];
    const int last = ts.rows > 1 && ts.rows <= R ? ts.rows - 1 : 0;
    #pragma GCC unroll 8
    for (int r = 0; r < R; ++r) a[r] = ts.a[r <= last ? r : last];  // edge: repeat a row
    const int64_t lim = ts.to < ts.paired ? ts.to : ts.paired, to = ts.to, b_k = ts.b_k;
    int64_t s = ts.from, t = 0;
    const float* b = ts.b;
    if (s < lim && (s & 1)) {
      lone(acc, a, t, b, 0xAAAA);
      ++s, ++t, b += b_k;
    }
    #pragma GCC unroll 2
    for (; s + 2 <= lim; s += 2, t += 2, b += 2 * b_k) pair(acc, a, t, b, b + b_k);
    for (; s < to; ++s, ++t, b += b_k) lone(acc, a, t, b, 0x5555);  // an even step, or past the paired ones
    // lanes 0 .. 7: the even chains, 8 .. 15: the odd ones
    const __m512i split = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
    #pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const __m512 chains = _mm512_permutexvar_ps(split, acc[r]);
      const __m256 even = _mm512_castps512_ps256(chains);
      const __m256 odd = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(chains), 1));
      if (whole_block) {  // the block's sum, odd + even, stored or added to the sums so far
        float* sum = ts.sums + r * 8;
        const __m256 block = _mm256_add_ps(odd, even);
        _mm256_storeu_ps(sum, ts.store_sum ? block : _mm256_add_ps(block, _mm256_loadu_ps(sum)));
      } else {
        _mm256_storeu_ps(ts.even + r * 8, even);
        _mm256_storeu_ps(ts.odd + r * 8, odd);
      }
    }
  }
};
// clang-format on

}  // namespace

void transpose_rows_avx512(const float* src, int64_t ld, int64_t K, int64_t M, float* dst) {
  Kernel::transpose_rows(src, ld, K, M, dst);
}

bool two_chain_steps_avx512(const TwoChainSteps& t) {
  if (t.a_k != 1) return false;
  if (t.rows <= 4) TwoChainPairsAvx512<4>::run(t);
  else TwoChainPairsAvx512<kTwoChainRows>::run(t);
  return true;
}

#else

// Not built for this instruction set (another architecture): never selected at run time.
bool two_chain_steps_avx512(const TwoChainSteps&) { std::abort(); }
void transpose_rows_avx512(const float*, int64_t, int64_t, int64_t, float*) { std::abort(); }
void pack_b_avx512(const ConstMat&, int64_t, const int64_t*, int, int64_t, int64_t, int64_t, int64_t, float*) { std::abort(); }
void gemm_region_avx512(const Region&) { std::abort(); }
void scores_scaled_max_avx512(const ScoresRegion&) { std::abort(); }

#endif

}  // namespace attn::kernels::detail
