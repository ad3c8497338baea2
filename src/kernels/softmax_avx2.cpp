// Softmax pieces with AVX2 + FMA (compiled with -mavx2 -mfma; see CMakeLists.txt).
// Each function performs, lane by lane, exactly the float operations of its scalar
// counterpart in torch_kernels.cpp.
#include "kernels/softmax.h"
#include "kernels/softmax_detail.h"

#if defined(__AVX2__) && defined(__FMA__)

#include <immintrin.h>

namespace attn::kernels::detail {

namespace {

// SLEEF's xexpf on 8 lanes, step for step as sleef_expf():
//   q = rint(d * log2(e)); s = d - q*ln2 (ln2 in two parts, fused); a degree-6 polynomial
//   in s; u = 1 + (s*s*u + s); u * 2^(q>>1) * 2^(q - (q>>1)); 0 below -104, inf above 100.
// NonPositive: every d is <= 0 or -inf, never NaN (a shifted softmax row), so the two
// replacements that only such lanes could take are left out (as exp16 in softmax_avx512.cpp).
template <bool NonPositive = false>
inline __m256 exp8(__m256 d) {
  const __m256 q_f = _mm256_round_ps(_mm256_mul_ps(d, _mm256_set1_ps(1.442695040888963407359924681001892137426645954152985934135449406931f)),
                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m256i q = _mm256_cvtps_epi32(q_f);
  __m256 s = _mm256_fmadd_ps(q_f, _mm256_set1_ps(-0.693145751953125f), d);
  s = _mm256_fmadd_ps(q_f, _mm256_set1_ps(-1.428606765330187045e-06f), s);

  __m256 u = _mm256_set1_ps(0.000198527617612853646278381f);
  u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(0.00139304355252534151077271f));
  u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(0.00833336077630519866943359f));
  u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(0.0416664853692054748535156f));
  u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(0.166666671633720397949219f));
  u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(0.5f));
  u = _mm256_add_ps(_mm256_set1_ps(1.0f), _mm256_fmadd_ps(_mm256_mul_ps(s, s), u, s));

  // 2^q1 and 2^q2 as floats: (q + 127) << 23. Exact for |q| <= 126, which holds whenever
  // the result is not replaced below.
  const __m256i q1 = _mm256_srai_epi32(q, 1), q2 = _mm256_sub_epi32(q, q1);
  const __m256i bias = _mm256_set1_epi32(127);
  const __m256 p1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(q1, bias), 23));
  const __m256 p2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(q2, bias), 23));
  u = _mm256_mul_ps(_mm256_mul_ps(u, p1), p2);

  u = _mm256_blendv_ps(u, _mm256_setzero_ps(), _mm256_cmp_ps(d, _mm256_set1_ps(-104.0f), _CMP_LT_OQ));
  if (NonPositive) return u;
  u = _mm256_blendv_ps(u, _mm256_set1_ps(__builtin_inff()), _mm256_cmp_ps(d, _mm256_set1_ps(100.0f), _CMP_GT_OQ));
  return _mm256_blendv_ps(u, d, _mm256_cmp_ps(d, d, _CMP_UNORD_Q));  // NaN in, the same NaN out
}

// The lanes of a partial vector that exist.
inline __m256i first_lanes(int64_t count) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(count)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// vec::maximum without NaNs: a > b ? a : b, per lane (what _mm256_max_ps computes).
inline float max_op(float a, float b) { return a > b ? a : b; }
inline float plus_op(float a, float b) { return a + b; }

template <class Op>
float fold(__m256 acc, Op op) {
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, acc);
  const int shifts[3] = {4, 2, 1};
  for (int shift : shifts) {
    float folded[8];
    for (int l = 0; l < 8; ++l) folded[l] = op(lanes[l], lanes[l ^ shift]);
    for (int l = 0; l < 8; ++l) lanes[l] = folded[l];
  }
  return lanes[0];
}

}  // namespace

