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
void transpose_rows_avx2(const float* src, int64_t ld, int64_t K, int64_t M, float* dst) {
  Kernel::transpose_rows(src, ld, K, M, dst);
}

namespace {

// Haswell's two chains with A read in place (a_k = 1): each row's steps k and k + 1 are
// broadcast together (vbroadcastsd: a_k, a_k+1, a_k, a_k+1, ...) against rows k and k + 1 of B
// interleaved (unpacklo/hi: b(k, c), b(k+1, c), ...), so that one FMA advances both chains of
// four columns: lo holds (even, odd) of columns 0, 1, 4, 5, hi of 2, 3, 6, 7. Half the broadcasts
// of TwoChainKernel's step by step; every lane runs the same chain of fused multiply-adds.
// A lone step (the odd one a piece may start with, the steps past the paired ones) updates one
// chain of each pair: the other lanes are blended back unchanged.
// Not clang-format: it would move each #pragma GCC unroll to column 0, away from its loop.
// clang-format off
// R: rows per tile, kTwoChainRows or 4 (OpenBLAS's 8 x 4 tiles give 4-row bands, which 6
// rows would compute with 2 rows repeated).
template <int R>
struct TwoChainPairsAvx2 {
  static_assert(R <= kTwoChainRows, "rows of TwoChainSteps");

  __attribute__((always_inline)) static inline void pair(__m256 (&lo)[R], __m256 (&hi)[R], const float* const* a,
                                                         int64_t t, const float* b0, const float* b1) {
    const __m256 r0 = _mm256_loadu_ps(b0), r1 = _mm256_loadu_ps(b1);
    const __m256 blo = _mm256_unpacklo_ps(r0, r1), bhi = _mm256_unpackhi_ps(r0, r1);
    #pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      double two;  // A(r, k) and A(r, k + 1), as 8 bytes
      __builtin_memcpy(&two, a[r] + t, sizeof two);
      const __m256 ap = _mm256_castpd_ps(_mm256_set1_pd(two));
      lo[r] = _mm256_fmadd_ps(ap, blo, lo[r]);
      hi[r] = _mm256_fmadd_ps(ap, bhi, hi[r]);
    }
  }

  // One step into the even lanes (Keep = 0xAA keeps the odd ones) or the odd lanes (0x55).
  template <int Keep>
  __attribute__((always_inline)) static inline void lone(__m256 (&lo)[R], __m256 (&hi)[R], const float* const* a,
                                                         int64_t t, const float* bk) {
    const __m256 row = _mm256_loadu_ps(bk);
    const __m256 blo = _mm256_unpacklo_ps(row, row), bhi = _mm256_unpackhi_ps(row, row);
    #pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const __m256 av = _mm256_broadcast_ss(a[r] + t);
      lo[r] = _mm256_blend_ps(_mm256_fmadd_ps(av, blo, lo[r]), lo[r], Keep);
      hi[r] = _mm256_blend_ps(_mm256_fmadd_ps(av, bhi, hi[r]), hi[r], Keep);
    }
  }

  static void run(const TwoChainSteps& ts) {
    __m256 lo[R], hi[R];
    const bool whole_block = ts.sums != nullptr;
    #pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const __m256 e = whole_block ? _mm256_setzero_ps() : _mm256_loadu_ps(ts.even + r * 8);
      const __m256 o = whole_block ? _mm256_setzero_ps() : _mm256_loadu_ps(ts.odd + r * 8);
      lo[r] = _mm256_unpacklo_ps(e, o);
      hi[r] = _mm256_unpackhi_ps(e, o);
    }
    const float* a[R];
    const int last = ts.rows > 1 && ts.rows <= R ? ts.rows - 1 : 0;
    #pragma GCC unroll 8
    for (int r = 0; r < R; ++r) a[r] = ts.a[r <= last ? r : last];  // edge: repeat a row
    const int64_t lim = ts.to < ts.paired ? ts.to : ts.paired, to = ts.to, b_k = ts.b_k;
    int64_t s = ts.from, t = 0;
    const float* b = ts.b;
    if (s < lim && (s & 1)) {
      lone<0x55>(lo, hi, a, t, b);
      ++s, ++t, b += b_k;
    }
    // The paired steps two at a time, one pair a pass: unrolled (as a turn of Haswell's 8 steps
    // once was), GCC ran out of the 16 registers and kept an accumulator on the stack.
    #pragma GCC unroll 1
    for (; s + 2 <= lim; s += 2, t += 2, b += 2 * b_k) pair(lo, hi, a, t, b, b + b_k);
    for (; s < to; ++s, ++t, b += b_k) lone<0xAA>(lo, hi, a, t, b);  // an even step, or past the paired ones
    #pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const __m256 even = _mm256_shuffle_ps(lo[r], hi[r], _MM_SHUFFLE(2, 0, 2, 0));
      const __m256 odd = _mm256_shuffle_ps(lo[r], hi[r], _MM_SHUFFLE(3, 1, 3, 1));
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

void two_chain_steps_avx2(const TwoChainSteps& t) {
  if (t.a_k == 1 && t.rows <= 4) TwoChainPairsAvx2<4>::run(t);
  else if (t.a_k == 1) TwoChainPairsAvx2<kTwoChainRows>::run(t);
  else TwoChainKernel<Avx2>::run(t);
}

#else

// Not built for this instruction set (another architecture): never selected at run time.
void pack_b_avx2(const ConstMat&, int64_t, const int64_t*, int, int64_t, int64_t, int64_t, int64_t, float*) { std::abort(); }
void gemm_region_avx2(const Region&) { std::abort(); }
void transpose_rows_avx2(const float*, int64_t, int64_t, int64_t, float*) { std::abort(); }
void two_chain_steps_avx2(const TwoChainSteps&) { std::abort(); }

#endif

}  // namespace attn::kernels::detail
