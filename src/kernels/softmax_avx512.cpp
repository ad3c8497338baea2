// The elementwise softmax pieces with AVX-512 (compiled with -mavx512f; see CMakeLists.txt):
// the same float operations as softmax_avx2.cpp, 16 lanes at a time. (The reductions keep
// PyTorch's 8-lane layout and stay in softmax_avx2.cpp.)
#include "kernels/softmax.h"
#include "kernels/softmax_detail.h"

#if defined(__AVX512F__) && defined(__FMA__)

// GCC 12 warns that the intrinsics' own unused pass-through operand is uninitialised.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

namespace attn::kernels::detail {

namespace {

// SLEEF's xexpf on 16 lanes, step for step as sleef_expf() (see exp8 in softmax_avx2.cpp).
// NonPositive: every d is <= 0 or -inf, never NaN (a shifted softmax row), so the two
// replacements that only such lanes could take are left out.
template <bool NonPositive = false>
inline __m512 exp16(__m512 d) {
  const __m512 q_f = _mm512_roundscale_ps(
      _mm512_mul_ps(d, _mm512_set1_ps(1.442695040888963407359924681001892137426645954152985934135449406931f)),
      _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 s = _mm512_fmadd_ps(q_f, _mm512_set1_ps(-0.693145751953125f), d);
  s = _mm512_fmadd_ps(q_f, _mm512_set1_ps(-1.428606765330187045e-06f), s);

  __m512 u = _mm512_set1_ps(0.000198527617612853646278381f);
  u = _mm512_fmadd_ps(u, s, _mm512_set1_ps(0.00139304355252534151077271f));
  u = _mm512_fmadd_ps(u, s, _mm512_set1_ps(0.00833336077630519866943359f));
  u = _mm512_fmadd_ps(u, s, _mm512_set1_ps(0.0416664853692054748535156f));
  u = _mm512_fmadd_ps(u, s, _mm512_set1_ps(0.166666671633720397949219f));
  u = _mm512_fmadd_ps(u, s, _mm512_set1_ps(0.5f));
  u = _mm512_add_ps(_mm512_set1_ps(1.0f), _mm512_fmadd_ps(_mm512_mul_ps(s, s), u, s));

  // SLEEF multiplies by 2^(q>>1), then by 2^(q - (q>>1)). For every d not replaced below,
  // -150 <= q <= 145: the first product is exact (a normal float), so the only rounding is
  // the second one, of the exact u * 2^q. scalef computes u * 2^q with one rounding: the
  // same float.
  //
  // SLEEF then returns 0 where d < -104: a zero-masking scalef keeps only the lanes with
  // d >= -104 (NaN lanes become 0 too, and get their NaN back below).
  u = _mm512_maskz_scalef_ps(_mm512_cmp_ps_mask(d, _mm512_set1_ps(-104.0f), _CMP_GE_OQ), u, q_f);
  if (NonPositive) return u;
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

namespace {

template <bool ByReciprocal>
float divide_max(float* x, int64_t n, float divisor, bool& nan) {
  // The maximum of a set is the same in any order (up to the sign of a zero maximum, which
  // exp(x - max) does not see), so four accumulators of 16 lanes replace the 8-lane chain.
  const __m512 v = _mm512_set1_ps(ByReciprocal ? 1.0f / divisor : divisor);
  const __m512 lowest = _mm512_set1_ps(-__builtin_inff());
  const auto divide = [&](__m512 a) { return ByReciprocal ? _mm512_mul_ps(a, v) : _mm512_div_ps(a, v); };
  __m512 acc[4] = {lowest, lowest, lowest, lowest};
  __mmask16 unordered = 0;
  int64_t i = 0;
  for (; i + 64 <= n; i += 64)
    for (int a = 0; a < 4; ++a) {
      const __m512 y = divide(_mm512_loadu_ps(x + i + 16 * a));
      _mm512_storeu_ps(x + i + 16 * a, y);
      unordered |= _mm512_cmp_ps_mask(y, y, _CMP_UNORD_Q);
      acc[a] = _mm512_max_ps(acc[a], y);
    }
  for (; i < n; i += 16) {
    const __mmask16 m = i + 16 <= n ? static_cast<__mmask16>(0xffff) : first_lanes(n - i);
    const __m512 y = divide(_mm512_maskz_loadu_ps(m, x + i));
    _mm512_mask_storeu_ps(x + i, m, y);
    unordered |= _mm512_mask_cmp_ps_mask(m, y, y, _CMP_UNORD_Q);
    acc[0] = _mm512_mask_max_ps(acc[0], m, acc[0], y);
  }
  nan = unordered != 0;
  return _mm512_reduce_max_ps(_mm512_max_ps(_mm512_max_ps(acc[0], acc[1]), _mm512_max_ps(acc[2], acc[3])));
}

}  // namespace

float divide_max_avx512(float* x, int64_t n, float divisor, bool& nan) {
  // A power-of-two divisor by multiplying with its reciprocal, the same float for every x:
  // a multiply costs far less than a divide.
  int scale_exp = 0;
  return division_is_scaling(divisor, scale_exp) ? divide_max<true>(x, n, divisor, nan)
                                                 : divide_max<false>(x, n, divisor, nan);
}

namespace {

// One row's exps and sum from element i on (the steps of exp_shifted_sum_rows_avx512 below).
void exp_sum_from(float* x, int64_t i, int64_t n, __m512 sh, __m256& acc) {
  for (; i + 16 <= n; i += 16) {
    const __m512 e = exp16<true>(_mm512_sub_ps(_mm512_loadu_ps(x + i), sh));
    _mm512_storeu_ps(x + i, e);
    acc = _mm256_add_ps(acc, _mm512_castps512_ps256(e));
    acc = _mm256_add_ps(acc, _mm512_extractf32x8_ps(e, 1));
  }
  if (i < n) {
    // Lanes past the row add +0, which leaves every lane as it was (they are never -0).
    const __mmask16 m = first_lanes(n - i);
    const __m512 e = _mm512_maskz_mov_ps(m, exp16<true>(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, x + i), sh)));
    _mm512_mask_storeu_ps(x + i, m, e);
    acc = _mm256_add_ps(acc, _mm512_castps512_ps256(e));
    if (n - i > 8) acc = _mm256_add_ps(acc, _mm512_extractf32x8_ps(e, 1));
  }
}

// R rows side by side. Each row's sum is one chain of dependent adds (its order is fixed),
// so a single row waits on the adder's latency; R rows keep R chains in flight.
//
// A row's 8-lane sum takes the low half of each 16 exps, then the high half. Two rows' sums
// share one 16-lane register, [row a | row b], and each add takes both rows' halves at once,
// gathered by one shuffle: 2 shuffles and 2 adds for two rows, instead of 2 extracts and
// 4 adds. Every lane still adds the same values in the same order.
template <int R>
void exp_sum_rows(float* const* x, const int64_t* n, const float* shift, float* sums) {
  constexpr int P = R / 2;  // pairs; with odd R, the last row sums alone
  __m512 sh[R];
  __m512 pair_acc[P > 0 ? P : 1];
  __m256 acc[R];
  int64_t common = n[0];
  for (int r = 0; r < R; ++r) {
    sh[r] = _mm512_set1_ps(shift[r]);
    acc[r] = _mm256_setzero_ps();
    common = n[r] < common ? n[r] : common;
  }
  for (int p = 0; p < P; ++p) pair_acc[p] = _mm512_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= common; i += 16) {
    __m512 e[R];
    for (int r = 0; r < R; ++r) e[r] = exp16<true>(_mm512_sub_ps(_mm512_loadu_ps(x[r] + i), sh[r]));
    for (int r = 0; r < R; ++r) _mm512_storeu_ps(x[r] + i, e[r]);
    for (int p = 0; p < P; ++p) {
      const __m512 lows = _mm512_shuffle_f32x4(e[2 * p], e[2 * p + 1], 0x44);   // [a 0-7 | b 0-7]
      const __m512 highs = _mm512_shuffle_f32x4(e[2 * p], e[2 * p + 1], 0xEE);  // [a 8-15 | b 8-15]
      pair_acc[p] = _mm512_add_ps(_mm512_add_ps(pair_acc[p], lows), highs);
    }
    if (R % 2) {
      acc[R - 1] = _mm256_add_ps(acc[R - 1], _mm512_castps512_ps256(e[R - 1]));
      acc[R - 1] = _mm256_add_ps(acc[R - 1], _mm512_extractf32x8_ps(e[R - 1], 1));
    }
  }
  for (int p = 0; p < P; ++p) {
    acc[2 * p] = _mm512_castps512_ps256(pair_acc[p]);
    acc[2 * p + 1] = _mm512_extractf32x8_ps(pair_acc[p], 1);
  }
  for (int r = 0; r < R; ++r) {
    exp_sum_from(x[r], i, n[r], sh[r], acc[r]);
    float lanes[8];
    _mm256_storeu_ps(lanes, acc[r]);
    sums[r] = fold_sum_avx2(lanes);
  }
}

}  // namespace

void exp_shifted_sum_rows_avx512(float* const* x, const int64_t* n, const float* shift, int count, float* sums) {
  switch (count) {
    case 1: return exp_sum_rows<1>(x, n, shift, sums);
    case 2: return exp_sum_rows<2>(x, n, shift, sums);
    case 3: return exp_sum_rows<3>(x, n, shift, sums);
    default: return exp_sum_rows<4>(x, n, shift, sums);
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
float divide_max_avx512(float*, int64_t, float, bool&) { std::abort(); }
void exp_shifted_sum_rows_avx512(float* const*, const int64_t*, const float*, int, float*) { std::abort(); }
}  // namespace attn::kernels::detail

#endif