void exp_shifted_avx2(const float* x, float* out, int64_t n, float shift) {
  const __m256 sh = _mm256_set1_ps(shift);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, exp8(_mm256_sub_ps(_mm256_loadu_ps(x + i), sh)));
  if (i < n) {
    const __m256i m = first_lanes(n - i);
    const __m256 v = _mm256_maskload_ps(x + i, m);
    _mm256_maskstore_ps(out + i, m, exp8(_mm256_sub_ps(v, sh)));
  }
}

float reduce_max_avx2(const float* x, int64_t valid) {
  // Lanes start at the identity, -inf: max(-inf, v) = v for every non-NaN v.
  // _mm256_max_ps(a, b) is a > b ? a : b lane by lane, as vec::maximum without NaNs; NaNs
  // are tracked on the side (vec::maximum propagates them) and returned as the result.
  __m256 acc = _mm256_set1_ps(-__builtin_inff());
  __m256 nan = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 8 <= valid; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    acc = _mm256_max_ps(acc, v);
  }
  if (i < valid) {
    const __m256i m = first_lanes(valid - i);
    const __m256 v = _mm256_blendv_ps(acc, _mm256_maskload_ps(x + i, m), _mm256_castsi256_ps(m));
    nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    acc = _mm256_max_ps(acc, v);
  }
  if (_mm256_movemask_ps(nan) != 0) return __builtin_nanf("");
  return fold(acc, max_op);
}

float reduce_sum_avx2(const float* x, int64_t valid) {
  // Lanes start at +0, and 0 + v = v for the (non-negative-zero) exp values summed here.
  __m256 acc = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 8 <= valid; i += 8) acc = _mm256_add_ps(acc, _mm256_loadu_ps(x + i));
  if (i < valid) acc = _mm256_add_ps(acc, _mm256_maskload_ps(x + i, first_lanes(valid - i)));
  return fold(acc, plus_op);
}

float fold_sum_avx2(const float lanes[8]) { return fold(_mm256_loadu_ps(lanes), plus_op); }

void multiply_avx2(float* x, int64_t n, float s) {
  const __m256 v = _mm256_set1_ps(s);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(x + i, _mm256_mul_ps(_mm256_loadu_ps(x + i), v));
  for (; i < n; ++i) x[i] *= s;
}

void divide_avx2(float* x, int64_t n, float s) {
  const __m256 v = _mm256_set1_ps(s);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(x + i, _mm256_div_ps(_mm256_loadu_ps(x + i), v));
  for (; i < n; ++i) x[i] /= s;
}

namespace {

// divide_max_avx2's steps: x[i] /= divisor (with a power-of-two divisor, x[i] * (1 / divisor),
// the same float), and the maximum of the results in four 8-lane accumulators (the maximum of
// a set is the same in any order, up to the sign of a zero maximum, which exp(x - max) does
// not see).
template <bool ByReciprocal>
float divide_max8(float* x, int64_t n, float divisor, bool& nan) {
  const float by = ByReciprocal ? 1.0f / divisor : divisor;
  const __m256 v = _mm256_set1_ps(by);
  const auto divide = [&](__m256 a) { return ByReciprocal ? _mm256_mul_ps(a, v) : _mm256_div_ps(a, v); };
  const __m256 lowest = _mm256_set1_ps(-__builtin_inff());
  __m256 acc[4] = {lowest, lowest, lowest, lowest};
  __m256 unordered = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 32 <= n; i += 32)
    for (int a = 0; a < 4; ++a) {
      const __m256 y = divide(_mm256_loadu_ps(x + i + 8 * a));
      _mm256_storeu_ps(x + i + 8 * a, y);
      unordered = _mm256_or_ps(unordered, _mm256_cmp_ps(y, y, _CMP_UNORD_Q));
      acc[a] = _mm256_max_ps(acc[a], y);
    }
  for (; i + 8 <= n; i += 8) {
    const __m256 y = divide(_mm256_loadu_ps(x + i));
    _mm256_storeu_ps(x + i, y);
    unordered = _mm256_or_ps(unordered, _mm256_cmp_ps(y, y, _CMP_UNORD_Q));
    acc[0] = _mm256_max_ps(acc[0], y);
  }
  float max = fold(_mm256_max_ps(_mm256_max_ps(acc[0], acc[1]), _mm256_max_ps(acc[2], acc[3])), max_op);
  bool any_nan = _mm256_movemask_ps(unordered) != 0;
  for (; i < n; ++i) {  // as divide_avx2's tail
    const float y = ByReciprocal ? x[i] * by : x[i] / by;
    x[i] = y;
    any_nan = any_nan || y != y;
    max = max_op(max, y);
  }
  nan = any_nan;
  return max;
}

