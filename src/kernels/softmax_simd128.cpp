// The softmax pieces of the page (WebAssembly SIMD128; compiled with -msimd128 in the
// WebAssembly build only, see CMakeLists.txt): the same float operations as softmax_avx2.cpp,
// 4 lanes at a time, the reductions in its 8-lane layout (two vectors of 4), and SLEEF's expf
// with its multiply-adds rounded once by fma_simd128.h. So each row's bits are
// softmax_row_reference()'s, as natively.
#include "kernels/softmax_detail.h"

#if defined(__wasm_simd128__)

#include <wasm_simd128.h>

#include <initializer_list>

#include "kernels/fma_simd128.h"

namespace attn::kernels::detail {

namespace {

using simd128::Pair;

Pair splat2(float x) {
  const v128_t d = wasm_f64x2_splat(static_cast<double>(x));
  return {d, d};
}

// SLEEF's xexpf on 4 lanes, step for step as sleef_expf() (see exp8 in softmax_avx2.cpp):
//   q = rint(d * log2(e)); s = d - q*ln2 (ln2 in two parts, fused); a degree-6 polynomial
//   in s; u = 1 + (s*s*u + s); u * 2^(q>>1) * 2^(q - (q>>1)); 0 below -104, inf above 100.
// The multiply-adds run on the lanes as doubles (fma_simd128.h); every other step is the
// float operation itself.
v128_t exp4(v128_t d) {
  // Lanes that are replaced below (out of [-104, 100], or NaN) are computed on 0 instead, so
  // that no infinity or NaN reaches the multiply-adds' check for ties (which would take its
  // slow path for nothing).
  const v128_t kept =
      wasm_v128_and(wasm_f32x4_ge(d, wasm_f32x4_splat(-104.0f)), wasm_f32x4_le(d, wasm_f32x4_splat(100.0f)));
  const v128_t x = wasm_v128_and(d, kept);
  const v128_t q_f = wasm_f32x4_nearest(
      wasm_f32x4_mul(x, wasm_f32x4_splat(1.442695040888963407359924681001892137426645954152985934135449406931f)));
  const v128_t q = wasm_i32x4_trunc_sat_f32x4(q_f);  // q_f is a whole number: exact
  const Pair qd = simd128::widen(q_f);
  Pair s = simd128::fma(qd, splat2(-0.693145751953125f), simd128::widen(x));
  s = simd128::fma(qd, splat2(-1.428606765330187045e-06f), s);

  Pair u = splat2(0.000198527617612853646278381f);
  u = simd128::fma(u, s, splat2(0.00139304355252534151077271f));
  u = simd128::fma(u, s, splat2(0.00833336077630519866943359f));
  u = simd128::fma(u, s, splat2(0.0416664853692054748535156f));
  u = simd128::fma(u, s, splat2(0.166666671633720397949219f));
  u = simd128::fma(u, s, splat2(0.5f));
  const v128_t s_f = simd128::narrow(s);
  const Pair t = simd128::fma(simd128::widen(wasm_f32x4_mul(s_f, s_f)), u, s);
  v128_t e = wasm_f32x4_add(wasm_f32x4_splat(1.0f), simd128::narrow(t));

  // 2^q1 and 2^q2 as floats: (q + 127) << 23. Exact for |q| <= 126, which holds whenever
  // the result is not replaced below.
  const v128_t q1 = wasm_i32x4_shr(q, 1), q2 = wasm_i32x4_sub(q, q1);
  const v128_t bias = wasm_i32x4_splat(127);
  const v128_t p1 = wasm_i32x4_shl(wasm_i32x4_add(q1, bias), 23);
  const v128_t p2 = wasm_i32x4_shl(wasm_i32x4_add(q2, bias), 23);
  e = wasm_f32x4_mul(wasm_f32x4_mul(e, p1), p2);

  e = wasm_v128_bitselect(e, wasm_f32x4_splat(0.0f), kept);  // out of range or NaN: 0 for now
  e = wasm_v128_bitselect(wasm_f32x4_splat(__builtin_inff()), e, wasm_f32x4_gt(d, wasm_f32x4_splat(100.0f)));
  return wasm_v128_bitselect(d, e, wasm_f32x4_ne(d, d));  // NaN in, the same NaN out
}

// The first `count` (< 4) values of p, the rest `fill`.
v128_t load_first4(const float* p, int64_t count, float fill) {
  float t[4] = {fill, fill, fill, fill};
  for (int64_t i = 0; i < count; ++i) t[i] = p[i];
  return wasm_v128_load(t);
}
void store_first4(float* p, v128_t v, int64_t count) {
  float t[4];
  wasm_v128_store(t, v);
  for (int64_t i = 0; i < count; ++i) p[i] = t[i];
}

// a > b ? a : b, lane by lane (_mm256_max_ps without NaNs).
v128_t lane_max4(v128_t a, v128_t b) { return wasm_v128_bitselect(a, b, wasm_f32x4_gt(a, b)); }

// softmax_avx2.cpp's fold of 8 lanes (lanes[l] op lanes[l ^ shift], shift 4, 2, 1), the lanes
// being lo (0-3) and hi (4-7).
template <class Op>
float fold_lanes8(v128_t lo, v128_t hi, Op op) {
  float lanes[8];
  wasm_v128_store(lanes, lo);
  wasm_v128_store(lanes + 4, hi);
  for (int shift : {4, 2, 1}) {
    float folded[8];
    for (int l = 0; l < 8; ++l) folded[l] = op(lanes[l], lanes[l ^ shift]);
    for (int l = 0; l < 8; ++l) lanes[l] = folded[l];
  }
  return lanes[0];
}

}  // namespace

void exp_shifted_simd128(const float* x, float* out, int64_t n, float shift) {
  const v128_t sh = wasm_f32x4_splat(shift);
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) wasm_v128_store(out + i, exp4(wasm_f32x4_sub(wasm_v128_load(x + i), sh)));
  if (i < n) store_first4(out + i, exp4(wasm_f32x4_sub(load_first4(x + i, n - i, 0.0f), sh)), n - i);
}

