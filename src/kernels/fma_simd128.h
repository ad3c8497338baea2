// Internal, WebAssembly SIMD128 only (files compiled with -msimd128): float32 multiply-adds
// rounded once, two lanes at a time, for the page, whose WebAssembly has no fused multiply-add
// that Debian's emscripten can emit. Each lane is fma32_bracketed (torch/fma32.h): the product
// of two floats is exact in double, the sum rounds once, and two nudged copies of the sum,
// rounded to float, tell whether that sum can be a tie between two floats. If not, the float
// is x * y + z rounded once, as the FMA instruction gives it; if so (about one lane in 2^27),
// the two lanes go through fma32_via_double. Used by the products' tiles (gemm_simd128.cpp) and
// the softmax's expf (softmax_simd128.cpp).
#pragma once

#include <wasm_simd128.h>

#include "torch/fma32.h"

namespace attn::kernels::detail::simd128 {

// Four floats as two f64x2 (lanes 0-1, 2-3), each float held exactly as a double; and back.
struct Pair {
  v128_t lo, hi;
};
inline v128_t narrow(Pair v) {
  return wasm_i32x4_shuffle(wasm_f32x4_demote_f64x2_zero(v.lo), wasm_f32x4_demote_f64x2_zero(v.hi), 0, 1, 4, 5);
}
inline Pair widen(v128_t f) {
  return {wasm_f64x2_promote_low_f32x4(f), wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(f, f, 2, 3, 2, 3))};
}

// The lanes whose nudged sums disagree: each exactly, one at a time.
__attribute__((noinline, cold)) inline v128_t fma2_near_tie(v128_t a, v128_t b, v128_t c) {
  float r[2];
  for (int i = 0; i < 2; ++i) {
    const double x = i == 0 ? wasm_f64x2_extract_lane(a, 0) : wasm_f64x2_extract_lane(a, 1);
    const double y = i == 0 ? wasm_f64x2_extract_lane(b, 0) : wasm_f64x2_extract_lane(b, 1);
    const double z = i == 0 ? wasm_f64x2_extract_lane(c, 0) : wasm_f64x2_extract_lane(c, 1);
    r[i] = fma32_via_double(static_cast<float>(x), static_cast<float>(y), static_cast<float>(z));
  }
  return wasm_f64x2_make(r[0], r[1]);
}

// a * b + c rounded once to float, on two lanes of floats held as doubles; the result too.
inline v128_t fma2(v128_t a, v128_t b, v128_t c) {
  const v128_t s = wasm_f64x2_add(wasm_f64x2_mul(a, b), c);
  const v128_t away = wasm_f32x4_demote_f64x2_zero(wasm_f64x2_mul(s, wasm_f64x2_const_splat(0x1.0000000000001p0)));
  const v128_t toward = wasm_f32x4_demote_f64x2_zero(wasm_f64x2_mul(s, wasm_f64x2_const_splat(0x1.ffffffffffffep-1)));
  if (__builtin_expect(wasm_v128_any_true(wasm_f32x4_ne(away, toward)), 0)) return fma2_near_tie(a, b, c);
  return wasm_f64x2_promote_low_f32x4(toward);
}

inline Pair fma(Pair a, Pair b, Pair c) { return {fma2(a.lo, b.lo, c.lo), fma2(a.hi, b.hi, c.hi)}; }

}  // namespace attn::kernels::detail::simd128
