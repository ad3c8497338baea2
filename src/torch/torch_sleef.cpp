#include "torch/torch_sleef.h"

#include <cmath>
#include <cstdint>

#include "core/float_bits.h"
#include "torch/fma32.h"

namespace attn::kernels {

namespace {

// A double-float: the value x + y with |y| below half an ulp of x (SLEEF's vfloat2).
struct DF {
  float x, y;
};

// The double-float helpers of SLEEF's df.h that sinf/cosf use (the FMA variants).
DF add(float x, float y) {  // dfadd_vf2_vf_vf, |x| >= |y|
  const float s = x + y;
  return {s, (x - s) + y};
}
DF add2(float x, float y) {  // dfadd2_vf2_vf_vf, any order
  const float s = x + y, v = s - x;
  return {s, (x - (s - v)) + (y - v)};
}
DF add(DF x, float y) {  // dfadd_vf2_vf2_vf
  const float s = x.x + y;
  return {s, ((x.x - s) + y) + x.y};
}
DF add2(DF x, float y) {  // dfadd2_vf2_vf2_vf
  const float s = x.x + y, v = s - x.x;
  const float t = (x.x - (s - v)) + (y - v);
  return {s, t + x.y};
}
DF add(float x, DF y) {  // dfadd_vf2_vf_vf2
  const float s = x + y.x;
  return {s, ((x - s) + y.x) + y.y};
}
DF mul(DF x, DF y) {  // dfmul_vf2_vf2_vf2
  const float s = x.x * y.x;
  return {s, fma32(x.x, y.y, fma32(x.y, y.x, fma32(x.x, y.x, -s)))};
}
DF add(DF x, DF y) {  // dfadd_vf2_vf2_vf2, |x| >= |y|
  const float s = x.x + y.x;
  return {s, (((x.x - s) + y.x) + x.y) + y.y};
}
DF add2(DF x, DF y) {  // dfadd2_vf2_vf2_vf2
  const float s = x.x + y.x, v = s - x.x;
  const float t = (x.x - (s - v)) + (y.x - v);
  return {s, t + (x.y + y.y)};
}
DF mul(DF x, float y) {  // dfmul_vf2_vf2_vf
  const float s = x.x * y;
  return {s, fma32(x.y, y, fma32(x.x, y, -s))};
}
DF scale(DF x, float s) { return {x.x * s, x.y * s}; }  // dfscale_vf2_vf2_vf
DF normalize(DF t) {                                    // dfnormalize_vf2_vf2
  const float s = t.x + t.y;
  return {s, (t.x - s) + t.y};
}
DF div(DF n, DF d) {  // dfdiv_vf2_vf2_vf2
  const float t = 1.0f / d.x;
  const float s = n.x * t;
  const float u = fma32(t, n.x, -s);
  const float v = fma32(-d.y, t, fma32(-d.x, t, 1.0f));
  return {s, fma32(s, v, fma32(n.y, t, u))};
}
float mul_to_float(DF x, DF y) {  // dfmul_vf_vf2_vf2
  return fma32(x.x, y.x, fma32(x.y, y.x, x.x * y.y));
}
DF square(DF x) {  // dfsqu_vf2_vf2
  const float s = x.x * x.x;
  return {s, fma32(x.x + x.x, x.y, fma32(x.x, x.x, -s))};
}

// SLEEF's pi in three parts (PI_A2f, PI_B2f, PI_C2f) for |d| < TRIGRANGEMAX2f = 125.
constexpr float kPiA = 3.1414794921875f;
constexpr float kPiB = 0.00011315941810607910156f;
constexpr float kPiC = 1.9841872589410058936e-09f;
constexpr float k1OverPi = 0.318309886183790671537767526745028724f;

// The shared tail: sin(t) for the reduced argument t, as 1 + s * (polynomial in s = t²).
float sin_of_reduced(DF t) {
  const DF s = square(t);
  float u = 2.6083159809786593541503e-06f;
  u = fma32(u, s.x, -0.0001981069071916863322258f);
  u = fma32(u, s.x, 0.00833307858556509017944336f);
  const DF x = add(1.0f, mul(add(-0.166666597127914428710938f, u * s.x), s));
  return mul_to_float(t, x);
}

float flip_sign_if(float u, bool flip) { return flip ? -u : u; }

}  // namespace

float sleef_sinf(float d) {
  if (!(std::fabs(d) < kSleefTrigExactBelow))
    return std::isfinite(d) ? static_cast<float>(std::sin(static_cast<double>(d))) : NAN;
  // d = q*pi + t: q the nearest integer to d/pi, t in [-pi/2, pi/2] as a double-float.
  const float u = std::nearbyint(d * k1OverPi);
  const int q = static_cast<int>(u);
  const float v = fma32(u, -kPiA, d);
  DF s = add2(v, u * -kPiB);
  s = add(s, u * -kPiC);
  // sin(q*pi + t) = (-1)^q sin(t)
  const float r = flip_sign_if(sin_of_reduced(s), (q & 1) != 0);
  return (d == 0.0f && std::signbit(d)) ? d : r;  // sin(-0) = -0
}

float sleef_cosf(float d) {
  if (!(std::fabs(d) < kSleefTrigExactBelow))
    return std::isfinite(d) ? static_cast<float>(std::cos(static_cast<double>(d))) : NAN;
  // d = dq*pi/2 + t with dq odd: cos(d) = ±sin(t).
  const float dq = fma32(std::nearbyint(fma32(d, k1OverPi, -0.5f)), 2.0f, 1.0f);
  const int q = static_cast<int>(dq);
  DF s = add2(d, dq * (-kPiA * 0.5f));
  s = add2(s, dq * (-kPiB * 0.5f));
  s = add2(s, dq * (-kPiC * 0.5f));
  return flip_sign_if(sin_of_reduced(s), (q & 2) == 0);
}

namespace {

// vilogb2k_vi2_vf: the unbiased exponent field of a normal float.
int32_t ilogb2k(float d) { return static_cast<int32_t>((float_to_bits(d) >> 23) & 0xff) - 0x7f; }
// vldexp3_vf_vf_vi2: add q to the exponent field (no range checks).
float ldexp3(float d, int32_t q) { return bits_to_float(float_to_bits(d) + (static_cast<uint32_t>(q) << 23)); }
// vldexp_vf_vf_vi2: d * 2^q in steps that cannot overflow on their own.
float ldexpk(float x, int32_t q) {
  int32_t m = q >> 31;
  m = (((m + q) >> 6) - m) << 4;
  q = q - (m << 2);
  m += 0x7f;
  m = m > 0 ? m : 0;
  m = m > 0xff ? 0xff : m;
  float u = bits_to_float(static_cast<uint32_t>(m) << 23);
  x = x * u * u * u * u;
  u = bits_to_float(static_cast<uint32_t>(q + 0x7f) << 23);
  return x * u;
}

// logkf: log(d) as a double-float, d = m * 2^e with m in [0.75, 1.5).
DF logk(float d) {
  const bool tiny = d < 0x1p-126f;
  if (tiny) d *= static_cast<float>(INT64_C(1) << 32) * static_cast<float>(INT64_C(1) << 32);
  int32_t e = ilogb2k(d * (1.0f / 0.75f));
  const float m = ldexp3(d, -e);
  if (tiny) e -= 64;
  const DF x = div(add2(-1.0f, m), add2(1.0f, m));  // (m - 1) / (m + 1)
  const DF x2 = square(x);
  float t = 0.240320354700088500976562f;
  t = fma32(t, x2.x, 0.285112679004669189453125f);
  t = fma32(t, x2.x, 0.400007992982864379882812f);
  const DF c = {0.66666662693023681640625f, 3.69183861259614332084311e-09f};
  DF s = mul(DF{0.69314718246459960938f, -1.904654323148236017e-09f}, static_cast<float>(e));
  s = add(s, scale(x, 2.0f));
  s = add(s, mul(mul(x2, x), add2(mul(x2, t), c)));
  return s;
}

// expkf: exp of a double-float.
float expk(DF d) {
  const float u0 = (d.x + d.y) * 1.442695040888963407359924681001892137426645954152985934135449406931f;
  const int32_t q = static_cast<int32_t>(std::nearbyint(u0));
  DF s = add2(d, static_cast<float>(q) * -0.693145751953125f);
  s = add2(s, static_cast<float>(q) * -1.428606765330187045e-06f);
  s = normalize(s);
  float u = 0.00136324646882712841033936f;
  u = fma32(u, s.x, 0.00836596917361021041870117f);
  u = fma32(u, s.x, 0.0416710823774337768554688f);
  u = fma32(u, s.x, 0.166665524244308471679688f);
  u = fma32(u, s.x, 0.499999850988388061523438f);
  DF t = add(s, mul(square(s), u));
  t = add(1.0f, t);
  float r = ldexpk(t.x + t.y, q);
  if (d.x < -104.0f) r = 0.0f;
  return r;
}

}  // namespace

float sleef_logf(float d) {
  const bool tiny = d < 0x1p-126f;  // FLT_MIN: scale subnormals up first
  const float dd = tiny ? d * (static_cast<float>(INT64_C(1) << 32) * static_cast<float>(INT64_C(1) << 32)) : d;
  int32_t e = ilogb2k(dd * (1.0f / 0.75f));
  const float m = ldexp3(dd, -e);
  if (tiny) e -= 64;
  DF s = mul(DF{0.69314718246459960938f, -1.904654323148236017e-09f}, static_cast<float>(e));
  const DF x = div(add2(-1.0f, m), add2(1.0f, m));  // (m - 1) / (m + 1)
  const float x2 = x.x * x.x;
  float t = 0.3027294874f;
  t = fma32(t, x2, 0.3996108174f);
  t = fma32(t, x2, 0.6666694880f);
  s = add(s, scale(x, 2.0f));
  s = add(s, x2 * x.x * t);
  float r = s.x + s.y;
  if (std::isinf(dd)) r = INFINITY;
  if (dd < 0.0f || std::isnan(dd)) r = NAN;
  if (dd == 0.0f) r = -INFINITY;
  return r;
}

float sleef_powf(float x, float y) {
  if (y == 0.0f || x == 1.0f) return 1.0f;
  const float r = expk(mul(logk(x), y));
  return std::isnan(r) ? INFINITY : r;
}

namespace {

// vldexp2_vf_vf_vi2: d * 2^e in two halves (vpow2i of each).
float ldexp2k(float d, int32_t e) {
  const auto pow2i = [](int32_t q) { return bits_to_float(static_cast<uint32_t>(q + 0x7f) << 23); };
  return d * pow2i(e >> 1) * pow2i(e - (e >> 1));
}

// expk2f: exp of a double-float, as a double-float (sinhf/coshf/tanhf's kernel).
DF expk2(DF d) {
  const float u0 = (d.x + d.y) * 1.442695040888963407359924681001892137426645954152985934135449406931f;
  const int32_t q = static_cast<int32_t>(std::nearbyint(u0));
  DF s = add2(d, static_cast<float>(q) * -0.693145751953125f);
  s = add2(s, static_cast<float>(q) * -1.428606765330187045e-06f);
  float u = +0.1980960224e-3f;
  u = fma32(u, s.x, +0.1394256484e-2f);
  u = fma32(u, s.x, +0.8333456703e-2f);
  u = fma32(u, s.x, +0.4166637361e-1f);
  DF t = add2(mul(s, u), +0.166666659414234244790680580464e+0f);
  t = add2(mul(s, t), 0.5f);
  t = add2(s, mul(square(s), t));
  t = add(1.0f, t);
  t = {ldexp2k(t.x, q), ldexp2k(t.y, q)};
  if (d.x < -104.0f) t = {0.0f, 0.0f};
  return t;
}

// dfrec_vf2_vf2 (the FMA variant): 1 / d as a double-float.
DF reciprocal(DF d) {
  const float q = 1.0f / d.x;
  return {q, q * fma32(-d.y, q, fma32(-d.x, q, 1.0f))};
}

}  // namespace

float sleef_tanhf(float x) {
  if (std::isnan(x)) return x;
  const float y = std::fabs(x);
  // |x| > 8.66: tanh is 1 in float32 (and exp would overflow first); also keeps q defined.
  if (y > 8.664339742f) return std::copysign(1.0f, x);
  DF d = expk2({y, 0.0f});
  const DF e = reciprocal(d);
  d = div(add(d, DF{-e.x, -e.y}), add(d, e));  // (e^y - e^-y) / (e^y + e^-y)
  const float r = d.x + d.y;
  return std::copysign(std::isnan(r) ? 1.0f : r, x);
}

void torch_pow_scalar_base(float base, float* values, long n) {
  long i = 0;
  for (; i + 16 <= n; i += 16)  // the vectorised loop: two 8-lane vectors at a time
    for (long k = i; k < i + 16; ++k) values[k] = sleef_powf(base, values[k]);
  for (; i < n; ++i) values[i] = std::pow(base, values[i]);  // scalar tail
}

}  // namespace attn::kernels