float reduce_max_simd128(const float* x, int64_t valid) {
  // Lanes start at the identity, -inf; NaNs are tracked on the side and returned as the result.
  const v128_t lowest = wasm_f32x4_splat(-__builtin_inff());
  v128_t lo = lowest, hi = lowest, nan = wasm_i32x4_splat(0);
  for (int64_t i = 0; i < valid; i += 8) {
    const int64_t left = valid - i;
    const v128_t a = left >= 4 ? wasm_v128_load(x + i) : load_first4(x + i, left, -__builtin_inff());
    const v128_t b = left >= 8  ? wasm_v128_load(x + i + 4)
                     : left > 4 ? load_first4(x + i + 4, left - 4, -__builtin_inff())
                                : lowest;
    nan = wasm_v128_or(nan, wasm_v128_or(wasm_f32x4_ne(a, a), wasm_f32x4_ne(b, b)));
    lo = lane_max4(lo, a);
    hi = lane_max4(hi, b);
  }
  if (wasm_v128_any_true(nan)) return __builtin_nanf("");
  return fold_lanes8(lo, hi, [](float a, float b) { return a > b ? a : b; });
}

float reduce_sum_simd128(const float* x, int64_t valid) {
  // Lanes start at +0, and 0 + v = v for the (non-negative-zero) exp values summed here.
  v128_t lo = wasm_f32x4_splat(0.0f), hi = lo;
  for (int64_t i = 0; i < valid; i += 8) {
    const int64_t left = valid - i;
    lo = wasm_f32x4_add(lo, left >= 4 ? wasm_v128_load(x + i) : load_first4(x + i, left, 0.0f));
    if (left > 4)
      hi = wasm_f32x4_add(hi, left >= 8 ? wasm_v128_load(x + i + 4) : load_first4(x + i + 4, left - 4, 0.0f));
  }
  return fold_lanes8(lo, hi, [](float a, float b) { return a + b; });
}

void multiply_simd128(float* x, int64_t n, float s) {
  const v128_t v = wasm_f32x4_splat(s);
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) wasm_v128_store(x + i, wasm_f32x4_mul(wasm_v128_load(x + i), v));
  for (; i < n; ++i) x[i] *= s;
}

void divide_simd128(float* x, int64_t n, float s) {
  const v128_t v = wasm_f32x4_splat(s);
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) wasm_v128_store(x + i, wasm_f32x4_div(wasm_v128_load(x + i), v));
  for (; i < n; ++i) x[i] /= s;
}

}  // namespace attn::kernels::detail

#else

#include <cstdlib>

namespace attn::kernels::detail {
// Not built for this instruction set (a native build): never selected at run time.
void exp_shifted_simd128(const float*, float*, int64_t, float) { std::abort(); }
float reduce_max_simd128(const float*, int64_t) { std::abort(); }
float reduce_sum_simd128(const float*, int64_t) { std::abort(); }
void multiply_simd128(float*, int64_t, float) { std::abort(); }
void divide_simd128(float*, int64_t, float) { std::abort(); }
}  // namespace attn::kernels::detail

#endif
