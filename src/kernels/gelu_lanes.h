// Internal, for gelu_avx2.cpp and gelu_avx512.cpp only (it needs their instruction sets): the
// book's GELU (gelu.h) on one vector of lanes, written once over a vector type's operations
// `V`. Each step is the scalar reference's float operation (gelu_reference, and sleef_tanhf in
// src/torch/torch_sleef.cpp, whose helpers are named in the comments), in the same order and
// with the same operands, so every lane rounds as the reference does. Where the reference
// returns early (NaN, |x| > 8.664339742), the lanes compute on and the result is selected.
//
// V provides: F (the float vector), M (a lane mask), and
//   set1(float), add, sub, mul, div, fmadd(a, b, c) = a * b + c rounded once, neg, abs,
//   round_nearest (to an integral float, ties to even), pow2_halves(F q, F& p1, F& p2):
//   2^(q >> 1) and 2^(q - (q >> 1)) for the integer q (as ldexp2k's pow2i; any bits where q
//   is out of range, those lanes being replaced), copysign(a, b), greater(a, b), is_nan(a), select(M, if_true, if_false).
#pragma once

namespace attn::kernels::detail {

template <class V>
struct GeluLanes {
  using F = typename V::F;

  // A double-float, x + y (SLEEF's vfloat2), one per lane.
  struct DF {
    F x, y;
  };

  static DF add(F x, DF y) {  // dfadd_vf2_vf_vf2
    const F s = V::add(x, y.x);
    return {s, V::add(V::add(V::sub(x, s), y.x), y.y)};
  }
  static DF add(DF x, DF y) {  // dfadd_vf2_vf2_vf2
    const F s = V::add(x.x, y.x);
    return {s, V::add(V::add(V::add(V::sub(x.x, s), y.x), x.y), y.y)};
  }
  static DF add2(DF x, F y) {  // dfadd2_vf2_vf2_vf
    const F s = V::add(x.x, y), v = V::sub(s, x.x);
    const F t = V::add(V::sub(x.x, V::sub(s, v)), V::sub(y, v));
    return {s, V::add(t, x.y)};
  }
  static DF add2(DF x, DF y) {  // dfadd2_vf2_vf2_vf2
    const F s = V::add(x.x, y.x), v = V::sub(s, x.x);
    const F t = V::add(V::sub(x.x, V::sub(s, v)), V::sub(y.x, v));
    return {s, V::add(t, V::add(x.y, y.y))};
  }
  static DF mul(DF x, F y) {  // dfmul_vf2_vf2_vf
    const F s = V::mul(x.x, y);
    return {s, V::fmadd(x.y, y, V::fmadd(x.x, y, V::neg(s)))};
  }
  static DF mul(DF x, DF y) {  // dfmul_vf2_vf2_vf2
    const F s = V::mul(x.x, y.x);
    return {s, V::fmadd(x.x, y.y, V::fmadd(x.y, y.x, V::fmadd(x.x, y.x, V::neg(s))))};
  }
  static DF square(DF x) {  // dfsqu_vf2_vf2
    const F s = V::mul(x.x, x.x);
    return {s, V::fmadd(V::add(x.x, x.x), x.y, V::fmadd(x.x, x.x, V::neg(s)))};
  }
  static DF div(DF n, DF d) {  // dfdiv_vf2_vf2_vf2
    const F t = V::div(V::set1(1.0f), d.x);
    const F s = V::mul(n.x, t);
    const F u = V::fmadd(t, n.x, V::neg(s));
    const F v = V::fmadd(V::neg(d.y), t, V::fmadd(V::neg(d.x), t, V::set1(1.0f)));
    return {s, V::fmadd(s, v, V::fmadd(n.y, t, u))};
  }
  static DF reciprocal(DF d) {  // dfrec_vf2_vf2
    const F q = V::div(V::set1(1.0f), d.x);
    return {q, V::mul(q, V::fmadd(V::neg(d.y), q, V::fmadd(V::neg(d.x), q, V::set1(1.0f))))};
  }
  // ldexp2k: d * 2^(q >> 1) * 2^(q - (q >> 1)), the two powers given.
  static F ldexp2k(F d, F p1, F p2) { return V::mul(V::mul(d, p1), p2); }

  // expk2f of {y, 0} for y >= 0 (not NaN): its d.x < -104 case never arises.
  static DF expk2(F y) {
    const DF d{y, V::set1(0.0f)};
    const F u0 = V::mul(V::add(d.x, d.y), V::set1(1.442695040888963407359924681001892137426645954152985934135449406931f));
    const F q = V::round_nearest(u0);  // integral; static_cast<float>(int) of it is itself
    DF s = add2(d, V::mul(q, V::set1(-0.693145751953125f)));
    s = add2(s, V::mul(q, V::set1(-1.428606765330187045e-06f)));
    F u = V::set1(+0.1980960224e-3f);
    u = V::fmadd(u, s.x, V::set1(+0.1394256484e-2f));
    u = V::fmadd(u, s.x, V::set1(+0.8333456703e-2f));
    u = V::fmadd(u, s.x, V::set1(+0.4166637361e-1f));
    DF t = add2(mul(s, u), V::set1(+0.166666659414234244790680580464e+0f));
    t = add2(mul(s, t), V::set1(0.5f));
    t = add2(s, mul(square(s), t));
    t = add(V::set1(1.0f), t);
    F p1, p2;  // 2^(q >> 1) and 2^(q - (q >> 1))
    V::pow2_halves(q, p1, p2);
    return {ldexp2k(t.x, p1, p2), ldexp2k(t.y, p1, p2)};
  }

  // sleef_tanhf, lane by lane.
  static F tanh(F x) {
    const F y = V::abs(x);
    DF d = expk2(y);
    const DF e = reciprocal(d);
    d = div(add(d, DF{V::neg(e.x), V::neg(e.y)}), add(d, e));  // (e^y - e^-y) / (e^y + e^-y)
    const F r = V::add(d.x, d.y);
    F result = V::copysign(V::select(V::is_nan(r), V::set1(1.0f), r), x);
    result = V::select(V::greater(y, V::set1(8.664339742f)), V::copysign(V::set1(1.0f), x), result);
    return V::select(V::is_nan(x), x, result);
  }

  // gelu_reference, lane by lane; c = gelu_sqrt_2_over_pi().
  static F gelu(F x, F c) {
    const F p = V::mul(V::mul(x, x), x);
    const F inner = V::add(x, V::mul(p, V::set1(static_cast<float>(0.044715))));
    const F u = V::add(tanh(V::mul(inner, c)), V::set1(1.0f));
    return V::mul(V::mul(x, V::set1(0.5f)), u);
  }
};

}  // namespace attn::kernels::detail
