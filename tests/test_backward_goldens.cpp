// The backward stage replayed against PyTorch 1.13's autograd and optimizers
// (tests/golden/backward/<config>.json, made by tests/golden/make_backward_goldens.py from
// tests/golden/torch_backward.py): the same step names in autograd's order, shapes,
// float32 bits and printed text, for every gradient, loss and trained parameter.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "stages/stages.h"
#include "test_backward_util.h"

namespace attn {
namespace {

const std::string kDir = test::tests_dir() + "/golden/backward";

class BackwardGolden : public ::testing::TestWithParam<std::string> {};
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(BackwardGolden);

TEST_P(BackwardGolden, EveryStepEqualsPyTorch) {
  const auto doc = test::load_json(kDir + "/" + GetParam() + ".json");
  const Config cfg = test::backward_config(doc);
  const StageInfo* info = find_stage("backward");
  ASSERT_NE(info, nullptr);
  ASSERT_EQ(info->misuse(cfg), "");
  test::expect_walk_equals_golden(info->run(cfg), doc["stages"]["backward"]);
}

INSTANTIATE_TEST_SUITE_P(PyTorch, BackwardGolden, ::testing::ValuesIn(test::json_files_in(kDir)));

// What expect_walk_equals_golden reports on a walk that should fail it: for each failure,
// "values are not PyTorch's float32", "digest" (a digest's comparison) or "printed" (the
// printed text's), all on attn_scores.grad.
std::vector<std::string> failures_comparing(const Walk& walk, const nlohmann::json& golden) {
  ::testing::TestPartResultArray results;
  {
    ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &results);
    test::expect_walk_equals_golden(walk, golden);
  }
  std::vector<std::string> kinds;
  for (int i = 0; i < results.size(); ++i) {
    const std::string m = results.GetTestPartResult(i).message();
    EXPECT_NE(m.find("step attn_scores.grad"), std::string::npos) << m;
    // clang-format off
    kinds.push_back(m.find("values are not PyTorch's float32") != std::string::npos ? "values are not PyTorch's float32"
                    : m.find("fnv1a64") != std::string::npos || m.find("digest") != std::string::npos ? "digest"
                    : m.find("printed") != std::string::npos ? "printed"
                                                              : m);
    // clang-format on
  }
  return kinds;
}

// The book masks attn_scores in place, so its .grad holds -0.0 where softmax's backward gave
// +0 * (a negative number). The goldens keep those signs, and the comparison sees them: with
// one -0.0 of the walk's attn_scores.grad made +0.0, the golden's comparison fails (on the bits
// and on the printed text, -0.0000e+00 against 0.0000e+00).
TEST(BackwardGoldenSigns, SignedZerosAreCompared) {
  const auto doc = test::load_json(kDir + "/book.json");
  nlohmann::json golden = doc["stages"]["backward"];
  Walk walk = find_stage("backward")->run(test::backward_config(doc));
  const auto negative_zeros = [](const std::vector<float>& v) {
    return std::count_if(v.begin(), v.end(), [](float x) { return x == 0.0f && std::signbit(x); });
  };
  Step* grad = nullptr;
  for (auto& s : walk.steps)
    if (s.name == "attn_scores.grad") grad = &s;
  ASSERT_NE(grad, nullptr);
  std::vector<float> want;
  for (const auto& s : golden)
    if (s["name"] == "attn_scores.grad") want = test::flatten(s["data"]);
  // PyTorch's 24 of the 40 masked entries, read back from the JSON with their sign.
  EXPECT_EQ(negative_zeros(want), 24);
  EXPECT_EQ(negative_zeros(grad->value.data), 24);
  test::expect_walk_equals_golden(walk, golden);

  const auto first = std::find_if(grad->value.data.begin(), grad->value.data.end(),
                                  [](float x) { return x == 0.0f && std::signbit(x); });
  ASSERT_NE(first, grad->value.data.end());
  *first = 0.0f;                      // the same value for ==, another float32
  EXPECT_EQ(grad->value.data, want);  // a comparison by value cannot tell
  double max_diff = 0;
  EXPECT_EQ(test::count_bit_differences(grad->value.data, want, &max_diff), 1);
  EXPECT_EQ(failures_comparing(walk, golden),
            (std::vector<std::string>{"values are not PyTorch's float32", "printed"}));
  // And the other way: a masked +0.0 of the golden (row 0 of the first head) made -0.0.
  *first = -0.0f;
  for (auto& s : golden)
    if (s["name"] == "attn_scores.grad") {
      ASSERT_EQ(s["data"][0][0][0][1].get<double>(), 0.0);
      ASSERT_FALSE(std::signbit(s["data"][0][0][0][1].get<double>()));
      s["data"][0][0][0][1] = -0.0;
    }
  EXPECT_EQ(failures_comparing(walk, golden), (std::vector<std::string>{"values are not PyTorch's float32"}));
}

// A golden with a digest compares the bits of every value through it: one -0.0 made +0.0
// changes it.
TEST(BackwardGoldenSigns, DigestsSeeTheSignToo) {
  const auto doc = test::load_json(kDir + "/t40_d32_h2_long.json");
  const nlohmann::json& golden = doc["stages"]["backward"];
  Walk walk = find_stage("backward")->run(test::backward_config(doc));
  test::expect_walk_equals_golden(walk, golden);
  for (auto& s : walk.steps)
    if (s.name == "attn_scores.grad") {
      auto it = std::find_if(s.value.data.begin(), s.value.data.end(),
                             [](float x) { return x == 0.0f && std::signbit(x); });
      ASSERT_NE(it, s.value.data.end());
      *it = 0.0f;
    }
  EXPECT_EQ(failures_comparing(walk, golden), (std::vector<std::string>{"digest", "printed"}));
}

TEST(BackwardGoldenFiles, SeveralConfigurationsIncludingTheBook) {
  const auto files = test::json_files_in(kDir);
  EXPECT_GE(files.size(), 6u);
  EXPECT_NE(std::find(files.begin(), files.end(), "book"), files.end());
}

}  // namespace
}  // namespace attn
