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

inline float bits_to_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

}  // namespace attn
