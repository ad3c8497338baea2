// The softmax pieces with aarch64's Advanced SIMD (NEON): the same float operations as
// softmax_avx2.cpp, 4 lanes at a time, the reductions in its 8-lane layout (two vectors of 4,
// lo for lanes 0-3 and hi for 4-7), and SLEEF's expf with vfmaq_f32, a fused multiply-add
// rounded once, as _mm256_fmadd_ps. So each row's bits are softmax_row_reference()'s, as on
// x86. NEON is part of every aarch64 core: no run-time check, and the pieces exist only there.
#include "kernels/softmax.h"
#include "kernels/softmax_detail.h"

#if defined(__aarch64__) && defined(__ARM_NEON)

#include <arm_neon.h>

#include <initializer_list>

namespace attn::kernels::detail {

namespace {

// SLEEF's xexpf on 4 lanes, step for step as sleef_expf() (see exp8 in softmax_avx2.cpp):
//   q = rint(d * log2(e)); s = d - q*ln2 (ln2 in two parts, fused); a degree-6 polynomial
//   in s; u = 1 + (s*s*u + s); u * 2^(q>>1) * 2^(q - (q>>1)); 0 below -104, inf above 100.
// vfmaq_f32(c, a, b) is c + a * b with one rounding: _mm256_fmadd_ps(a, b, c).
// NonPositive: every d is <= 0 or -inf, never NaN (a shifted softmax row), so the two
// replacements that only such lanes could take are left out (as exp8<true>).
template <bool NonPositive = false>
float32x4_t exp4_neon(float32x4_t d) {
  const float32x4_t q_f =
      vrndnq_f32(vmulq_f32(d, vdupq_n_f32(1.442695040888963407359924681001892137426645954152985934135449406931f)));
  const int32x4_t q = vcvtq_s32_f32(q_f);  // q_f is a whole number: exact (saturated where replaced below)
  float32x4_t s = vfmaq_f32(d, q_f, vdupq_n_f32(-0.693145751953125f));
  s = vfmaq_f32(s, q_f, vdupq_n_f32(-1.428606765330187045e-06f));

  float32x4_t u = vdupq_n_f32(0.000198527617612853646278381f);
  u = vfmaq_f32(vdupq_n_f32(0.00139304355252534151077271f), u, s);
  u = vfmaq_f32(vdupq_n_f32(0.00833336077630519866943359f), u, s);
  u = vfmaq_f32(vdupq_n_f32(0.0416664853692054748535156f), u, s);
  u = vfmaq_f32(vdupq_n_f32(0.166666671633720397949219f), u, s);
  u = vfmaq_f32(vdupq_n_f32(0.5f), u, s);
  u = vaddq_f32(vdupq_n_f32(1.0f), vfmaq_f32(s, vmulq_f32(s, s), u));

  // 2^q1 and 2^q2 as floats: (q + 127) << 23. Exact for |q| <= 126, which holds whenever
  // the result is not replaced below.
  const int32x4_t q1 = vshrq_n_s32(q, 1), q2 = vsubq_s32(q, q1);
  const int32x4_t bias = vdupq_n_s32(127);
  const float32x4_t p1 = vreinterpretq_f32_s32(vshlq_n_s32(vaddq_s32(q1, bias), 23));
  const float32x4_t p2 = vreinterpretq_f32_s32(vshlq_n_s32(vaddq_s32(q2, bias), 23));
  u = vmulq_f32(vmulq_f32(u, p1), p2);

  u = vbslq_f32(vcltq_f32(d, vdupq_n_f32(-104.0f)), vdupq_n_f32(0.0f), u);
  if (NonPositive) return u;
  u = vbslq_f32(vcgtq_f32(d, vdupq_n_f32(100.0f)), vdupq_n_f32(__builtin_inff()), u);
  return vbslq_f32(vceqq_f32(d, d), u, d);  // NaN in, the same NaN out
}

constexpr uint32_t kLaneIndex[4] = {0, 1, 2, 3};

// The first `count` (< 4) values of p, the rest `fill`.
float32x4_t load_first4_neon(const float* p, int64_t count, float fill) {
  float t[4] = {fill, fill, fill, fill};
  for (int64_t i = 0; i < count; ++i) t[i] = p[i];
  return vld1q_f32(t);
}
void store_first4_neon(float* p, float32x4_t v, int64_t count) {
  float t[4];
  vst1q_f32(t, v);
  for (int64_t i = 0; i < count; ++i) p[i] = t[i];
}

// a > b ? a : b, lane by lane (_mm256_max_ps without NaNs; vmaxq_f32 differs on zeros' signs).
float32x4_t lane_max4_neon(float32x4_t a, float32x4_t b) { return vbslq_f32(vcgtq_f32(a, b), a, b); }

// softmax_avx2.cpp's fold of 8 lanes (lanes[l] op lanes[l ^ shift], shift 4, 2, 1), the lanes
// being lo (0-3) and hi (4-7).
template <class Op>
float fold_lanes8_neon(float32x4_t lo, float32x4_t hi, Op op) {
  float lanes[8];
  vst1q_f32(lanes, lo);
  vst1q_f32(lanes + 4, hi);
  for (int shift : {4, 2, 1}) {
    float folded[8];
    for (int l = 0; l < 8; ++l) folded[l] = op(lanes[l], lanes[l ^ shift]);
    for (int l = 0; l < 8; ++l) lanes[l] = folded[l];
  }
  return lanes[0];
}

}  // namespace

void exp_shifted_neon(const float* x, float* out, int64_t n, float shift) {
  const float32x4_t sh = vdupq_n_f32(shift);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {  // two vectors a pass: two exps in flight
    const float32x4_t a = exp4_neon(vsubq_f32(vld1q_f32(x + i), sh));
    const float32x4_t b = exp4_neon(vsubq_f32(vld1q_f32(x + i + 4), sh));
    vst1q_f32(out + i, a);
    vst1q_f32(out + i + 4, b);
  }
  for (; i + 4 <= n; i += 4) vst1q_f32(out + i, exp4_neon(vsubq_f32(vld1q_f32(x + i), sh)));
  if (i < n) store_first4_neon(out + i, exp4_neon(vsubq_f32(load_first4_neon(x + i, n - i, 0.0f), sh)), n - i);
}

float reduce_max_neon(const float* x, int64_t valid) {
  // Lanes start at the identity, -inf; NaNs are tracked on the side and returned as the result.
  const float32x4_t lowest = vdupq_n_f32(-__builtin_inff());
  float32x4_t lo = lowest, hi = lowest;
  uint32x4_t ordered = vdupq_n_u32(0xffffffffu);
  for (int64_t i = 0; i < valid; i += 8) {
    const int64_t left = valid - i;
    const float32x4_t a = left >= 4 ? vld1q_f32(x + i) : load_first4_neon(x + i, left, -__builtin_inff());
    const float32x4_t b = left >= 8  ? vld1q_f32(x + i + 4)
                          : left > 4 ? load_first4_neon(x + i + 4, left - 4, -__builtin_inff())
                                     : lowest;
    ordered = vandq_u32(ordered, vandq_u32(vceqq_f32(a, a), vceqq_f32(b, b)));
    lo = lane_max4_neon(lo, a);
    hi = lane_max4_neon(hi, b);
  }
  if (vminvq_u32(ordered) == 0) return __builtin_nanf("");
  return fold_lanes8_neon(lo, hi, [](float a, float b) { return a > b ? a : b; });
}

float reduce_sum_neon(const float* x, int64_t valid) {
  // Lanes start at +0, and 0 + v = v for the (non-negative-zero) exp values summed here.
  float32x4_t lo = vdupq_n_f32(0.0f), hi = lo;
  for (int64_t i = 0; i < valid; i += 8) {
    const int64_t left = valid - i;
    lo = vaddq_f32(lo, left >= 4 ? vld1q_f32(x + i) : load_first4_neon(x + i, left, 0.0f));
    if (left > 4) hi = vaddq_f32(hi, left >= 8 ? vld1q_f32(x + i + 4) : load_first4_neon(x + i + 4, left - 4, 0.0f));
  }
  return fold_lanes8_neon(lo, hi, [](float a, float b) { return a + b; });
}

void multiply_neon(float* x, int64_t n, float s) {
  const float32x4_t v = vdupq_n_f32(s);
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) vst1q_f32(x + i, vmulq_f32(vld1q_f32(x + i), v));
  for (; i < n; ++i) x[i] *= s;
}

