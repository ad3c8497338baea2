// The chain kernel with AVX2 + FMA: tiles of 6 rows x 16 columns (12 accumulators).
// Compiled with -mavx2 -mfma (see CMakeLists.txt); only called when the CPU has both.
#include "kernels/gemm_tile.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#else
#include <cstdlib>
#endif

namespace attn::kernels::detail {

#if defined(__AVX2__) && defined(__FMA__)

namespace {

struct Avx2 {
  using vec = __m256;
  static constexpr int width = 8;
  static vec zero() { return _mm256_setzero_ps(); }
  static vec load(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, vec v) { _mm256_storeu_ps(p, v); }
  static vec broadcast(const float* p) { return _mm256_broadcast_ss(p); }
  static vec fma(vec a, vec b, vec c) { return _mm256_fmadd_ps(a, b, c); }  // a * b + c, one rounding
  static vec add(vec a, vec b) { return _mm256_add_ps(a, b); }
  // The first `count` (>= 1) lanes; a full vector from 8 on. Lanes past them are not touched.
  static __m256i first(int count) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(count), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  static vec load_first(const float* p, int count) { return _mm256_maskload_ps(p, first(count)); }
  static void store_first(float* p, vec v, int count) { _mm256_maskstore_ps(p, first(count), v); }

  // dst[r * dst_ld + c] = src[c * src_ld + r] for an 8 x 8 block (moves only, no arithmetic).
  static void transpose(const float* src, int64_t src_ld, float* dst, int64_t dst_ld) {
    __m256 r[8];
    for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(src + i * src_ld);
    const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
    const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
    const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
    const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
    const __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xEE);
    const __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xEE);
    const __m256 s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xEE);
    const __m256 s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xEE);
    _mm256_storeu_ps(dst + 0 * dst_ld, _mm256_permute2f128_ps(s0, s4, 0x20));
    _mm256_storeu_ps(dst + 1 * dst_ld, _mm256_permute2f128_ps(s1, s5, 0x20));
    _mm256_storeu_ps(dst + 2 * dst_ld, _mm256_permute2f128_ps(s2, s6, 0x20));
    _mm256_storeu_ps(dst + 3 * dst_ld, _mm256_permute2f128_ps(s3, s7, 0x20));
    _mm256_storeu_ps(dst + 4 * dst_ld, _mm256_permute2f128_ps(s0, s4, 0x31));
    _mm256_storeu_ps(dst + 5 * dst_ld, _mm256_permute2f128_ps(s1, s5, 0x31));
    _mm256_storeu_ps(dst + 6 * dst_ld, _mm256_permute2f128_ps(s2, s6, 0x31));
    _mm256_storeu_ps(dst + 7 * dst_ld, _mm256_permute2f128_ps(s3, s7, 0x31));
  }
};

}  // namespace

using Kernel = TileKernel<Avx2, kTileRowsAvx2, 2>;
static_assert(Kernel::NR == kPanelAvx2 && kTileCols % Kernel::NR == 0, "panel width");

void pack_b_avx2(const ConstMat& B, int64_t N, const int64_t* k_bounds, int n_bounds, int64_t k_limit,
                 int64_t j_begin, int64_t j_end, int64_t n_padded, float* out) {
  Kernel::pack_b(B, N, k_bounds, n_bounds, k_limit, j_begin, j_end, n_padded, out);
}

void gemm_region_avx2(const Region& r) { Kernel::region(r); }

void two_chain_steps_avx2(const TwoChainSteps& t) { TwoChainKernel<Avx2>::run(t); }

#else

// Not built for this instruction set (another architecture): never selected at run time.
void pack_b_avx2(const ConstMat&, int64_t, const int64_t*, int, int64_t, int64_t, int64_t, int64_t, float*) { std::abort(); }
void gemm_region_avx2(const Region&) { std::abort(); }
void two_chain_steps_avx2(const TwoChainSteps&) { std::abort(); }

#endif

}  // namespace attn::kernels::detail
