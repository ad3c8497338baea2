// Chapter 4's ops alone (ops/ops_gpt.h) against PyTorch 1.13's bits
// (tests/golden/make_gpt_goldens.py -> tests/golden/gpt/ops.json): torch.tanh (SLEEF's
// tanhf_u10) and the book's GELU over many magnitudes and the edges of tanh's range, and
// LayerNorm's mean, var(unbiased=False) and whole output on GPT-2-wide rows.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ops/ops.h"
#include "ops/ops_gpt.h"
#include "test_util.h"

namespace attn {
namespace {

std::vector<float> floats_of(const nlohmann::json& hex) {
  std::vector<float> out;
  for (const auto& h : hex) out.push_back(test::float_from_bits(static_cast<uint32_t>(std::stoul(h.get<std::string>(), nullptr, 16))));
  return out;
}

// How many values differ from the golden's in any bit (signed zeros included).
int64_t differing(const Tensor& got, const nlohmann::json& want_hex) {
  const std::vector<float> want = floats_of(want_hex);
  EXPECT_EQ(got.data.size(), want.size());
  int64_t n = 0;
  for (size_t i = 0; i < want.size() && i < got.data.size(); ++i) n += !test::same_float(got.data[i], want[i]);
  return n;
}

const nlohmann::json& golden() {
  static const nlohmann::json g = test::load_json(test::tests_dir() + "/golden/gpt/ops.json");
  return g;
}

Tensor vector_of(const char* key) {
  std::vector<float> v = floats_of(golden()[key]);
  const int64_t n = static_cast<int64_t>(v.size());
  return Tensor({n}, std::move(v));
}

TEST(GptOps, TanhIsTorchsBitForBit) {
  EXPECT_EQ(differing(tanh_values(vector_of("x")), golden()["tanh"]), 0);
}

TEST(GptOps, GeluIsTheBooksBitForBit) {
  EXPECT_EQ(differing(gelu(vector_of("x")), golden()["gelu"]), 0);
}

TEST(GptOps, LayerNormsMeanVarianceAndOutputAreTorchs) {
  const Tensor rows = view(vector_of("rows"), {8, 768});
  EXPECT_EQ(differing(mean_lastdim(rows), golden()["mean"]), 0);
  EXPECT_EQ(differing(var_lastdim(rows), golden()["var"]), 0);
  const Tensor scale = vector_of("scale"), shift = vector_of("shift");
  const MatView s{scale.data.data(), 1, 768, false}, b{shift.data.data(), 1, 768, false};
  EXPECT_EQ(test::fnv1a64(layer_norm(rows, s, b).data), golden()["layer_norm_digest"].get<std::string>());
}

}  // namespace
}  // namespace attn
