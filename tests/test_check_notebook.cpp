// attn-walk check on a whole notebook's dump (tests/golden/check_notebook/, written by real
// PyTorch in tests/golden/make_learner_notebook_goldens.py): every stage the notebook reaches
// is graded on the names that hold its values, a name bound again in a later section counting
// for the stage whose value it holds, and a slip of section 3.5 is named though the notebook
// goes on to a correct MultiHeadAttention.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "check/check.h"
#include "check/dump.h"
#include "run_process.h"
#include "test_util.h"

namespace attn {
namespace {

const std::string kNotebookDir = test::tests_dir() + "/golden/check_notebook/";

nlohmann::json notebook_cases() { return test::load_json(kNotebookDir + "cases.json")["cases"]; }

// Each stage's names, as PyTorch says which stage's value each holds.
TEST(CheckNotebook, EachNameCountsForTheStageWhoseValueItHolds) {
  for (const auto& c : notebook_cases()) {
    const std::string path = kNotebookDir + c["dump"].get<std::string>();
    SCOPED_TRACE(path);
    const NotebookStages whole = notebook_stages(load_dump(path), test::book_config());
    ASSERT_EQ(whole.stages.size(), c["stages"].size());
    for (size_t k = 0; k < whole.stages.size(); ++k) {
      const auto& expected = c["stages"][k];
      EXPECT_EQ(enum_name(whole.stages[k]), expected["stage"].get<std::string>());
      std::vector<std::string> names;
      for (const auto& [name, tensor] : whole.dumps[k].tensors) names.push_back(name);
      std::sort(names.begin(), names.end());
      EXPECT_EQ(names, expected["names"].get<std::vector<std::string>>()) << enum_name(whole.stages[k]);
    }
  }
}

// Through the binary, with no --stage: every stage graded, each one's first difference
// PyTorch's, the slip named in each stage it shows in; the document leads with the first.
TEST(CheckNotebook, TheCommandGradesEveryStageTheNotebookReaches) {
  for (const auto& c : notebook_cases()) {
    const std::string path = kNotebookDir + c["dump"].get<std::string>();
    SCOPED_TRACE(path);
    const test::RunResult r = test::run_cli({"check", path, "--format", "json"});
    const bool slip = !c["slip"].is_null();
    ASSERT_EQ(r.exit_code, slip ? 3 : 0) << test::describe(r);
    EXPECT_EQ(r.err, "");
    const auto doc = nlohmann::json::parse(r.out);
    const auto& expected = c["stages"];
    ASSERT_EQ(doc["stages_graded"].size(), expected.size());
    ASSERT_EQ(doc["stage_reports"].size(), expected.size());
    std::string leading;
    for (size_t k = 0; k < expected.size(); ++k) {
      const auto& got = doc["stages_graded"][k];
      SCOPED_TRACE(expected[k]["stage"].get<std::string>());
      EXPECT_EQ(got["stage"], expected[k]["stage"]);
      EXPECT_EQ(doc["stage_reports"][k]["stage"], expected[k]["stage"]);
      EXPECT_EQ(doc["stage_reports"][k]["stage_chosen_by"], "notebook");
      EXPECT_EQ(got["first_difference"], expected[k]["first_difference"]);
      const auto ids = got["diagnoses"].get<std::vector<std::string>>();
      if (!expected[k]["diagnosis"].is_null()) {
        EXPECT_NE(std::find(ids.begin(), ids.end(), expected[k]["diagnosis"].get<std::string>()), ids.end())
            << got.dump();
      }
      // Causes that give this stage's tensors but, as PyTorch shows, not the rest of the notebook.
      for (const auto& cause : expected[k]["not_named"])
        EXPECT_EQ(std::find(ids.begin(), ids.end(), cause.get<std::string>()), ids.end()) << got.dump();
      if (leading.empty() && !expected[k]["first_difference"].is_null()) leading = expected[k]["stage"];
    }
    if (leading.empty()) leading = expected.back()["stage"];
    EXPECT_EQ(doc["stage"], leading);  // the first stage that differs leads the document
  }
}

// A slip in the learner's SelfAttention_v2 class goes wherever sa_v2's parameters go: section
// 3.5.1 computes its queries and keys with sa_v2's own W_query and W_key. So W_key declared first
// is the one cause of the causal and dropout stages' differences (3.5.1's `queries =
// sa_v2.W_key(inputs)` gives their tensors too, but would leave sa_v2's weights the book's), and
// 3.5.1's own swapped line is the one cause when sa_v2's weights are the book's (W_key declared
// first would change them). Both were named together while the stages were linked only through
// 3.5.1's cells and the CausalAttention class.
TEST(CheckNotebook, AClassSlipIsTestedAgainstEveryUseOfTheClass) {
  const auto causes = [](const std::string& dump) {
    const test::RunResult r = test::run_cli({"check", kNotebookDir + dump, "--format", "json"});
    EXPECT_EQ(r.exit_code, 3) << test::describe(r);
    std::map<std::string, std::vector<std::string>> out;
    const auto doc = nlohmann::json::parse(r.out);
    for (const auto& s : doc["stages_graded"])
      out[s["stage"].get<std::string>()] = s["diagnoses"].get<std::vector<std::string>>();
    return out;
  };
  const std::vector<std::string> declared = {"layers_declared_out_of_order"};
  const auto in_class = causes("notebook_self_attention_v2_layers_declared_kqv.json");
  EXPECT_EQ(in_class.at("trainable"), declared);
  EXPECT_EQ(in_class.at("causal"), declared);
  EXPECT_EQ(in_class.at("dropout"), declared);
  EXPECT_TRUE(in_class.at("multi-head").empty());
  const std::vector<std::string> swapped = {"query_key_swapped"};
  const auto in_cells = causes("notebook_query_key_swapped_in_3_5_1.json");
  EXPECT_TRUE(in_cells.at("trainable").empty());
  EXPECT_EQ(in_cells.at("causal"), swapped);
  EXPECT_EQ(in_cells.at("dropout"), swapped);
  // nn.Linear's default bias in the class: one cause, in every stage that uses sa_v2's weights.
  const std::vector<std::string> bias = {"bias_left_on"};
  const auto biased = causes("notebook_self_attention_v2_bias_left_on.json");
  EXPECT_EQ(biased.at("trainable"), bias);
  EXPECT_EQ(biased.at("causal"), bias);
  EXPECT_EQ(biased.at("dropout"), bias);
  // No seed before sa_v2: 3.5.1's queries and keys continue SelfAttention_v1's draws as sa_v2's
  // weights do, and the walk draws 3.5.1's sa_v2 so (before, causal and dropout had no cause).
  const std::vector<std::string> seed = {"seed_not_reset"};
  const auto unseeded = causes("notebook_seed_not_reset_sa_v2.json");
  EXPECT_EQ(unseeded.at("trainable"), seed);
  EXPECT_EQ(unseeded.at("causal"), seed);
  EXPECT_EQ(unseeded.at("dropout"), seed);
}

// The text and the HTML say which stages were graded, and the verdict of each.
TEST(CheckNotebook, TextAndHtmlNameTheStagesGraded) {
  const std::string path = kNotebookDir + "notebook_mask_filled_with_zero.json";
  const test::RunResult text = test::run_cli({"check", path});
  ASSERT_EQ(text.exit_code, 3) << test::describe(text);
  EXPECT_NE(text.out.find("Your notebook reaches 5 of the chapter's stages (dot-product, trainable, causal, dropout, "
                          "multi-head)"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("✗ causal (section 3.5.1): first difference masked; cause: mask_filled_with_zero"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("✓ trainable (section 3.4"), std::string::npos) << text.out;
  const test::RunResult zh = test::run_cli({"check", path, "--lang", "zh"});
  EXPECT_NE(zh.out.find("你的笔记本到达了本章的 5 个阶段"), std::string::npos) << zh.out;
  const test::RunResult html = test::run_cli({"check", path, "--format", "html"});
  ASSERT_EQ(html.exit_code, 3) << test::describe(html);
  EXPECT_NE(html.out.find("data-stages=\"dot-product trainable causal dropout multi-head\" data-leading-stage=\"causal\""),
            std::string::npos)
      << html.out;
  EXPECT_NE(html.out.find("<li data-stage=\"causal\" class=\"differs\">"), std::string::npos);
  // --stage still grades one stage, as asked.
  const test::RunResult one = test::run_cli({"check", path, "--stage", "multi-head", "--format", "json"});
  EXPECT_EQ(one.exit_code, 1) << test::describe(one);  // names of other stages: not steps of multi-head
}

}  // namespace
}  // namespace attn