// One row's exps and sum from element i on, as exp_shifted_avx2 and then reduce_sum_avx2:
// lane e % 8 adds element e; the lanes past the row add +0 (the sums are never -0).
void exp_sum_from8(float* x, int64_t i, int64_t n, __m256 sh, __m256& acc) {
  for (; i + 8 <= n; i += 8) {
    const __m256 e = exp8<true>(_mm256_sub_ps(_mm256_loadu_ps(x + i), sh));
    _mm256_storeu_ps(x + i, e);
    acc = _mm256_add_ps(acc, e);
  }
  if (i < n) {
    const __m256i m = first_lanes(n - i);
    // The lanes past the row (d = -shift, of any sign) are cleared below, whatever exp8 made.
    const __m256 e = exp8<true>(_mm256_sub_ps(_mm256_maskload_ps(x + i, m), sh));
    _mm256_maskstore_ps(x + i, m, e);
    acc = _mm256_add_ps(acc, _mm256_and_ps(e, _mm256_castsi256_ps(m)));
  }
}

// R rows side by side: each row's sum is one chain of dependent adds in a fixed order, so a
// single row waits on the adder's latency; R rows keep R chains (and R exps) in flight.
template <int R>
void exp_sum_rows8(float* const* x, const int64_t* n, const float* shift, float* sums) {
  __m256 sh[R], acc[R];
  int64_t common = n[0];
  for (int r = 0; r < R; ++r) {
    sh[r] = _mm256_set1_ps(shift[r]);
    acc[r] = _mm256_setzero_ps();
    common = n[r] < common ? n[r] : common;
  }
  int64_t i = 0;
  for (; i + 8 <= common; i += 8)
    for (int r = 0; r < R; ++r) {
      const __m256 e = exp8<true>(_mm256_sub_ps(_mm256_loadu_ps(x[r] + i), sh[r]));
      _mm256_storeu_ps(x[r] + i, e);
      acc[r] = _mm256_add_ps(acc[r], e);
    }
  for (int r = 0; r < R; ++r) {
    exp_sum_from8(x[r], i, n[r], sh[r], acc[r]);
    sums[r] = fold(acc[r], plus_op);
  }
}

}  // namespace

float divide_max_avx2(float* x, int64_t n, float divisor, bool& nan) {
  int scale_exp = 0;
  return division_is_scaling(divisor, scale_exp) ? divide_max8<true>(x, n, divisor, nan)
                                                 : divide_max8<false>(x, n, divisor, nan);
}

void exp_shifted_sum_rows_avx2(float* const* x, const int64_t* n, const float* shift, int count, float* sums) {
  switch (count) {
    case 1: return exp_sum_rows8<1>(x, n, shift, sums);
    case 2: return exp_sum_rows8<2>(x, n, shift, sums);
    case 3: return exp_sum_rows8<3>(x, n, shift, sums);
    default: return exp_sum_rows8<4>(x, n, shift, sums);
  }
}

}  // namespace attn::kernels::detail

#else

#include <cstdlib>

namespace attn::kernels::detail {
// Not built for this instruction set (another architecture): never selected at run time.
void exp_shifted_avx2(const float*, float*, int64_t, float) { std::abort(); }
float reduce_max_avx2(const float*, int64_t) { std::abort(); }
float reduce_sum_avx2(const float*, int64_t) { std::abort(); }
float fold_sum_avx2(const float*) { std::abort(); }
void multiply_avx2(float*, int64_t, float) { std::abort(); }
void divide_avx2(float*, int64_t, float) { std::abort(); }
float divide_max_avx2(float*, int64_t, float, bool&) { std::abort(); }
void exp_shifted_sum_rows_avx2(float* const*, const int64_t*, const float*, int, float*) { std::abort(); }
}  // namespace attn::kernels::detail

#endif
