// The book's GELU with AVX2 + FMA, 8 lanes at a time (compiled with -mavx2 -mfma; see
// CMakeLists.txt): gelu_lanes.h over __m256, the same bits as gelu_reference (gelu.h).
#include "kernels/gelu_detail.h"

#if defined(__AVX2__) && defined(__FMA__)

#include <immintrin.h>

#include "kernels/gelu.h"
#include "kernels/gelu_lanes.h"

namespace attn::kernels::detail {

namespace {

struct GeluAvx2Ops {
  using F = __m256;
  using M = __m256;  // all-ones lanes where true
  static F set1(float v) { return _mm256_set1_ps(v); }
  static F add(F a, F b) { return _mm256_add_ps(a, b); }
  static F sub(F a, F b) { return _mm256_sub_ps(a, b); }
  static F mul(F a, F b) { return _mm256_mul_ps(a, b); }
  static F div(F a, F b) { return _mm256_div_ps(a, b); }
  static F fmadd(F a, F b, F c) { return _mm256_fmadd_ps(a, b, c); }
  static F sign_bit() { return _mm256_set1_ps(-0.0f); }
  static F neg(F a) { return _mm256_xor_ps(a, sign_bit()); }
  static F abs(F a) { return _mm256_andnot_ps(sign_bit(), a); }
  static F round_nearest(F a) { return _mm256_round_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  static void pow2_halves(F q, F& p1, F& p2) {
    const __m256i qi = _mm256_cvtps_epi32(q);
    const __m256i q1 = _mm256_srai_epi32(qi, 1), q2 = _mm256_sub_epi32(qi, q1);
    const __m256i bias = _mm256_set1_epi32(0x7f);
    p1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(q1, bias), 23));
    p2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(q2, bias), 23));
  }
  static F copysign(F a, F b) { return _mm256_or_ps(abs(a), _mm256_and_ps(b, sign_bit())); }
  static M greater(F a, F b) { return _mm256_cmp_ps(a, b, _CMP_GT_OQ); }
  static M is_nan(F a) { return _mm256_cmp_ps(a, a, _CMP_UNORD_Q); }
  static F select(M m, F if_true, F if_false) { return _mm256_blendv_ps(if_false, if_true, m); }
};

}  // namespace

void gelu_avx2(const float* x, float* out, int64_t n) {
  using Lanes = GeluLanes<GeluAvx2Ops>;
  const __m256 c = _mm256_set1_ps(gelu_sqrt_2_over_pi());
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, Lanes::gelu(_mm256_loadu_ps(x + i), c));
  if (i < n) {  // the tail through a padded vector: the lanes past n are computed and dropped
    alignas(32) float lanes[8] = {};
    for (int64_t k = i; k < n; ++k) lanes[k - i] = x[k];
    _mm256_store_ps(lanes, Lanes::gelu(_mm256_load_ps(lanes), c));
    for (int64_t k = i; k < n; ++k) out[k] = lanes[k - i];
  }
}

}  // namespace attn::kernels::detail

#else

#include <cstdlib>

namespace attn::kernels::detail {
// Not built for this instruction set (another architecture): never selected at run time.
void gelu_avx2(const float*, float*, int64_t) { std::abort(); }
}  // namespace attn::kernels::detail

#endif
