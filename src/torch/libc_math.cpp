#include "torch/libc_math.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "core/float_bits.h"

namespace attn::kernels {

namespace {

// __exp2f_data: 2^(i/32) as tab[i] + (i << 47) in a double's bits, and the polynomial.
constexpr int kTableBits = 5, kN = 1 << kTableBits;
// clang-format off
constexpr uint64_t kTable[kN] = {
    0x3ff0000000000000, 0x3fefd9b0d3158574, 0x3fefb5586cf9890f, 0x3fef9301d0125b51,
    0x3fef72b83c7d517b, 0x3fef54873168b9aa, 0x3fef387a6e756238, 0x3fef1e9df51fdee1,
    0x3fef06fe0a31b715, 0x3feef1a7373aa9cb, 0x3feedea64c123422, 0x3feece086061892d,
    0x3feebfdad5362a27, 0x3feeb42b569d4f82, 0x3feeab07dd485429, 0x3feea47eb03a5585,
    0x3feea09e667f3bcd, 0x3fee9f75e8ec5f74, 0x3feea11473eb0187, 0x3feea589994cce13,
    0x3feeace5422aa0db, 0x3feeb737b0cdc5e5, 0x3feec49182a3f090, 0x3feed503b23e255d,
    0x3feee89f995ad3ad, 0x3feeff76f2fb5e47, 0x3fef199bdd85529c, 0x3fef3720dcef9069,
    0x3fef5818dcfba487, 0x3fef7c97337b9b5f, 0x3fefa4afa2a490da, 0x3fefd0765b6e4540,
};
// clang-format on
constexpr double kInvLn2N = 0x1.71547652b82fep+0 * kN;
constexpr double kShift = 0x1.8p+52;
constexpr double kC0 = 0x1.c6af84b912394p-5 / kN / kN / kN, kC1 = 0x1.ebfce50fac4f3p-3 / kN / kN,
                 kC2 = 0x1.62e42ff0c52d6p-1 / kN;

}  // namespace

float glibc_expf_fma(float x) {
  const uint32_t abstop = float_to_bits(x) >> 20 & 0x7ff;
  if (abstop >= (float_to_bits(88.0f) >> 20)) {  // |x| >= 88, or NaN
    if (float_to_bits(x) == float_to_bits(-std::numeric_limits<float>::infinity())) return 0.0f;
    if (abstop >= (float_to_bits(std::numeric_limits<float>::infinity()) >> 20)) return x + x;
    // clang-format off
    if (x > 0x1.62e42ep6f) return std::numeric_limits<float>::infinity();  // past log(2^128)
    if (x < -0x1.9fe368p6f) return 0.0f;                                  // below log(2^-150)
    if (x < -0x1.9d1d9ep6f) return 0x1p-149f;  // below log(2^-149): glibc's may-underflow result
    // clang-format on
  }
  // x = (k + r) * ln2 / 32 with an integer k and |r| <= 1/2: k rounded by adding 1.5 * 2^52.
  const double xd = x;
  double kd = std::fma(kInvLn2N, xd, kShift);
  uint64_t ki;
  std::memcpy(&ki, &kd, sizeof ki);
  kd -= kShift;
  const double r = std::fma(kInvLn2N, xd, -kd);
  // exp(x) = 2^(k/32) * 2^(r/32), the second as 1 + C2 r + C1 r^2 + C0 r^3.
  const uint64_t t = kTable[ki % kN] + (ki << (52 - kTableBits));
  double s;
  std::memcpy(&s, &t, sizeof s);
  const double z = std::fma(kC0, r, kC1);
  const double r2 = r * r;
  double y = std::fma(kC2, r, 1.0);
  y = std::fma(z, r2, y);
  return static_cast<float>(y * s);
}

float libc_expf(float x) {
#if defined(__EMSCRIPTEN__)
  return glibc_expf_fma(x);
#else
  return std::exp(x);
#endif
}

}  // namespace attn::kernels
