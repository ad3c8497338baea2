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
#include "test_check_util.h"
#include "test_util.h"

namespace attn {
namespace {

using test::config_from_golden;
using test::load_json;
using test::read_all;
using test::contains;
using test::kCheckDir;

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
      EXPECT_EQ(enum_name(choose_stage(dump, cfg, &by)), stage);
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
  // Chapter 5's loop: tests/golden/backward_mistakes/<mistake>_<configuration>.json, which
  // tests/test_check_training.cpp grades as learners' dumps.
  for (const auto& file : test::json_files_in(test::tests_dir() + "/golden/backward_mistakes"))
    for (const auto& m : known_mistakes())
      if (file.rfind(std::string(m.id) + "_", 0) == 0) configs_of[m.id].insert(file.substr(std::string(m.id).size() + 1));
  // And the loop's mistakes made in PyTorch itself (tests/golden/check_training/).
  for (const auto& c : load_json(test::tests_dir() + "/golden/check_training/cases.json"))
    configs_of[c["mistake"].get<std::string>()].insert(c["dump"].get<std::string>());
  // Chapter 4's GPTModel: learners' dumps on two model files each (tests/golden/learner_gpt/,
  // which tests/test_check_gpt.cpp grades).
  for (const auto& c : load_json(test::tests_dir() + "/golden/learner_gpt/cases.json"))
    if (!c["diagnosis"].is_null()) configs_of[c["diagnosis"].get<std::string>()].insert(c["weights"].get<std::string>());
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
            std::string::npos)
      << error_of("{\"masked\": [[NaN, -Infinity],\n [1 2]]}");
}

// ---- rendering ---------------------------------------------------------------------------

TEST(CheckRender, TextAndJsonInBothLanguages) {
  const std::string path = kCheckDir + "book/causal_scale_missing.json";
  const Dump d = parse_dump(read_all(path), path);
  const Config cfg = test::book_config();
  std::string by;
  const std::string stage = enum_name(choose_stage(d, cfg, &by));
  const CheckReport r = check_dump(d, cfg, stage, by, Tolerance{}, path);
  const std::string en = render_check_text(r, Lang::En);
  EXPECT_NE(en.find("stage causal (section 3.5.1), chosen because its steps include 11 of the 11 names"),
            std::string::npos)
      << en;
  EXPECT_NE(en.find("✓ queries"), std::string::npos);
  EXPECT_NE(en.find("✗ attn_weights"), std::string::npos);
  EXPECT_NE(en.find("First difference: attn_weights"), std::string::npos);
  EXPECT_NE(en.find("    [1, :]"), std::string::npos);  // the row of the largest difference
  EXPECT_NE(en.find("scale_missing: your attn_weights equals what scores not divided by sqrt(d_k) would give"),
            std::string::npos)
      << en;
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
