// The elementwise softmax pieces with AVX-512 (compiled with -mavx512f; see CMakeLists.txt):
// the same float operations as softmax_avx2.cpp, 16 lanes at a time. (The reductions keep
// PyTorch's 8-lane layout and stay in softmax_avx2.cpp.)
#include "kernels/softmax_detail.h"

#if defined(__AVX512F__) && defined(__FMA__)

// GCC 12 warns that the intrinsics' own unused pass-through operand is uninitialised.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

namespace attn::kernels::detail {

namespace {

// SLEEF's xexpf on 16 lanes, step for step as sleef_expf() (see exp8 in softmax_avx2.cpp).
inline __m512 exp16(__m512 d) {
  const __m512 q_f = _mm512_roundscale_ps(
      _mm512_mul_ps(d, _mm512_set1_ps(1.442695040888963407359924681001892137426645954152985934135449406931f)),
      _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m512i q = _mm512_cvtps_epi32(q_f);
  __m512 s = _mm512_fmadd_ps(q_f, _mm512_set1_ps(-0.693145751953125f), d);
  s = _mm512_fmadd_ps(q_f, _mm512_set1_ps(-1.428606765330187045e-06f), s);

  __m512 u = _mm512_set1_ps(0.000198527617612853646278381f);
  u = _mm512_fmadd_ps(u, s, _mm512_set1_ps(0.00139304355252534151077271f));
  u = _mm512_fmadd_ps(u, s, _mm512_set1_ps(0.00833336077630519866943359f));
  u = _mm512_fmadd_ps(u, s, _mm512_set1_ps(0.0416664853692054748535156f));
  u = _mm512_fmadd_ps(u, s, _mm512_set1_ps(0.166666671633720397949219f));
  u = _mm512_fmadd_ps(u, s, _mm512_set1_ps(0.5f));
  u = _mm512_add_ps(_mm512_set1_ps(1.0f), _mm512_fmadd_ps(_mm512_mul_ps(s, s), u, s));

  const __m512i q1 = _mm512_srai_epi32(q, 1), q2 = _mm512_sub_epi32(q, q1);
  const __m512i bias = _mm512_set1_epi32(127);
  const __m512 p1 = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(q1, bias), 23));
  const __m512 p2 = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(q2, bias), 23));
  u = _mm512_mul_ps(_mm512_mul_ps(u, p1), p2);

  u = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(d, _mm512_set1_ps(-104.0f), _CMP_LT_OQ), u, _mm512_setzero_ps());
  u = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(d, _mm512_set1_ps(100.0f), _CMP_GT_OQ), u,
                           _mm512_set1_ps(__builtin_inff()));
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(d, d, _CMP_UNORD_Q), u, d);  // NaN in, the same NaN out
}

inline __mmask16 first_lanes(int64_t count) { return static_cast<__mmask16>((1u << count) - 1u); }

}  // namespace

void exp_shifted_avx512(const float* x, float* out, int64_t n, float shift) {
  const __m512 sh = _mm512_set1_ps(shift);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(out + i, exp16(_mm512_sub_ps(_mm512_loadu_ps(x + i), sh)));
  if (i < n) {
    const __mmask16 m = first_lanes(n - i);
    _mm512_mask_storeu_ps(out + i, m, exp16(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, x + i), sh)));
  }
}

void multiply_avx512(float* x, int64_t n, float s) {
  const __m512 v = _mm512_set1_ps(s);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(x + i, _mm512_mul_ps(_mm512_loadu_ps(x + i), v));
  if (i < n) {
    const __mmask16 m = first_lanes(n - i);
    _mm512_mask_storeu_ps(x + i, m, _mm512_mul_ps(_mm512_maskz_loadu_ps(m, x + i), v));
  }
}

void divide_avx512(float* x, int64_t n, float s) {
  const __m512 v = _mm512_set1_ps(s);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(x + i, _mm512_div_ps(_mm512_loadu_ps(x + i), v));
  if (i < n) {
    const __mmask16 m = first_lanes(n - i);
    _mm512_mask_storeu_ps(x + i, m, _mm512_div_ps(_mm512_maskz_loadu_ps(m, x + i), v));
  }
}

}  // namespace attn::kernels::detail

#else

#include <cstdlib>

namespace attn::kernels::detail {
// Not built for this instruction set (another architecture): never selected at run time.
void exp_shifted_avx512(const float*, float*, int64_t, float) { std::abort(); }
void multiply_avx512(float*, int64_t, float) { std::abort(); }
void divide_avx512(float*, int64_t, float) { std::abort(); }
}  // namespace attn::kernels::detail

#endif
