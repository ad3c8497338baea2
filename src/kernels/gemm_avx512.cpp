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

#else

// Not built for this instruction set (another architecture): never selected at run time.
void pack_b_avx512(const ConstMat&, int64_t, const int64_t*, int, int64_t, int64_t, int64_t, int64_t, float*) { std::abort(); }
void gemm_region_avx512(const Region&) { std::abort(); }
void scores_scaled_max_avx512(const ScoresRegion&) { std::abort(); }

#endif

}  // namespace attn::kernels::detail
