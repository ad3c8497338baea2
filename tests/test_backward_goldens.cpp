// The backward stage replayed against PyTorch 1.13's autograd and optimizers
// (tests/golden/backward/<config>.json, made by tests/golden/make_backward_goldens.py from
// tests/golden/torch_backward.py): the same step names in autograd's order, shapes,
// float32 bits and printed text, for every gradient, loss and trained parameter.
#include <gtest/gtest.h>

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

TEST(BackwardGoldenFiles, SeveralConfigurationsIncludingTheBook) {
  const auto files = test::json_files_in(kDir);
  EXPECT_GE(files.size(), 6u);
  EXPECT_NE(std::find(files.begin(), files.end(), "book"), files.end());
}

}  // namespace
}  // namespace attn
