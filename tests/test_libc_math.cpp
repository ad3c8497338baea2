// glibc_expf_fma (the page's expf) against this machine's glibc expf, which PyTorch calls for
// a softmax's single columns. Compared once on all 2^32 floats, natively and compiled to
// WebAssembly (docs/fidelity.md); here on the floats where an unfused expf differs, around the
// thresholds, and on every 4093rd float.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "torch/libc_math.h"
#include "test_util.h"

namespace {

using attn::test::bits;
using attn::test::float_from_bits;
using attn::test::same_float;

TEST(LibcMath, ExpfTakesGlibcsStepsForEveryFloat) {
#if defined(__x86_64__)
  if (!__builtin_cpu_supports("fma")) GTEST_SKIP() << "glibc's expf without FMA is another variant";
#else
  GTEST_SKIP() << "the reference is glibc's x86-64 expf";
#endif
  int mismatches = 0;
  auto check = [&](uint32_t u) {
    const float x = float_from_bits(u), want = std::exp(x), got = attn::kernels::glibc_expf_fma(x);
    if (!same_float(got, want) && ++mismatches <= 5)
      ADD_FAILURE() << std::hexfloat << "expf(" << x << "): glibc " << want << ", glibc_expf_fma " << got;
  };
  // Where emscripten's unfused expf gives another float than glibc's, and their neighbours.
  for (float x : {-0x1.f8cbb2p+5f, 0x1.04845ep+5f})
    for (int64_t d = -4096; d <= 4096; ++d) check(static_cast<uint32_t>(bits(x) + d));
  // The thresholds of the special cases: overflow, underflow, glibc's may-underflow result.
  for (float x : {88.0f, 0x1.62e42ep6f, -88.0f, -0x1.9fe368p6f, -0x1.9d1d9ep6f})
    for (int64_t d = -64; d <= 64; ++d) check(static_cast<uint32_t>(bits(x) + d));
  for (float x : {0.0f, -0.0f, std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                  std::numeric_limits<float>::quiet_NaN()})
    check(bits(x));
  for (uint64_t u = 0; u < (uint64_t{1} << 32); u += 4093) check(static_cast<uint32_t>(u));
  EXPECT_EQ(mismatches, 0);
}

}  // namespace
