// The weights readers' errors in the learner's language: each has an id (src/weights/
// weights_errors.cpp, its English template) and its texts in every language
// (src/lang/weights_errors_*.cpp); --stage gpt and check --stage gpt say them in --lang's, with
// the exit codes and the output they always had (1 for a bad file, 2 when --heads is needed,
// nothing on stdout). Every error a test triggers is also said in Chinese without an English word
// (test_weights_util.h's expect_said_in_chinese, run by every expect_weights_error).
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>
#include <vector>

#include "lang/lang.h"
#include "lang/weights_errors.h"
#include "run_process.h"
#include "test_util.h"
#include "test_weights_util.h"
#include "weights/gpt_weights.h"
#include "weights/weights_errors.h"

namespace attn {
namespace {

std::set<std::string> placeholders(const std::string& text) {
  static const std::regex placeholder(R"(\{([a-z_]+)\})");
  std::set<std::string> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), placeholder); it != std::sregex_iterator(); ++it)
    out.insert((*it)[1]);
  return out;
}

// English is the reader's own template, and every language says each message with the same
// placeholders.
TEST(WeightsZh, EveryMessageHasItsTextInEveryLanguage) {
  ASSERT_GT(weights_error_templates().size(), 100u);
  for (const auto& [id, english] : weights_error_templates()) {
    SCOPED_TRACE(id);
    EXPECT_EQ(ui_text(Lang::En, "weights.err." + id), english);
    for (const LangTable* t : languages()) {
      const auto it = t->ui.find("weights.err." + id);
      ASSERT_NE(it, t->ui.end()) << t->code;
      EXPECT_EQ(placeholders(it->second), placeholders(english)) << t->code;
    }
  }
}

// The error load_gpt_weights gives for `path` (with `heads`).
WeightsError error_of(const std::string& path, std::optional<int64_t> heads = std::nullopt) {
  try {
    load_gpt_weights(path, heads);
  } catch (const WeightsError& e) {
    return e;
  }
  ADD_FAILURE() << path << " loaded";
  return WeightsError("");
}

// Through the binary: the walk and check say the reader's error in --lang's words, on stderr
// only, with exit 1 (2 when the head count needs --heads); English keeps the reader's message.
TEST(WeightsZh, TheCommandsSayTheReadersErrorInTheLearnersLanguage) {
  test::TempDir dir;
  const std::string dump = test::tests_dir() + "/golden/learner_gpt/book_correct_all.json";
  struct Bad {
    std::string path;
    int exit_code;
  };
  const std::string good = test::read_all(test::gpt_data("book.safetensors"));
  const std::vector<Bad> bad = {
      {dir.write("text.pth", "hello, I am not a model\n"), 1},
      {dir.file("missing.safetensors"), 1},
      {test::gpt_data("hf"), 1},  // a directory
      {dir.write("cut.safetensors", good.substr(0, good.size() - 1000)), 1},
      {test::gpt_data("book.safetensors"), 2},  // width 8: no GPT-2 head count, no config.json
  };
  for (const auto& b : bad) {
    SCOPED_TRACE(b.path);
    const WeightsError e = error_of(b.path);
    test::expect_said_in_chinese(e);
    for (const char* lang : {"zh", "en"}) {
      const std::string said = std::string(lang) == "zh" ? weights_error_text(Lang::Zh, e.id, e.vars, e.what()) : e.what();
      const Lang l = std::string(lang) == "zh" ? Lang::Zh : Lang::En;
      const std::string usage_tail = b.exit_code == 2 ? "\n" + ui_text(l, "cli.usage_hint") + "\n" : "\n";
      for (const auto& args : {std::vector<std::string>{"--stage", "gpt", "--weights", b.path, "--lang", lang},
                               std::vector<std::string>{"check", dump, "--stage", "gpt", "--weights", b.path, "--lang", lang}}) {
        const test::RunResult r = test::run_cli(args);
        EXPECT_EQ(r.exit_code, b.exit_code) << test::describe(r);
        EXPECT_EQ(r.out, "");
        EXPECT_EQ(r.err, ui_text(l, "cli.error") + said + usage_tail);
      }
    }
  }
}

}  // namespace
}  // namespace attn
