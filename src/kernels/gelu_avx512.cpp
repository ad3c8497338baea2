// The book's GELU with AVX-512F, 16 lanes at a time (compiled with -mavx512f and friends; see
// CMakeLists.txt): gelu_lanes.h over __m512, the same bits as gelu_reference (gelu.h).
#include "kernels/gelu_detail.h"

#if defined(__AVX512F__) && defined(__FMA__)

// GCC 12 warns that the intrinsics' own unused pass-through operand is uninitialised.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <immintrin.h>

#include "kernels/gelu.h"
#include "kernels/gelu_lanes.h"

namespace attn::kernels::detail {

namespace {

struct GeluAvx512Ops {
  using F = __m512;
  using M = __mmask16;
  static F set1(float v) { return _mm512_set1_ps(v); }
  static F add(F a, F b) { return _mm512_add_ps(a, b); }
  static F sub(F a, F b) { return _mm512_sub_ps(a, b); }
  static F mul(F a, F b) { return _mm512_mul_ps(a, b); }
  static F div(F a, F b) { return _mm512_div_ps(a, b); }
  static F fmadd(F a, F b, F c) { return _mm512_fmadd_ps(a, b, c); }
  static __m512i sign_bit() { return _mm512_set1_epi32(static_cast<int>(0x80000000u)); }
  static F neg(F a) { return _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(a), sign_bit())); }
  static F abs(F a) { return _mm512_castsi512_ps(_mm512_andnot_si512(sign_bit(), _mm512_castps_si512(a))); }
  static F round_nearest(F a) { return _mm512_roundscale_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  static void pow2_halves(F q, F& p1, F& p2) {
    const __m512i qi = _mm512_cvtps_epi32(q);
    const __m512i q1 = _mm512_srai_epi32(qi, 1), q2 = _mm512_sub_epi32(qi, q1);
    const __m512i bias = _mm512_set1_epi32(0x7f);
    p1 = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(q1, bias), 23));
    p2 = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(q2, bias), 23));
  }
  static F copysign(F a, F b) {
    const __m512i sign = _mm512_and_si512(_mm512_castps_si512(b), sign_bit());
    return _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(abs(a)), sign));
  }
  static M greater(F a, F b) { return _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ); }
  static M is_nan(F a) { return _mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q); }
  static F select(M m, F if_true, F if_false) { return _mm512_mask_blend_ps(m, if_false, if_true); }
};

}  // namespace

void gelu_avx512(const float* x, float* out, int64_t n) {
  using Lanes = GeluLanes<GeluAvx512Ops>;
  const __m512 c = _mm512_set1_ps(gelu_sqrt_2_over_pi());
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(out + i, Lanes::gelu(_mm512_loadu_ps(x + i), c));
  if (i < n) {  // the tail: masked lanes only (the others are zeros, computed and dropped)
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1u);
    _mm512_mask_storeu_ps(out + i, m, Lanes::gelu(_mm512_maskz_loadu_ps(m, x + i), c));
  }
}

}  // namespace attn::kernels::detail

#else

#include <cstdlib>

namespace attn::kernels::detail {
// Not built for this instruction set (another architecture): never selected at run time.
void gelu_avx512(const float*, float*, int64_t) { std::abort(); }
}  // namespace attn::kernels::detail

#endif
