// The bonus stages (beyond chapter 3), replayed against PyTorch running the book
// repository's reference code (tests/golden/bonus_walks/<stage>--<config>.json, made by
// tests/golden/make_bonus_goldens.py from the oracles in tests/golden/bonus/): the same
// step names, shapes, float32 bits and printed text as test_walk_goldens.cpp demands.
#include <gtest/gtest.h>

#include <map>

#include "stages/stages.h"
#include "test_util.h"

namespace attn {
namespace {

const std::string kDir = test::tests_dir() + "/golden/bonus_walks";

std::vector<std::string> golden_files() { return test::json_files_in(kDir); }

class BonusGolden : public ::testing::TestWithParam<std::string> {};
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(BonusGolden);

TEST_P(BonusGolden, EveryStepEqualsPyTorch) {
  const auto doc = test::load_json(kDir + "/" + GetParam() + ".json");
  const Config cfg = test::bonus_config_from_golden(doc);
  ASSERT_EQ(doc["stages"].size(), 1u);
  for (const auto& [stage, expected] : doc["stages"].items()) {
    const StageInfo* info = find_stage(stage);
    ASSERT_NE(info, nullptr) << stage;
    EXPECT_EQ(info->group, StageGroup::Bonus) << stage;
    if (info->misuse) ASSERT_EQ(info->misuse(cfg), "");
    test::expect_walk_equals_golden(info->run(cfg), expected);
  }
}

INSTANTIATE_TEST_SUITE_P(PyTorch, BonusGolden, ::testing::ValuesIn(golden_files()),
                         [](const auto& info) {
                           std::string name = info.param;  // "kv-cache--book": gtest wants [A-Za-z0-9_]
                           for (char& ch : name)
                             if (ch == '-') ch = '_';
                           return name;
                         });

// Every bonus stage has goldens: the defaults on the chapter's six tokens and at least
// three other configurations.
TEST(BonusGoldenFiles, EveryBonusStageHasSeveralConfigurations) {
  std::map<std::string, std::vector<std::string>> configs;
  for (const auto& file : golden_files()) {
    const auto sep = file.find("--");
    ASSERT_NE(sep, std::string::npos) << file;
    configs[file.substr(0, sep)].push_back(file.substr(sep + 2));
  }
  for (const auto& s : all_stages()) {
    if (s.group != StageGroup::Bonus) continue;
    SCOPED_TRACE(s.name);
    const auto& c = configs[s.name];
    EXPECT_GE(c.size(), 4u);
    EXPECT_NE(std::find(c.begin(), c.end(), "book"), c.end());
  }
  for (const auto& [stage, c] : configs) {
    const StageInfo* info = find_stage(stage);
    EXPECT_TRUE(info && info->group == StageGroup::Bonus) << stage << " has goldens but is no bonus stage";
  }
}

}  // namespace
}  // namespace attn
