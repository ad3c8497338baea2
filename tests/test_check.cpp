// attn-walk check: learners' dumps made by real PyTorch (tests/golden/check/, written by
// tests/golden/make_check_goldens.py through tools/attn_walk_dump.py), graded and diagnosed;
// the learner's code with no slips equals the walk; bad dumps; both renderers.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "check/check.h"
#include "check/diagnoses.h"
#include "check/dump.h"
#include "check/learner.h"
#include "input/embeddings.h"
#include "lang/lang.h"
#include "render/check.h"
#include "stages/stages.h"
#include "test_util.h"

namespace attn {
namespace {

using test::config_from_golden;
using test::load_json;
using test::read_all;

const std::string kCheckDir = test::tests_dir() + "/golden/check/";

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// The configurations of tests/golden/check/cases.json, one test each (so ctest runs them
// in parallel). make_check_goldens.py writes four.
constexpr int kConfigurations = 4;

class CheckGoldens : public ::testing::TestWithParam<int> {};

// Every dump: the first step that differs is PyTorch's, the mistake is named, and correct
// dumps with last-bit noise pass. Dumps of every step also find their stage by themselves.
TEST_P(CheckGoldens, FirstDifferenceAndDiagnosisOfEveryDump) {
  const auto manifest = load_json(kCheckDir + "cases.json");
  ASSERT_EQ(manifest.size(), static_cast<size_t>(kConfigurations));
  const auto& entry = manifest[static_cast<size_t>(GetParam())];
  const Config cfg = config_from_golden(entry);
  size_t cases = 0;
  for (const auto& c : entry["cases"]) {
    SCOPED_TRACE(c["dump"].get<std::string>());
    const std::string path = kCheckDir + c["dump"].get<std::string>();
    const Dump dump = parse_dump(read_all(path), path);
    const std::string stage = c["stage"];
    if (c["dump"].get<std::string>().find("_without_") == std::string::npos) {
      std::string by;
      EXPECT_EQ(choose_stage(dump, cfg, &by), stage);
    }
    const CheckReport r = check_dump(dump, cfg, stage, "option", Tolerance{}, path);
    if (c["first_difference"].is_null()) {
      EXPECT_TRUE(r.passed()) << "first difference at " << r.results[*r.first].name;
      continue;
    }
    ASSERT_FALSE(r.passed());
    EXPECT_EQ(r.results[*r.first].name, c["first_difference"].get<std::string>());
    EXPECT_TRUE(contains(r.diagnoses, c["diagnosis"])) << "diagnosed: " << ::testing::PrintToString(r.diagnoses);
    ++cases;
  }
  EXPECT_GT(cases, 30u);
}

INSTANTIATE_TEST_SUITE_P(Configurations, CheckGoldens, ::testing::Range(0, kConfigurations));

// Every known mistake has goldens that show it, on at least two configurations, and correct
// dumps with last-bit noise are among them.
TEST(CheckGoldenCoverage, EveryMistakeOnTwoConfigurations) {
  const auto manifest = load_json(kCheckDir + "cases.json");
  std::map<std::string, std::set<std::string>> configs_of;
  size_t noisy = 0;
  for (const auto& entry : manifest)
    for (const auto& c : entry["cases"]) {
      if (!c["diagnosis"].is_null()) configs_of[c["diagnosis"]].insert(entry["name"].get<std::string>());
      noisy += c["mistake"].is_null();
    }
  for (const auto& m : known_mistakes()) EXPECT_GE(configs_of[m.id].size(), 2u) << m.id;
  EXPECT_GE(noisy, 12u);
}

// With no slips the learner's code is the chapter's: every tensor it computes equals the walk's.
TEST(CheckLearner, NoSlipsComputesTheWalk) {
  const auto manifest = load_json(kCheckDir + "cases.json");
  for (const auto& entry : manifest) {
    const Config cfg = config_from_golden(entry);
    for (const char* stage : {"trainable", "causal", "dropout", "multi-head"}) {
      const Walk walk = find_stage(stage)->run(cfg);
      const LearnerSteps steps = learner_stage(stage, cfg, Slips{});
      EXPECT_GE(steps.size(), 5u);
      for (const auto& [name, t] : steps) {
        SCOPED_TRACE(entry["name"].get<std::string>() + " " + stage + " " + name);
        EXPECT_NE(compare(t, test::step_named(walk, name).value, Tolerance{}).grade, Grade::Differs);
      }
    }
  }
}

TEST(CheckGrade, EqualCloseDiffersAndShapes) {
  const Tensor a({2}, {1.0f, 2.0f});
  EXPECT_EQ(compare(a, a, {}).grade, Grade::Equal);
  const Tensor ulp({2}, {1.0f, std::nextafter(2.0f, 3.0f)});
  const Difference close = compare(ulp, a, {});
  EXPECT_EQ(close.grade, Grade::Close);
  EXPECT_EQ(close.index, 1);
  EXPECT_EQ(compare(Tensor({2}, {1.0f, 2.1f}), a, {}).grade, Grade::Differs);
  const Difference shape = compare(Tensor({1, 2}, {1.0f, 2.0f}), a, {});
  EXPECT_EQ(shape.grade, Grade::Differs);
  EXPECT_TRUE(shape.shape_differs);
  const float inf = INFINITY;
  EXPECT_EQ(compare(Tensor({1}, {-inf}), Tensor({1}, {-inf}), {}).grade, Grade::Equal);
  EXPECT_EQ(compare(Tensor({1}, {NAN}), Tensor({1}, {0.0f}), {}).grade, Grade::Differs);
  EXPECT_EQ(unravel(7, {2, 2, 3}), (std::vector<int64_t>{1, 0, 1}));
}

// ---- bad dumps ------------------------------------------------------------------------

std::string error_of(const std::string& text) {
  try {
    const Dump d = parse_dump(text, "mine.json");
    check_dump(d, test::book_config(), "causal", "option", Tolerance{}, "mine.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(CheckDump, BadDumpsNameTheProblem) {
  EXPECT_NE(error_of("{}").find("mine.json: the object is empty"), std::string::npos);
  EXPECT_NE(error_of("").find("mine.json: empty"), std::string::npos);
  EXPECT_NE(error_of("{\"queries\": [[1, 2],\n [3, ]]}").find("mine.json: line 2, column 6: invalid JSON"),
            std::string::npos);
  EXPECT_NE(error_of("[[1, 2]]").find("expected a JSON object"), std::string::npos);
  EXPECT_NE(error_of("{\"queries\": [[1, \"x\"]]}").find("\"queries\"[0][1]: \"x\" is not a number"),
            std::string::npos);
  EXPECT_NE(error_of("{\"queries\": [[1, 2], [3]]}").find("\"queries\"[1]: a list of 1 where 2 belong"),
            std::string::npos);
  EXPECT_NE(error_of("{\"queries\": [[1, 2], 3]}").find("\"queries\"[1]: 3 where a list belongs"),
            std::string::npos);
  EXPECT_NE(error_of("{\"queries\": [1, [2]]}").find("\"queries\"[1]: a list where a number belongs"),
            std::string::npos);
  EXPECT_NE(error_of("{\"querys\": [[1, 2]]}").find("\"querys\" is not a step of stage causal; did you mean \"queries\"?"),
            std::string::npos);
  EXPECT_NE(error_of("{\"queries\": null}").find("null is not a number"), std::string::npos);
  EXPECT_NE(error_of("{\"queries\": " + std::string(100000, '[') + std::string(100000, ']') + "}")
                .find("mine.json: line 1, column 28: lists nest more than 16 levels deep"),
            std::string::npos);
  EXPECT_NE(error_of("{\"queries\": [1e400]}").find("mine.json: invalid JSON: number overflow"), std::string::npos);
}

TEST(CheckDump, WrongShapeDiffersAndSaysSo) {
  const Dump d = parse_dump("{\"attn_weights\": [[0.5, 0.5]], \"queries\": [[1, 2, 3]]}", "mine.json");
  const CheckReport r = check_dump(d, test::book_config(), "causal", "option", Tolerance{}, "mine.json");
  ASSERT_FALSE(r.passed());
  EXPECT_EQ(r.results[*r.first].name, "queries");  // the stage's order, not the file's
  EXPECT_TRUE(r.results[*r.first].diff.shape_differs);
  EXPECT_TRUE(r.diagnoses.empty());
  const std::string text = render_check_text(r, Lang::En);
  EXPECT_NE(text.find("your tensor has shape (1, 3); the chapter's has shape (6, 2)."), std::string::npos) << text;
  EXPECT_NE(text.find("no known mistake reproduces your queries"), std::string::npos);
  // No rows are printed for a shape: the message does not point at any.
  EXPECT_EQ(text.find("rows above"), std::string::npos) << text;
  EXPECT_NE(text.find("Compare its shape with the chapter's code for queries"), std::string::npos) << text;
  const std::string zh = render_check_text(r, Lang::Zh);
  EXPECT_EQ(zh.find("上面的行"), std::string::npos) << zh;
  EXPECT_NE(zh.find("检查它的形状"), std::string::npos) << zh;
  // The heading runs on after its comma: Chinese puts no space after "，", English one after ",".
  EXPECT_NE(zh.find("（第 3.5.1 节），由 --stage 指定。"), std::string::npos) << zh;
  EXPECT_EQ(zh.find("， "), std::string::npos) << zh;
  EXPECT_NE(text.find("(section 3.5.1), as --stage asked."), std::string::npos) << text;
}

// The default tolerance is torch.allclose's (rtol 1e-5, atol 1e-6): at 2, a relative
// difference of 1e-4 differs and one of 5e-6 is close; the reports print it.
TEST(CheckGrade, DefaultToleranceBoundary) {
  const Tolerance tol;
  const Tensor two({1}, {2.0f});
  EXPECT_EQ(compare(Tensor({1}, {static_cast<float>(2.0 * (1 + 1e-4))}), two, tol).grade, Grade::Differs);
  EXPECT_EQ(compare(Tensor({1}, {static_cast<float>(2.0 * (1 + 5e-6))}), two, tol).grade, Grade::Close);
  // Just inside and just outside atol + rtol * |expected| = 2.1e-5 at 2.
  EXPECT_EQ(compare(Tensor({1}, {2.0f + 2.0e-5f}), two, tol).grade, Grade::Close);
  EXPECT_EQ(compare(Tensor({1}, {2.0f + 2.2e-5f}), two, tol).grade, Grade::Differs);

  const Dump d = parse_dump("{\"queries\": [[1, 2]]}", "mine.json");
  const CheckReport r = check_dump(d, test::book_config(), "causal", "option", tol, "mine.json");
  EXPECT_NE(render_check_text(r, Lang::En).find("<= 1e-06 + 1e-05 * |expected|"), std::string::npos);
  const auto j = nlohmann::json::parse(render_check_json(r, Lang::En));
  EXPECT_EQ(j["tolerance"]["rtol"].get<double>(), 1e-5);
  EXPECT_EQ(j["tolerance"]["atol"].get<double>(), 1e-6);
  EXPECT_NE(render_check_json(r, Lang::En).find("\"rtol\": 1e-05"), std::string::npos);
}

TEST(CheckDump, InfinitiesAndWalkOutputAreRead) {
  const Dump d = parse_dump("{\"masked\": [[\"-inf\", \"inf\", \"nan\", 1e39, 2]]}", "m");
  const auto& t = d.tensors.at(0).second;
  EXPECT_EQ(t.shape, (Shape{1, 5}));
  EXPECT_TRUE(std::isinf(t.data[0]) && t.data[0] < 0);
  EXPECT_TRUE(std::isnan(t.data[2]));
  EXPECT_TRUE(std::isinf(t.data[3]));
  const Dump w = parse_dump("{\"tool\": \"attn-walk\", \"stage\": \"causal\", \"steps\": [{\"name\": \"mask\", \"data\": [[0, 1], [0, 0]]}]}", "w");
  EXPECT_EQ(w.stage, "causal");
  EXPECT_EQ(w.tensors.at(0).first, "mask");
}

// Python's json.dump writes NaN, Infinity and -Infinity: read as Python's json.load reads
// them; a syntax error after them is still placed in the text as written.
TEST(CheckDump, PythonJsonNonFiniteTokensAreRead) {
  const Dump d = parse_dump("{\"masked\": [[1.5, -Infinity], [NaN, Infinity]], \"note\": \"NaN\"}", "m");
  ASSERT_EQ(d.tensors.size(), 2u);
  const auto& t = d.tensors.at(0).second;
  EXPECT_EQ(t.shape, (Shape{2, 2}));
  EXPECT_TRUE(std::isinf(t.data[1]) && t.data[1] < 0);
  EXPECT_TRUE(std::isnan(t.data[2]));
  EXPECT_TRUE(std::isinf(t.data[3]) && t.data[3] > 0);
  EXPECT_NE(error_of("{\"masked\": [[NaN, -Infinity],\n [1 2]]}").find("mine.json: line 2, column 5: invalid JSON"),
            std::string::npos) << error_of("{\"masked\": [[NaN, -Infinity],\n [1 2]]}");
}

// ---- rendering ---------------------------------------------------------------------------

TEST(CheckRender, TextAndJsonInBothLanguages) {
  const std::string path = kCheckDir + "book/causal_scale_missing.json";
  const Dump d = parse_dump(read_all(path), path);
  const Config cfg = test::book_config();
  std::string by;
  const std::string stage = choose_stage(d, cfg, &by);
  const CheckReport r = check_dump(d, cfg, stage, by, Tolerance{}, path);
  const std::string en = render_check_text(r, Lang::En);
  EXPECT_NE(en.find("stage causal (section 3.5.1), chosen because its steps include 11 of the 11 names"),
            std::string::npos) << en;
  EXPECT_NE(en.find("✓ queries"), std::string::npos);
  EXPECT_NE(en.find("✗ attn_weights"), std::string::npos);
  EXPECT_NE(en.find("First difference: attn_weights"), std::string::npos);
  EXPECT_NE(en.find("    [1, :]"), std::string::npos);  // the row of the largest difference
  EXPECT_NE(en.find("scale_missing: your attn_weights equals what scores not divided by sqrt(d_k) would give"),
            std::string::npos) << en;
  const std::string zh = render_check_text(r, Lang::Zh);
  EXPECT_NE(zh.find("第一处不同：attn_weights"), std::string::npos) << zh;
  EXPECT_NE(zh.find("你的 attn_weights 等于分数没有除以 sqrt(d_k) 的结果"), std::string::npos) << zh;

  const auto j = nlohmann::json::parse(render_check_json(r, Lang::En));
  EXPECT_EQ(j["command"], "check");
  EXPECT_EQ(j["stage"], "causal");
  EXPECT_EQ(j["results"][0]["status"], "equal");
  EXPECT_EQ(j["first_difference"]["name"], "attn_weights");
  EXPECT_EQ(j["first_difference"]["index"], nlohmann::json::array({1, 0}));
  const size_t at = 1 * 6 + 0;
  EXPECT_EQ(j["first_difference"]["expected"].get<double>(), static_cast<double>(r.expected.data[at]));
  EXPECT_EQ(j["first_difference"]["got"].get<double>(), static_cast<double>(r.got.data[at]));
  EXPECT_EQ(j["diagnoses"][0]["id"], "scale_missing");
  EXPECT_EQ(j["diagnoses"][0]["step"], "attn_weights");
}

// ---- diagnoses that measure the learner's tensor ---------------------------------------------

struct Diagnosed {
  CheckReport report;
  std::string text;
};

Diagnosed check_golden(const std::string& dump, const Config& cfg = test::book_config()) {
  const std::string path = kCheckDir + dump;
  const Dump d = parse_dump(read_all(path), path);
  std::string by;
  const std::string stage = choose_stage(d, cfg, &by);
  CheckReport r = check_dump(d, cfg, stage, by, Tolerance{}, path);
  std::string text = render_check_text(r, Lang::En);
  return {std::move(r), std::move(text)};
}

// The evidence of `id` in the report (empty if it is not named).
std::map<std::string, std::string> evidence_of(const CheckReport& r, const std::string& id) {
  for (size_t i = 0; i < r.diagnoses.size(); ++i)
    if (r.diagnoses[i] == id) return r.evidence.at(i);
  return {};
}

// The learners' dumps below come from real PyTorch code with the mistake
// (make_check_goldens.py); each names its cause with the numbers that show it.
TEST(CheckDiagnoses, DivisorIsMeasuredAndNamed) {
  const Diagnosed tokens = check_golden("book/causal_wrong_divisor_tokens.json");  // / keys.shape[0]**0.5
  auto e = evidence_of(tokens.report, "wrong_divisor");
  EXPECT_EQ(e["expression"], "√6");
  EXPECT_EQ(e["code"], "keys.shape[0] ** 0.5");
  EXPECT_EQ(e["measured"], "2.449");
  EXPECT_NE(tokens.text.find("dividing the scores by 2.449 = √6, that is keys.shape[0] ** 0.5 (6 is the number of tokens)"),
            std::string::npos) << tokens.text;
  EXPECT_NE(tokens.text.find("sqrt(d_k) = sqrt(2) = 1.414"), std::string::npos) << tokens.text;

  const Diagnosed precedence = check_golden("book/causal_wrong_divisor_precedence.json");  // d_k**1/2
  e = evidence_of(precedence.report, "wrong_divisor");
  EXPECT_EQ(e["code"], "keys.shape[-1]**1/2");
  EXPECT_EQ(e["value"], "4");
  EXPECT_NE(precedence.text.find("Python reads attn_scores / keys.shape[-1]**1/2 as attn_scores / keys.shape[-1] / 2"),
            std::string::npos) << precedence.text;

  // MultiHeadAttention's self.d_out where self.head_dim belongs (d_out 6, 3 heads).
  const auto manifest = load_json(kCheckDir + "cases.json");
  const Config d6 = config_from_golden(manifest[2]);
  const Diagnosed d_out = check_golden("d6_t7_dout6_h3_randn/multi-head_wrong_divisor_d_out.json", d6);
  e = evidence_of(d_out.report, "wrong_divisor");
  EXPECT_EQ(e["code"], "self.d_out ** 0.5") << d_out.text;
  EXPECT_EQ(e["expression"], "√6");

  const Diagnosed after = check_golden("book/causal_scaled_after_softmax.json");
  e = evidence_of(after.report, "scaled_after_softmax");
  EXPECT_EQ(e["expression"], "√2");
  EXPECT_EQ(e["row_sum"], "0.7071");
  // The tool's own check on the learner's weights says what they lost.
  EXPECT_NE(after.text.find("✗ your attn_weights itself: every row sums to 1"), std::string::npos) << after.text;
}

TEST(CheckDiagnoses, RowsSeedsBiasAndMasks) {
  const Diagnosed row = check_golden("book/trainable_picked_wrong_row.json");  // x_2 = inputs[2]
  auto e = evidence_of(row.report, "picked_wrong_row");
  EXPECT_EQ(e["row"], "2");
  EXPECT_EQ(e["token"], "starts");
  EXPECT_EQ(e["chapter_row"], "1");
  EXPECT_NE(row.text.find("your x_2 is inputs[2], x(3) \"starts\"; the chapter's query x(2) is inputs[1]"),
            std::string::npos) << row.text;

  const Diagnosed typed = check_golden("book/dot-product_input_typed_wrong.json");
  e = evidence_of(typed.report, "input_typed_wrong");
  EXPECT_EQ(e["row"], "3");
  EXPECT_EQ(e["column"], "1");
  EXPECT_EQ(e["count"], "1");
  EXPECT_EQ(e["diff"], "0.02");

  const Diagnosed seed = check_golden("book/causal_wrong_seed.json");  // manual_seed(123) before v2
  e = evidence_of(seed.report, "wrong_seed");
  EXPECT_EQ(e["used"], "123");
  EXPECT_EQ(e["chapter"], "789");

  // The bias left on: --qkv-bias, as the message suggests, makes every tensor match.
  const Diagnosed bias = check_golden("book/causal_bias_left_on.json");
  EXPECT_TRUE(contains(bias.report.diagnoses, "bias_left_on")) << bias.text;
  EXPECT_NE(bias.text.find("--qkv-bias"), std::string::npos);
  Config with_bias = test::book_config();
  with_bias.qkv_bias = true;
  EXPECT_TRUE(check_golden("book/causal_bias_left_on.json", with_bias).report.passed());

  EXPECT_TRUE(contains(check_golden("book/causal_mask_filled_with_zero.json").report.diagnoses, "mask_filled_with_zero"));
  const Diagnosed after = check_golden("book/causal_mask_after_softmax.json");
  EXPECT_TRUE(contains(after.report.diagnoses, "mask_after_softmax")) << after.text;
  EXPECT_NE(after.text.find("✗ your attn_weights_causal itself: every row sums to 1"), std::string::npos) << after.text;
  EXPECT_NE(after.text.find("✓ your attn_weights_causal itself: 0 above the diagonal"), std::string::npos) << after.text;
}

// Layers declared W_key first give the very numbers of queries = W_key(x): both causes are
// named, and each message says the other gives the same numbers.
TEST(CheckDiagnoses, LayerOrderAndSwapGiveTheSameNumbersAndSaySo) {
  const Diagnosed kqv = check_golden("book/causal_layers_declared_kqv.json");
  EXPECT_TRUE(contains(kqv.report.diagnoses, "query_key_swapped")) << kqv.text;
  auto e = evidence_of(kqv.report, "layers_declared_out_of_order");
  EXPECT_EQ(e["order"], "W_key, W_query, W_value") << kqv.text;
  EXPECT_EQ(e["draws"], "6");  // nn.Linear(3, 2): 6 weights, no bias
  EXPECT_EQ(e["same_numbers_as"], "query_key_swapped");
  EXPECT_NE(kqv.text.find("The same numbers come from layers_declared_out_of_order too"), std::string::npos) << kqv.text;
  EXPECT_NE(kqv.text.find("The same numbers come from query_key_swapped too"), std::string::npos) << kqv.text;
  const std::string zh = render_check_text(kqv.report, Lang::Zh);
  EXPECT_NE(zh.find("query_key_swapped 也给出完全相同的数"), std::string::npos) << zh;

  // W_value declared first in MultiHeadAttention: no swap gives that, only the order does.
  const auto manifest = load_json(kCheckDir + "cases.json");
  const Config d4 = config_from_golden(manifest[1]);
  const Diagnosed vqk = check_golden("d4_t5_dout4_h2_bias/multi-head_layers_declared_vqk.json", d4);
  EXPECT_EQ(vqk.report.diagnoses, std::vector<std::string>{"layers_declared_out_of_order"}) << vqk.text;
  e = evidence_of(vqk.report, "layers_declared_out_of_order");
  EXPECT_EQ(e["order"], "W_value, W_query, W_key");
  EXPECT_EQ(e["draws"], "20");  // nn.Linear(4, 4, bias=True): 16 weights and 4 biases
}

// Other transposed operands, a softmax over a leading dimension, and dropout in the wrong
// place, each with its evidence read off the learner's tensor.
TEST(CheckDiagnoses, TransposesSoftmaxDimsAndDropoutPlaces) {
  const Diagnosed qt = check_golden("book/causal_queries_transposed_in_scores.json");
  auto e = evidence_of(qt.report, "queries_transposed_in_scores");
  EXPECT_EQ(e["got_shape"], "(2, 2)") << qt.text;
  EXPECT_NE(qt.text.find("shape (2, 2) = (d_k, d_k) with d_k = 2"), std::string::npos) << qt.text;

  const Diagnosed wt = check_golden("book/multi-head_attn_weights_transposed.json");
  EXPECT_TRUE(contains(wt.report.diagnoses, "attn_weights_transposed")) << wt.text;
  EXPECT_NE(wt.text.find("attn_weights.T @ values"), std::string::npos);

  const Diagnosed dim0 = check_golden("book/multi-head_softmax_dim0.json");
  e = evidence_of(dim0.report, "softmax_wrong_dim");
  EXPECT_EQ(e["dim"], "0") << dim0.text;
  EXPECT_EQ(e["share"], "0.5");  // two copies in the batch
  EXPECT_NE(dim0.text.find("torch.softmax(..., dim=0) would give: it normalises over the batch"), std::string::npos)
      << dim0.text;
  const auto manifest = load_json(kCheckDir + "cases.json");
  const Config d5 = config_from_golden(manifest[3]);
  const Diagnosed heads = check_golden("d5_t6_dout8_h4/multi-head_softmax_dim1_heads.json", d5);
  EXPECT_EQ(evidence_of(heads.report, "softmax_wrong_dim")["dim"], "1") << heads.text;

  // Dropout on the masked scores: every dropped -inf is nan (-inf * 0), 24 of them here, and
  // the rows that kept all their values sum to 1.
  const Diagnosed scores = check_golden("book/dropout_dropout_on_scores.json");
  e = evidence_of(scores.report, "dropout_misplaced");
  EXPECT_EQ(e["where"], "check.dropout_at.scores_after_mask") << scores.text;
  EXPECT_EQ(e["nans"], "24");
  EXPECT_LT(std::stod(e["row_sum_off"]), 1e-6);
  EXPECT_NE(scores.text.find("dropout on the masked scores"), std::string::npos) << scores.text;
  const Diagnosed renorm = check_golden("book/dropout_dropout_before_renormalising.json");
  EXPECT_EQ(evidence_of(renorm.report, "dropout_misplaced")["where"], "check.dropout_at.before_renormalising")
      << renorm.text;
  const Diagnosed unmasked = check_golden("book/dropout_dropout_on_unmasked_weights.json");
  EXPECT_EQ(evidence_of(unmasked.report, "dropout_misplaced")["where"], "check.dropout_at.unmasked_weights")
      << unmasked.text;
  EXPECT_NE(render_check_text(unmasked.report, Lang::Zh).find("用在未遮盖的权重上"), std::string::npos);
}

// One value of the inputs typed wrong, and the inputs not dumped: the value is read back
// from the learner's queries and keys (each row of inputs solved from them) and named, and
// the recomputation from it reproduces every tensor they gave. The batch of section 3.5.3
// shows it directly.
TEST(CheckDiagnoses, InputsInferredFromQueriesAndKeys) {
  const Config book = test::book_config();
  const Diagnosed causal = check_golden("book/causal_input_typed_wrong.json");
  auto e = evidence_of(causal.report, "input_inferred");
  EXPECT_EQ(e["row"], "3") << causal.text;  // make_check_goldens.py types inputs[T // 2, 1] + 0.02
  EXPECT_EQ(e["column"], "1");
  EXPECT_EQ(e["count"], "1");
  EXPECT_EQ(e["from"], "queries, keys");
  EXPECT_EQ(e["expected"], fmt::format("{}", book.inputs(3, 1)));
  EXPECT_EQ(e["got"], fmt::format("{}", static_cast<float>(std::round((book.inputs(3, 1) + 0.02) * 100) / 100)));
  EXPECT_EQ(e["diff"], "0.02");
  EXPECT_NE(causal.text.find("read back from your queries, keys"), std::string::npos) << causal.text;
  EXPECT_NE(render_check_text(causal.report, Lang::Zh).find("反推"), std::string::npos);

  const Diagnosed trainable = check_golden("book/trainable_input_typed_wrong.json");
  EXPECT_EQ(evidence_of(trainable.report, "input_inferred")["from"], "keys, values") << trainable.text;

  const auto manifest = load_json(kCheckDir + "cases.json");
  const Config d6 = config_from_golden(manifest[2]);
  const Diagnosed batch = check_golden("d6_t7_dout6_h3_randn/multi-head_input_typed_wrong.json", d6);
  e = evidence_of(batch.report, "input_typed_wrong");
  EXPECT_EQ(batch.report.results[*batch.report.first].name, "batch");
  EXPECT_EQ(e["row"], "3") << batch.text;
  EXPECT_EQ(e["column"], "1");
}

// A diagnosis the learner's other tensors contradict is not named: the same learner, but
// with the chapter's tensor at a later step computed from the wrong one (it cannot be right).
// The rule holds over the whole dump: section 3.5.2's dropout cells take 3.5.1's weights, so
// the chapter's dropout_attn_weights beside wrong attn_weights_causal rules the mistake out.
TEST(CheckDiagnoses, ContradictedByAnotherTensorIsNotNamed) {
  const Config cfg = test::book_config();
  struct Case {
    const char *dump, *stage, *later;
  };
  for (const Case& c : {Case{"book/causal_scale_missing.json", "causal", "attn_weights_causal"},
                        Case{"book/causal_mask_filled_with_zero.json", "causal", "attn_weights_causal"},
                        Case{"book/dropout_mask_after_softmax.json", "dropout", "dropout_attn_weights"}}) {
    SCOPED_TRACE(c.dump);
    const Walk walk = find_stage(c.stage)->run(cfg);
    const std::string path = kCheckDir + c.dump;
    Dump d = parse_dump(read_all(path), path);
    const CheckReport mistaken = check_dump(d, cfg, c.stage, "option", Tolerance{}, path);
    ASSERT_FALSE(mistaken.diagnoses.empty());
    bool replaced = false;
    for (auto& [step, tensor] : d.tensors)
      if (step == c.later) tensor = test::step_named(walk, step).value, replaced = true;
    ASSERT_TRUE(replaced);
    const CheckReport r = check_dump(d, cfg, c.stage, "option", Tolerance{}, path);
    EXPECT_EQ(r.results[*r.first].name, mistaken.results[*mistaken.first].name);
    EXPECT_TRUE(r.diagnoses.empty()) << ::testing::PrintToString(r.diagnoses);
  }
}

// Every mistake has its message in every language.
TEST(CheckRender, EveryMistakeHasAMessage) {
  for (const auto& m : known_mistakes())
    for (const Lang lang : {Lang::En, Lang::Zh}) {
      const std::string key = std::string("check.mistake.") + m.id;
      EXPECT_TRUE(lang_table(lang).ui.count(key)) << key;
    }
}

// docs/check.md gives an example for every mistake.
TEST(CheckDocs, CheckMdNamesEveryMistake) {
  const std::string doc = read_all(test::tests_dir() + "/../docs/check.md");
  ASSERT_FALSE(doc.empty());
  for (const auto& m : known_mistakes())
    EXPECT_NE(doc.find(std::string("| `") + m.id + "` |"), std::string::npos) << m.id;
}

}  // namespace
}  // namespace attn
