// attn-walk check --lang zh: every word a learner reads is Chinese. A report's ASCII words may
// only be what the Chinese texts themselves hold (code such as masked_fill_, flags such as
// --atol), or names from the learner's data: step names, mistake ids, stage names, tokens. An
// English text that a missing Chinese key lets through, or a word a renderer writes itself
// ("equal", "largest difference"), is none of these; a word with an underscore or a digit is
// code (q_w, k_w, v_w of load_weights_into_gpt), never English. Run on the learners' dumps made by real
// PyTorch: every chapter-3 golden with a diagnosis, every whole notebook, chapter 4's GPTModel.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "check/check.h"
#include "check/diagnoses.h"
#include "check/dump.h"
#include "lang/lang.h"
#include "render/check.h"
#include "render/check_html.h"
#include "render/check_notebook.h"
#include "request/request.h"
#include "stages/stages.h"
#include "test_check_util.h"
#include "test_util.h"

namespace attn {
namespace {

std::vector<std::string> ascii_words(const std::string& text) {
  // Numbers as the reports write them (0.25, -1e-06, inf is a word the tables hold) go first.
  static const std::regex number(R"((^|[^A-Za-z0-9_.])[-+]?[0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)?(?![A-Za-z0-9_]))");
  static const std::regex word(R"([A-Za-z_][A-Za-z0-9_]*)");
  const std::string bare = std::regex_replace(text, number, "$1 ");
  std::vector<std::string> out;
  for (auto it = std::sregex_iterator(bare.begin(), bare.end(), word); it != std::sregex_iterator(); ++it)
    out.push_back(it->str());
  return out;
}

// The ASCII words of every Chinese text: code and flags the translation keeps.
const std::set<std::string>& chinese_tables_words() {
  static const std::set<std::string> words = [] {
    std::set<std::string> w;
    const LangTable& zh = lang_zh();
    const auto add = [&](const std::string& s) {
      for (auto& x : ascii_words(s)) w.insert(x);
    };
    for (const auto& [key, text] : zh.ui) add(text);
    for (const auto& [key, text] : zh.checks) add(text);
    for (const auto& [key, text] : zh.steps) add(text.title + " " + text.explanation);
    return w;
  }();
  return words;
}

// Names from the learner's data and the tool's ids: every stage's step names, the stages, the
// mistakes' ids, the tokens.
std::set<std::string> data_words(const Config& cfg, const std::vector<CheckReport>& reports) {
  std::set<std::string> w;
  const auto add = [&](const std::string& s) {
    for (auto& x : ascii_words(s)) w.insert(x);
  };
  for (const auto& r : reports)
    for (const auto& s : r.results) add(s.name);
  for (const auto& s : all_stages()) add(s.name);
  for (const auto& m : known_mistakes()) add(m.id);
  for (const auto& t : cfg.tokens) add(t);
  return w;
}

// Every English word of `text` (a Chinese report): none, or the test fails naming them.
void expect_no_english(const std::string& text, const std::set<std::string>& data, const std::string& what) {
  const std::set<std::string>& tables = chinese_tables_words();
  std::set<std::string> english;
  for (const auto& w : ascii_words(text))
    if (!tables.count(w) && !data.count(w) && w.find_first_of("_0123456789") == std::string::npos) english.insert(w);
  EXPECT_TRUE(english.empty()) << what << ": English words " << ::testing::PrintToString(english) << " in\n"
                               << text;
  // The statuses, as English writes them, in particular.
  for (const char* key : {"check.equal", "check.close", "check.differs", "check.not_given"}) {
    const std::string en = ui_text(Lang::En, key), zh = ui_text(Lang::Zh, key);
    EXPECT_NE(en, zh) << key;
    EXPECT_EQ(text.find(" " + en + " "), std::string::npos) << what << ": " << en;
    EXPECT_EQ(text.find(" " + en + "\n"), std::string::npos) << what << ": " << en;
  }
}

// The HTML report's text (what a notebook shows), its tags and style left out.
std::string html_text(const std::string& html) {
  static const std::regex style(R"(<style>[\s\S]*?</style>)"), tag(R"(<[^>]*>)");
  std::string text = std::regex_replace(std::regex_replace(html, style, " "), tag, " ");
  for (const auto& [entity, ch] : {std::pair<std::string, std::string>{"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}, {"&amp;", "&"}})
    for (size_t at = text.find(entity); at != std::string::npos; at = text.find(entity, at))
      text.replace(at, entity.size(), ch);
  return text;
}

// The human-readable fields of the JSON report (each diagnosis's message) are Chinese too.
void expect_json_messages_chinese(const CheckReport& r, const Config& cfg, const std::string& what) {
  const auto doc = nlohmann::json::parse(render_check_json(r, Lang::Zh));
  for (const auto& d : doc["diagnoses"]) expect_no_english(d["message"].get<std::string>(), data_words(cfg, {r}), what);
}

TEST(CheckZh, EveryChapterReportWithADiagnosisIsChinese) {
  const auto manifest = test::load_json(test::kCheckDir + "cases.json");
  size_t reports = 0;
  for (const auto& entry : manifest) {
    const Config cfg = test::config_from_golden(entry);
    for (const auto& c : entry["cases"]) {
      if (c["diagnosis"].is_null() && !c["mistake"].is_null()) continue;
      const std::string path = test::kCheckDir + c["dump"].get<std::string>();
      const CheckReport r =
          check_dump(parse_dump(test::read_all(path), path), cfg, c["stage"], "option", Tolerance{}, path);
      expect_no_english(render_check_text(r, Lang::Zh), data_words(cfg, {r}), path);
      expect_no_english(html_text(render_check_html(r, Lang::Zh)), data_words(cfg, {r}), path + " (html)");
      expect_json_messages_chinese(r, cfg, path);
      ++reports;
    }
  }
  EXPECT_GT(reports, 300u);
}

TEST(CheckZh, EveryWholeNotebookReportIsChinese) {
  const std::string dir = test::tests_dir() + "/golden/check_notebook/";
  const Config cfg = test::book_config();
  const auto manifest = test::load_json(dir + "cases.json");
  ASSERT_GE(manifest["cases"].size(), 6u);
  for (const auto& c : manifest["cases"]) {
    const std::string path = dir + c["dump"].get<std::string>();
    const NotebookStages whole = notebook_stages(load_dump(path), cfg);
    ASSERT_GT(whole.stages.size(), 1u) << path;
    std::vector<CheckReport> reports;
    for (size_t k = 0; k < whole.stages.size(); ++k)
      reports.push_back(check_dump(whole.dumps[k], cfg, enum_name(whole.stages[k]), "notebook", Tolerance{}, path, &whole));
    expect_no_english(notebook_check_text(reports, Lang::Zh, render_check_text), data_words(cfg, reports), path);
    expect_no_english(html_text(notebook_check_html(reports, Lang::Zh, render_check_html)), data_words(cfg, reports),
                      path + " (html)");
  }
}

TEST(CheckZh, EveryGptReportIsChinese) {
  const std::string dir = test::tests_dir() + "/golden/learner_gpt/";
  for (const auto& c : test::load_json(dir + "cases.json")) {
    WalkRequest req;
    req.stage = StageChoice::Gpt;
    req.gpt.weights_path = test::tests_dir() + "/data/gpt/" + c["weights"].get<std::string>();
    req.heads = 2;  // the test models' (the book's files cannot tell it)
    req.heads_given = true;
    req.keep_all_values = true;
    const Config cfg = make_config(req, load_input(req));
    const std::string path = dir + c["dump"].get<std::string>();
    const CheckReport r = check_dump(parse_dump(test::read_all(path), path), cfg, "gpt", "option", Tolerance{}, path);
    expect_no_english(render_check_text(r, Lang::Zh), data_words(cfg, {r}), path);
    expect_json_messages_chinese(r, cfg, path);
  }
}

// The failures a check reports, without failing this test.
size_t failures_of(const std::function<void()>& check) {
  ::testing::TestPartResultArray results;
  {
    const ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &results);
    check();
  }
  return static_cast<size_t>(results.size());
}

// The test can fail: an English status, as a renderer that forgot the table would write it, or
// an English text behind a Chinese one.
TEST(CheckZh, AnEnglishWordIsFound) {
  EXPECT_EQ(failures_of([] { expect_no_english("✓ queries  相同\n", {"queries"}, "made up"); }), 0u);
  EXPECT_EQ(failures_of([] { expect_no_english("✓ queries  equal\n", {"queries"}, "made up"); }), 2u);
  EXPECT_EQ(failures_of([] { expect_no_english("✗ queries  不同 (largest difference 0.5)\n", {"queries"}, "made up"); }),
            1u);
}

}  // namespace
}  // namespace attn
