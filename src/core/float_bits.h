// A float32's bit pattern and back (IEEE 754 binary32: sign, 8 exponent bits, 23 fraction bits).
// C++17 has no std::bit_cast; memcpy is the defined way, and compilers turn it into a move.
#pragma once

#include <cstdint>
#include <cstring>

namespace attn {

inline uint32_t float_to_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// Whether any of x[0..n) is an infinity or a NaN: every exponent bit set. An integer scan, which
// vectorises, where a floating-point one must keep its order of operations and does not.
inline bool any_nonfinite(const float* x, int64_t n) {
  uint32_t nonfinite = 0;
  for (int64_t i = 0; i < n; ++i)
    nonfinite |= static_cast<uint32_t>((float_to_bits(x[i]) & 0x7f800000u) == 0x7f800000u);
  return nonfinite != 0;
}

inline float bits_to_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

}  // namespace attn
