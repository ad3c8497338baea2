// fma32_via_double, the page's fused multiply-add, and fma32_bracketed, its vector kernels'
// route to it written out for one lane, against the FMA instruction (std::fma on this machine), on the inputs where computing it in double can go wrong: the double sum
// landing exactly on a tie between two floats, from below and from above, among normal floats,
// among subnormal ones and at the overflow threshold. Then special values and random ones.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "torch/fma32.h"
#include "test_util.h"

namespace {

using attn::fma32_via_double;
using attn::test::float_from_bits;
using attn::test::same_float;

// Pairs of 24-bit significands (mx, my) whose product is base - e (or base + e when `above`)
// for some 0 < e < bound: a product of two floats just off a chosen point.
struct Pair {
  uint64_t mx, my;
};
std::vector<Pair> products_near(uint64_t base, uint64_t bound, bool above, size_t count) {
  std::vector<Pair> out;
  for (uint64_t mx = (uint64_t{1} << 23) + 1; mx < (uint64_t{1} << 24) && out.size() < count; mx += 2) {
    const uint64_t r = base % mx;
    const uint64_t e = above ? mx - r : r;
    const uint64_t my = (base - r) / mx + (above ? 1 : 0);
    if (r == 0 || e >= bound || my < (uint64_t{1} << 23) || my >= (uint64_t{1} << 24)) continue;
    out.push_back({mx, my});
  }
  return out;
}

// Checks every case against std::fma; returns how many a float conversion of the double sum
// (no correction at all) gets wrong, to show that the cases are ties that need one.
int check_cases(const std::vector<Pair>& pairs, int x_exp, int y_exp, float z, const char* what) {
  int naive_wrong = 0;
  for (const Pair& p : pairs) {
    for (float sign : {1.0f, -1.0f}) {
      const float x = sign * std::ldexp(static_cast<float>(p.mx), x_exp);
      const float y = std::ldexp(static_cast<float>(p.my), y_exp);
      const float want = std::fma(x, y, sign * z);
      const float got = fma32_via_double(x, y, sign * z);
      EXPECT_TRUE(same_float(got, want)) << what << ": fma(" << std::hexfloat << x << ", " << y << ", " << sign * z
                                         << ") is " << want << ", fma32_via_double gave " << got;
      const float bracketed = attn::fma32_bracketed(x, y, sign * z);
      EXPECT_TRUE(same_float(bracketed, want)) << what << ": fma(" << std::hexfloat << x << ", " << y << ", "
                                               << sign * z << ") is " << want << ", fma32_bracketed gave " << bracketed;
      const float naive = static_cast<float>(static_cast<double>(x) * y + sign * z);
      naive_wrong += !same_float(naive, want);
    }
  }
  return naive_wrong;
}

TEST(Fma32, RoundsTiesOfTheDoubleSumLikeTheFmaInstruction) {
  for (bool above : {false, true}) {
    SCOPED_TRACE(above ? "exact value above the tie" : "exact value below the tie");
    // Normal floats: x, y in [1, 2) (units of 2^-46 for their product), z = 2^20, whose float
    // ulp is 2^-3 (2^43 units) and double ulp 2^-32 (2^14 units). A product (2q + 1) * 2^42
    // +- e units, 0 < e < 2^13, makes the sum's dropped bits round to exactly half a float ulp;
    // q = 20 and 21, so that the even float of the two is once below the tie and once above.
    int normal_wrong = 0;
    for (uint64_t odd : {41, 43}) {
      const auto normal = products_near(odd << 42, uint64_t{1} << 13, above, 40);
      ASSERT_EQ(normal.size(), 40u);
      normal_wrong += check_cases(normal, -23, -23, 0x1p20f, "normal");
    }
    EXPECT_GT(normal_wrong, 0);

    // Subnormal floats: z = k * 2^-149 with k around 2^20 (below 2^-126, so the float keeps
    // fewer than 24 bits and the tie is not where a normal float's is), the product
    // 2^-150 +- e * 2^-197 with e < 2^15 (the double ulp of the sum is 2^-181): odd and even k.
    const auto subnormal = products_near(uint64_t{1} << 47, uint64_t{1} << 15, above, 60);
    ASSERT_EQ(subnormal.size(), 60u);
    int wrong = 0;
    for (uint32_t k : {(1u << 20) + 1, (1u << 20) + 2})
      wrong += check_cases(subnormal, -98, -99, std::ldexp(static_cast<float>(k), -149), "subnormal");
    EXPECT_GT(wrong, 0);

    // The overflow threshold: z = the largest float, 2^128 - 2^104, and the product 2^103 +- e
    // * 2^56 with e < 2^18 (the double ulp there is 2^75): the sum is the tie 2^128 - 2^103
    // between the largest float and infinity.
    const auto top = products_near(uint64_t{1} << 47, uint64_t{1} << 18, above, 20);
    ASSERT_EQ(top.size(), 20u);
    const int top_wrong = check_cases(top, 28, 28, std::numeric_limits<float>::max(), "overflow");
    if (!above) EXPECT_GT(top_wrong, 0);  // a conversion rounds the tie to infinity
  }
}

TEST(Fma32, EqualsTheFmaInstructionOnSpecialAndRandomValues) {
  const float inf = std::numeric_limits<float>::infinity();
  const float specials[] = {0.0f, -0.0f, 1.0f, -1.0f, 0x1p-149f, -0x1p-149f, 0x1p-126f, 0x1.fffffcp-127f,
                            std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(), inf, -inf,
                            std::numeric_limits<float>::quiet_NaN(), 3.0f, 0x1.000002p0f, -0x1.fffffep-1f};
  for (float x : specials)
    for (float y : specials)
      for (float z : specials) {
        EXPECT_TRUE(same_float(fma32_via_double(x, y, z), std::fma(x, y, z)))
            << std::hexfloat << x << " * " << y << " + " << z;
        EXPECT_TRUE(same_float(attn::fma32_bracketed(x, y, z), std::fma(x, y, z)))
            << "bracketed: " << std::hexfloat << x << " * " << y << " + " << z;
      }

  // Random bit patterns (every exponent, NaN and infinity included), and random values of
  // nearby magnitudes, where products and sums cancel.
  std::mt19937 rng(2026);
  std::uniform_real_distribution<float> near(-4.0f, 4.0f);
  int mismatches = 0;
  for (int i = 0; i < 300000; ++i) {
    const float x = float_from_bits(rng()), y = float_from_bits(rng()), z = float_from_bits(rng());
    const float a = near(rng), b = near(rng), c = near(rng);
    mismatches += !same_float(fma32_via_double(x, y, z), std::fma(x, y, z));
    mismatches += !same_float(fma32_via_double(a, b, c), std::fma(a, b, c));
    mismatches += !same_float(attn::fma32_bracketed(x, y, z), std::fma(x, y, z));
    mismatches += !same_float(attn::fma32_bracketed(a, b, c), std::fma(a, b, c));
  }
  EXPECT_EQ(mismatches, 0);
}

}  // namespace
