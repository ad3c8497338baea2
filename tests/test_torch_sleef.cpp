// SLEEF's sinf/cosf/powf as PyTorch 1.13 reaches them, against PyTorch itself
// (tests/golden/sleef_cases.json, made by tests/golden/make_sleef_goldens.py).
#include <gtest/gtest.h>

#include "modules/rope.h"
#include "test_util.h"
#include "torch/torch_sleef.h"

namespace attn {
namespace {

const nlohmann::json& cases() {
  static const nlohmann::json doc = test::load_json(test::tests_dir() + "/golden/sleef_cases.json");
  return doc;
}

TEST(TorchSleef, SinAndCosEqualPyTorchBelow125) {
  const auto angles = test::flatten(cases()["angles"]);
  const auto sin = test::flatten(cases()["sin"]), cos = test::flatten(cases()["cos"]);
  ASSERT_GT(angles.size(), 500u);
  std::vector<float> got_sin, got_cos;
  for (float a : angles) {
    got_sin.push_back(kernels::sleef_sinf(a));
    got_cos.push_back(kernels::sleef_cosf(a));
  }
  double max_diff = 0;
  EXPECT_EQ(test::count_bit_differences(got_sin, sin, &max_diff), 0) << "largest difference " << max_diff;
  EXPECT_EQ(test::count_bit_differences(got_cos, cos, &max_diff), 0) << "largest difference " << max_diff;
  EXPECT_TRUE(std::signbit(kernels::sleef_sinf(-0.0f)));  // sin(-0) = -0
}

// inv_freq through compute_rope_params: pow on the first 16 exponents by SLEEF, the rest by
// the C library, then the reciprocal.
TEST(TorchSleef, RopeInvFreqEqualsPyTorch) {
  int vectorised = 0;
  for (const auto& c : cases()["inv_freq"]) {
    const int64_t head_dim = c["head_dim"].get<int64_t>();
    SCOPED_TRACE("theta_base " + std::to_string(c["theta_base"].get<double>()) + ", head_dim " +
                 std::to_string(head_dim));
    const RopeParams p = compute_rope_params(head_dim, c["theta_base"].get<double>(), 1);
    double max_diff = 0;
    EXPECT_EQ(test::count_bit_differences(p.inv_freq.data, test::flatten(c["inv_freq"]), &max_diff), 0)
        << "largest difference " << max_diff;
    vectorised += head_dim / 2 >= 16;
  }
  EXPECT_GT(vectorised, 10);  // the SLEEF path is exercised, not only the scalar tail
}

}  // namespace
}  // namespace attn
