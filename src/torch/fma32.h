// fma32(x, y, z): x * y + z on float32, rounded once, as PyTorch's fused kernels compute it.
//
// Natively it is std::fma: the FMA instruction, or glibc's exact fmaf. WebAssembly has no fused
// multiply-add, and emscripten's musl computes fmaf in double: the product of two floats is
// exact there, so only the double sum rounds, and the float result is right unless that sum
// lands exactly on a tie between two floats. musl then asks for round-toward-zero to learn on
// which side the exact value was, but WebAssembly has only round-to-nearest, so musl always
// moves such a result away from zero: wrong whenever the exact value lay below the tie
// (tests/golden/walks/fma_tie.json is one). The page's engine uses fma32_via_double instead,
// which finds the side from the sum's exact error.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace attn {

namespace detail {
// fma32_via_double's rare cases: s = xy + z (rounded to double) that may be a tie between two
// floats, and every s below the smallest normal float (zero included), where the tie is elsewhere.
float fma32_near_tie(double xy, float z, double s);
}  // namespace detail

// x * y + z rounded once, with double arithmetic only (round-to-nearest, no flags).
inline float fma32_via_double(float x, float y, float z) {
  const double xy = static_cast<double>(x) * static_cast<double>(y);  // exact: 24 + 24 bits of 53
  const double s = xy + static_cast<double>(z);
  uint64_t bits;
  std::memcpy(&bits, &s, sizeof bits);
  // From the smallest normal float (2^-126) up, a float keeps 24 of the double's 53 significant
  // bits: a second rounding can only go wrong when the 29 dropped are a tie, 1 and 28 zeros.
  const bool float_normal_or_more = (bits >> 52 & 0x7ffu) >= 1023 - 126;  // inf and NaN too
  if ((bits & 0x1fffffffu) != 0x10000000u && float_normal_or_more) return static_cast<float>(s);
  return detail::fma32_near_tie(xy, z, s);
}

// fma32_via_double as the page's vector kernels compute it (src/kernels/gemm_simd128.cpp, two
// lanes per f64x2), one lane written out: the sum s = xy + z in double as there, then s nudged
// by one or two of its ulps towards zero and away from it (both products round strictly to the
// other side of s, and never a whole tie between floats away from it). Rounded to float, the two
// nudged values agree unless s is itself a tie between two floats (or within two ulps of one);
// then they differ and the exact path decides. Where they agree, s rounds to the same float
// (rounding is monotone), and s is not a tie, so that float is x * y + z rounded once.
inline float fma32_bracketed(float x, float y, float z) {
  const double s = static_cast<double>(x) * static_cast<double>(y) + static_cast<double>(z);
  const float away = static_cast<float>(s * 0x1.0000000000001p0);     // s (1 + 2^-52)
  const float toward = static_cast<float>(s * 0x1.ffffffffffffep-1);  // s (1 - 2^-52)
  if (away == toward) return toward;                                  // NaN never equals: the exact path
  return fma32_via_double(x, y, z);
}

inline float fma32(float x, float y, float z) {
#if defined(__EMSCRIPTEN__)
  return fma32_via_double(x, y, z);
#else
  return std::fma(x, y, z);
#endif
}

}  // namespace attn
