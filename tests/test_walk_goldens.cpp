// Every stage, replayed against PyTorch's own walk (tests/golden/walks/*.json, made by
// tests/golden/make_goldens.py): same step names in the same order, same shapes, the
// same float32 bits, and the same printed text, verbatim.
#include <gtest/gtest.h>

#include <filesystem>

#include "render/render.h"
#include "stages/stages.h"
#include "test_util.h"

namespace attn {
namespace {

std::vector<std::string> golden_files() {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(test::tests_dir() + "/golden/walks"))
    if (e.path().extension() == ".json") files.push_back(e.path().stem().string());
  std::sort(files.begin(), files.end());
  return files;
}

class WalkGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(WalkGolden, EveryStepEqualsPyTorch) {
  const auto doc = test::load_json(test::tests_dir() + "/golden/walks/" + GetParam() + ".json");
  const Config cfg = test::config_from_golden(doc);
  ASSERT_FALSE(doc["stages"].empty());
  for (const auto& [stage, expected] : doc["stages"].items()) {
    SCOPED_TRACE("stage " + stage);
    const StageInfo* info = find_stage(stage);
    ASSERT_NE(info, nullptr);
    test::expect_steps_equal(info->run(cfg), expected);
  }
}

INSTANTIATE_TEST_SUITE_P(PyTorch, WalkGolden, ::testing::ValuesIn(golden_files()),
                         [](const auto& info) { return info.param; });

TEST(WalkGoldenFiles, CoverTheSpreadTheIssueAsksFor) {
  // Several seeds, d_in up to 16, d_out up to 8, heads 1-4, bias on and off, dropout
  // 0.1-0.5 with attention dropout, batch 1-3, randn init, and 40+ tokens.
  std::set<int64_t> heads, batches;
  int64_t max_d_in = 0, max_d_out = 0, max_T = 0;
  bool bias = false, no_bias = false, randn = false, attn_dropout = false;
  for (const auto& name : golden_files()) {
    const auto doc = test::load_json(test::tests_dir() + "/golden/walks/" + name + ".json");
    const Config c = test::config_from_golden(doc);
    heads.insert(c.heads);
    batches.insert(c.batch);
    max_d_in = std::max(max_d_in, c.d_in());
    max_d_out = std::max(max_d_out, c.d_out);
    max_T = std::max(max_T, c.num_tokens());
    (c.qkv_bias ? bias : no_bias) = true;
    randn |= c.init == InitKind::Randn;
    attn_dropout |= c.attn_dropout > 0;
  }
  EXPECT_EQ(heads, (std::set<int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(batches, (std::set<int64_t>{1, 2, 3}));
  EXPECT_EQ(max_d_in, 16);
  EXPECT_EQ(max_d_out, 8);
  EXPECT_GE(max_T, 40);
  EXPECT_TRUE(bias && no_bias && randn && attn_dropout);
}

}  // namespace
}  // namespace attn