void divide_neon(float* x, int64_t n, float s) {
  const float32x4_t v = vdupq_n_f32(s);
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) vst1q_f32(x + i, vdivq_f32(vld1q_f32(x + i), v));
  for (; i < n; ++i) x[i] /= s;
}

float fold_sum_neon(const float lanes[8]) {
  return fold_lanes8_neon(vld1q_f32(lanes), vld1q_f32(lanes + 4), [](float a, float b) { return a + b; });
}

namespace {

// divide_max_neon's steps (divide_max8 in softmax_avx2.cpp): x[i] /= divisor (with a
// power-of-two divisor, x[i] * (1 / divisor), the same float), and the maximum of the results
// in four accumulators of 4 lanes (the maximum of a set is the same in any order, up to the
// sign of a zero maximum, which exp(x - max) does not see).
template <bool ByReciprocal>
float divide_max4(float* x, int64_t n, float divisor, bool& nan) {
  const float by = ByReciprocal ? 1.0f / divisor : divisor;
  const float32x4_t v = vdupq_n_f32(by);
  const auto divide = [&](float32x4_t a) { return ByReciprocal ? vmulq_f32(a, v) : vdivq_f32(a, v); };
  const float32x4_t lowest = vdupq_n_f32(-__builtin_inff());
  float32x4_t acc[4] = {lowest, lowest, lowest, lowest};
  uint32x4_t ordered = vdupq_n_u32(0xffffffffu);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    for (int a = 0; a < 4; ++a) {
      const float32x4_t y = divide(vld1q_f32(x + i + 4 * a));
      vst1q_f32(x + i + 4 * a, y);
      ordered = vandq_u32(ordered, vceqq_f32(y, y));
      acc[a] = lane_max4_neon(acc[a], y);
    }
  for (; i + 4 <= n; i += 4) {
    const float32x4_t y = divide(vld1q_f32(x + i));
    vst1q_f32(x + i, y);
    ordered = vandq_u32(ordered, vceqq_f32(y, y));
    acc[0] = lane_max4_neon(acc[0], y);
  }
  const float32x4_t all = lane_max4_neon(lane_max4_neon(acc[0], acc[1]), lane_max4_neon(acc[2], acc[3]));
  float max = fold_lanes8_neon(all, all, [](float a, float b) { return a > b ? a : b; });
  bool any_nan = vminvq_u32(ordered) == 0;
  for (; i < n; ++i) {  // as divide_neon's tail
    const float y = ByReciprocal ? x[i] * by : x[i] / by;
    x[i] = y;
    any_nan = any_nan || y != y;
    max = max > y ? max : y;
  }
  nan = any_nan;
  return max;
}

// R rows side by side (exp_sum_rows8 in softmax_avx2.cpp): each row's sum is one chain of
// dependent adds per lane in a fixed order, so R rows keep R chains (and R exps) in flight.
// Lane l of a row's 8-lane sum adds its elements e with e % 8 = l, lo holding lanes 0-3 and hi
// 4-7; the lanes past the row add +0 (the sums are never -0), as AVX2's masked lanes do.
template <int R>
void exp_sum_rows4(float* const* x, const int64_t* n, const float* shift, float* sums) {
  float32x4_t sh[R], lo[R], hi[R];
  int64_t common = n[0];
  for (int r = 0; r < R; ++r) {
    sh[r] = vdupq_n_f32(shift[r]);
    lo[r] = hi[r] = vdupq_n_f32(0.0f);
    common = n[r] < common ? n[r] : common;
  }
  int64_t i = 0;
  for (; i + 8 <= common; i += 8)
    for (int r = 0; r < R; ++r) {
      const float32x4_t a = exp4_neon<true>(vsubq_f32(vld1q_f32(x[r] + i), sh[r]));
      const float32x4_t b = exp4_neon<true>(vsubq_f32(vld1q_f32(x[r] + i + 4), sh[r]));
      vst1q_f32(x[r] + i, a);
      vst1q_f32(x[r] + i + 4, b);
      lo[r] = vaddq_f32(lo[r], a);
      hi[r] = vaddq_f32(hi[r], b);
    }
  for (int r = 0; r < R; ++r) {
    float* row = x[r];
    for (int64_t j = i; j < n[r]; j += 8) {
      const int64_t left = n[r] - j;
      // A partial vector's lanes past the row (d = -shift, of any sign) are zeroed after the exp.
      const auto exps = [&](float* p, int64_t count) {
        if (count >= 4) return exp4_neon<true>(vsubq_f32(vld1q_f32(p), sh[r]));
        const float32x4_t e = exp4_neon<true>(vsubq_f32(load_first4_neon(p, count, 0.0f), sh[r]));
        const uint32x4_t keep = vcltq_u32(vld1q_u32(kLaneIndex), vdupq_n_u32(static_cast<uint32_t>(count)));
        return vreinterpretq_f32_u32(vandq_u32(vreinterpretq_u32_f32(e), keep));
      };
      const float32x4_t a = exps(row + j, left);
      if (left >= 4) vst1q_f32(row + j, a);
      else store_first4_neon(row + j, a, left);
      lo[r] = vaddq_f32(lo[r], a);
      if (left > 4) {
        const float32x4_t b = exps(row + j + 4, left - 4);
        if (left >= 8) vst1q_f32(row + j + 4, b);
        else store_first4_neon(row + j + 4, b, left - 4);
        hi[r] = vaddq_f32(hi[r], b);
      }
    }
    sums[r] = fold_lanes8_neon(lo[r], hi[r], [](float a, float b) { return a + b; });
  }
}

}  // namespace

float divide_max_neon(float* x, int64_t n, float divisor, bool& nan) {
  int scale_exp = 0;
  return division_is_scaling(divisor, scale_exp) ? divide_max4<true>(x, n, divisor, nan)
                                                 : divide_max4<false>(x, n, divisor, nan);
}

void exp_shifted_sum_rows_neon(float* const* x, const int64_t* n, const float* shift, int count, float* sums) {
  switch (count) {
    case 1: return exp_sum_rows4<1>(x, n, shift, sums);
    case 2: return exp_sum_rows4<2>(x, n, shift, sums);
    case 3: return exp_sum_rows4<3>(x, n, shift, sums);
    default: return exp_sum_rows4<4>(x, n, shift, sums);
  }
}

}  // namespace attn::kernels::detail

#else

#include <cstdlib>

namespace attn::kernels::detail {
// Not built for this instruction set (x86 or the page): never selected at run time.
void exp_shifted_neon(const float*, float*, int64_t, float) { std::abort(); }
float reduce_max_neon(const float*, int64_t) { std::abort(); }
float reduce_sum_neon(const float*, int64_t) { std::abort(); }
void multiply_neon(float*, int64_t, float) { std::abort(); }
void divide_neon(float*, int64_t, float) { std::abort(); }
float fold_sum_neon(const float*) { std::abort(); }
float divide_max_neon(float*, int64_t, float, bool&) { std::abort(); }
void exp_shifted_sum_rows_neon(float* const*, const int64_t*, const float*, int, float*) { std::abort(); }
}  // namespace attn::kernels::detail

#endif
