// Every text a learner reads comes from src/lang/: every step of every stage has a
// title and an explanation in every language, for configurations that add steps
// (qkv_bias) or change what a step means (dropout 0 and 1, attention dropout, scores
// that cannot overflow); every check has a label; no placeholder is left unfilled;
// a language that lacks a text falls back to English.
#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "input/embeddings.h"
#include "lang/lang.h"
#include "lang/parts.h"
#include "render/details.h"
#include "stages/stages.h"
#include "weights/gpt_weights.h"
#include "stages/tokens.h"
#include "text/text_embeddings.h"
#include "test_util.h"

namespace attn {
namespace {

struct Named {
  std::string name;
  Config cfg;
};

std::vector<Named> configs() {
  std::vector<Named> out;
  out.push_back({"book", test::book_config()});
  Config c = test::book_config();
  c.qkv_bias = true;
  c.seed1 = c.seed2 = 42;
  out.push_back({"qkv_bias", c});
  c = test::book_config();
  c.dropout = 0.0;
  c.d_out = 3;
  c.heads = 1;
  out.push_back({"dropout0_one_head", c});
  c = test::book_config();
  c.dropout = 1.0;
  c.attn_dropout = 0.2;
  c.query = 5;
  c.batch = 1;
  out.push_back({"dropout1_attn_dropout", c});
  c = test::book_config();
  c.init = InitKind::Randn;
  c.d_out = 4;
  c.heads = 4;
  c.attn_dropout = 0.5;
  c.qkv_bias = true;
  out.push_back({"randn_bias_attn_dropout", c});
  // Heavy dropout empties several rows (the row sums' "zero_rows" text).
  c = test::book_config();
  c.dropout = 0.9;
  c.train.optimizer = OptimizerKind::SGD;  // the backward stage's SGD texts
  out.push_back({"dropout09", c});
  // All-zero embeddings: no scale makes exp overflow (the softmax stage's variant texts).
  c = Config{};
  c.inputs = Tensor::zeros({3, 2});
  c.tokens = {"x1", "x2", "x3"};
  c.query = 1;
  out.push_back({"zeros", c});
  // Embeddings so large that float32 overflows in the scores: texts that hold only for finite
  // numbers give way to their "nonfinite" variants (the backward stage's).
  c = Config{};
  c.inputs = Tensor({3, 2}, {3e38f, -3e38f, 3e38f, 0.5f, 0.3f, 0.1f});
  c.tokens = {"x1", "x2", "x3"};
  c.query = 1;
  out.push_back({"overflow", c});
  // A single token.
  c = Config{};
  c.inputs = Tensor({1, 4}, {0.1f, -0.2f, 0.3f, 0.4f});
  c.tokens = {"x1"};
  c.query = 1;
  c.d_out = 2;
  c.heads = 2;
  out.push_back({"one_token", c});
  // The bonus stages' own sizes: one key/value group for 3 heads of 4 dimensions.
  c = test::book_config();
  c.bonus.d_out = 12;
  c.bonus.heads = 3;
  c.bonus.kv_groups = 1;
  c.qkv_bias = true;
  out.push_back({"bonus_one_group", c});
  // d_in == d_out, as the bonus notebook runs its modules: efficient's nn.MultiheadAttention,
  // without and with biases (add_bias_kv's extra key).
  c = test::book_config();
  c.inputs = Tensor({6, 4}, {0.43f, 0.15f, 0.89f, -0.1f, 0.55f, 0.87f, 0.66f, 0.2f, 0.57f, 0.85f, 0.64f, -0.3f,
                             0.22f, 0.58f, 0.33f, 0.4f, 0.77f, 0.25f, 0.10f, -0.5f, 0.05f, 0.80f, 0.55f, 0.1f});
  c.bonus.d_out = 4;
  c.bonus.heads = 2;
  c.bonus.kv_groups = 1;
  c.bonus.latent_dim = 8;  // mla: as many numbers as a token's keys and values, no saving
  out.push_back({"bonus_square", c});
  c.qkv_bias = true;
  out.push_back({"bonus_square_bias", c});
  return out;
}

// Every walk of every config, run once.
const std::vector<std::pair<std::string, Walk>>& all_walks() {
  static const auto walks = [] {
    std::vector<std::pair<std::string, Walk>> out;
    for (const auto& [name, cfg] : configs())
      for (const auto& s : all_stages()) out.emplace_back(name, s.run(cfg));
    // --text: chapter 2's steps from a sentence to its embeddings (texts "text/<step>").
    const auto e = text::embed_text("Your journey starts with one step", "--text", 3, 123, 1024);
    Config c;
    c.tokens = e.pieces;
    c.inputs = e.input_embeddings;
    out.emplace_back("text", run_text_steps(e, c));
    c.text = e.text;  // the tokens stage on the learner's text (texts "tokens/<step>#text")
    out.emplace_back("text", find_stage("tokens")->run(c));
    c.token_ids = e.ids;  // the backward stage on a text (texts "backward/<step>#text", the embeddings')
    c.train.steps = 2;
    out.emplace_back("text", find_stage("backward")->run(c));
    // The gpt stage on the book's test model, a block opened, a head alone, two new tokens.
    Config g = c;
    g.gpt.params = std::make_shared<const GptParams>(
        load_gpt_weights(test::tests_dir() + "/data/gpt/book.safetensors", 2));
    g.gpt.layer = 1;
    g.gpt.head = 0;
    g.gpt.max_new_tokens = 2;
    out.emplace_back("gpt", find_stage("gpt")->run(g));
    out.emplace_back("gpt", find_stage("multi-head")->run(g));  // --weights: block 1's MultiHeadAttention
    return out;
  }();
  return walks;
}

const std::regex kPlaceholder(R"(\{[A-Za-z_][A-Za-z0-9_:]*\})");

bool has_placeholder(const std::string& s) { return std::regex_search(s, kPlaceholder); }

bool has_cjk(const std::string& s) {
  // Any code point in U+4E00..U+9FFF: UTF-8 lead byte 0xE4..0xE9.
  for (unsigned char ch : s)
    if (ch >= 0xE4 && ch <= 0xE9) return true;
  return false;
}

// The variant localize() picks: the one its stage set (Step::variant).
std::string variant_of(const Walk&, const Step& step) { return step.variant; }

TEST(Lang, CodesAndParsing) {
  EXPECT_EQ(lang_codes(), (std::vector<std::string>{"en", "zh"}));
  Lang l = Lang::En;
  EXPECT_TRUE(parse_lang("zh", &l));
  EXPECT_EQ(l, Lang::Zh);
  EXPECT_TRUE(parse_lang("en", &l));
  EXPECT_EQ(l, Lang::En);
  EXPECT_FALSE(parse_lang("fr", &l));
  EXPECT_FALSE(parse_lang("", &l));
  EXPECT_EQ(&lang_table(Lang::En), &lang_en());
  EXPECT_EQ(&lang_table(Lang::Zh), &lang_zh());
  EXPECT_EQ(lang_en().code, "en");
  EXPECT_EQ(lang_zh().code, "zh");
}

// Every step of every stage, in every config, has its own text in BOTH languages (not
// only through the fallback), including the variant the config selects.
TEST(Lang, EveryStepHasTitleAndExplanationInEveryLanguage) {
  int steps = 0;
  for (const auto& [cfg_name, w] : all_walks())
    for (const auto& step : w.steps) {
      const std::string key = w.stage + "/" + step_text_name(step.name);  // trf_blocks.N.norm1
      const std::string variant = variant_of(w, step);
      SCOPED_TRACE(cfg_name + ": " + key + (variant.empty() ? "" : "#" + variant));
      for (const LangTable* t : languages()) {
        SCOPED_TRACE(t->code);
        const auto it = t->steps.find(variant.empty() ? key : key + "#" + variant);
        ASSERT_NE(it, t->steps.end());
        EXPECT_FALSE(it->second.title.empty());
        EXPECT_FALSE(it->second.explanation.empty());
        EXPECT_EQ(it->second.title.find('\n'), std::string::npos) << "a title is one line";
      }
      ++steps;
    }
  EXPECT_GT(steps, 500);
}

// A text variant is a field of its step (Step::variant), set by the stage that records it:
// localize() reads nothing else, so a variant left in the walk's vars would be lost quietly.
TEST(Lang, VariantsAreFieldsOfTheirSteps) {
  for (const auto& [cfg_name, w] : all_walks()) {
    SCOPED_TRACE(cfg_name + ": " + w.stage);
    for (const auto& [key, value] : w.vars) EXPECT_NE(key.rfind("variant", 0), 0u) << key;
    for (const auto& step : w.steps) EXPECT_EQ(step.vars.count("variant"), 0u) << step.name;
  }
}

// No key is dead: every text of every table belongs to a step, variant or check some
// configuration produces (a typo in a key would otherwise hide behind the fallback).
TEST(Lang, EveryKeyIsUsed) {
  std::set<std::string> step_keys, check_ids;
  for (const auto& [cfg_name, w] : all_walks()) {
    for (const auto& step : w.steps) {
      const std::string variant = variant_of(w, step);
      const std::string name = step_text_name(step.name);  // one text for every block
      step_keys.insert(w.stage + "/" + name + (variant.empty() ? "" : "#" + variant));
      if (!variant.empty()) step_keys.insert(w.stage + "/" + name);  // the plain text too
    }
    for (const auto& c : w.checks) check_ids.insert(c.id);
  }
  for (const LangTable* t : languages()) {
    SCOPED_TRACE(t->code);
    for (const auto& [key, text] : t->steps) EXPECT_TRUE(step_keys.count(key)) << key;
    for (const auto& [id, label] : t->checks) EXPECT_TRUE(check_ids.count(id)) << id;
    EXPECT_EQ(t->steps.size(), lang_en().steps.size());
    EXPECT_EQ(t->checks.size(), lang_en().checks.size());
    EXPECT_EQ(t->ui.size(), lang_en().ui.size());
  }
}

TEST(Lang, EveryCheckHasALabelInEveryLanguage) {
  int checks = 0;
  for (const auto& [cfg_name, w] : all_walks())
    for (const auto& c : w.checks) {
      SCOPED_TRACE(cfg_name + ": " + w.stage + " check " + c.id);
      for (const LangTable* t : languages()) {
        const auto it = t->checks.find(c.id);
        ASSERT_NE(it, t->checks.end()) << t->code;
        EXPECT_FALSE(it->second.empty());
      }
      ++checks;
    }
  EXPECT_GT(checks, 50);
}

TEST(Lang, RendererWordsStageSummariesAndNotesExistInEveryLanguage) {
  std::vector<std::string> keys = {"section", "input", "note", "max_diff", "step_prompt", "word.total",
                                   "note.dropout_kernel.default", "note.dropout_kernel.mkl"};
  for (const auto& s : all_stages()) keys.push_back(std::string("stage.") + s.name);
  for (const LangTable* t : languages())
    for (const auto& k : keys) EXPECT_TRUE(t->ui.count(k)) << t->code << ": " << k;
  EXPECT_EQ(ui_text(Lang::En, "max_diff"), "largest difference");
  EXPECT_EQ(ui_text(Lang::Zh, "max_diff"), "最大差值");
  EXPECT_EQ(ui_text(Lang::Zh, "no-such-key"), "no-such-key");
}

// After localize(), in either language: titles, explanations, labels, notes and details
// are filled, with every placeholder replaced; Chinese texts are Chinese.
TEST(Lang, LocalizeFillsEveryPlaceholder) {
  for (Lang lang : {Lang::En, Lang::Zh})
    for (const auto& [cfg_name, original] : all_walks()) {
      Walk w = original;
      localize(w, lang, /*explain=*/true);
      SCOPED_TRACE(cfg_name + "/" + w.stage + (lang == Lang::Zh ? " zh" : " en"));
      for (const auto& step : w.steps) {
        SCOPED_TRACE(step.name);
        EXPECT_FALSE(step.title.empty());
        EXPECT_FALSE(step.explanation.empty());
        EXPECT_FALSE(has_placeholder(step.title)) << step.title;
        EXPECT_FALSE(has_placeholder(step.explanation)) << step.explanation;
        for (const auto& line : detail_lines(step)) EXPECT_FALSE(has_placeholder(line)) << line;
        if (lang == Lang::Zh) EXPECT_TRUE(has_cjk(step.explanation)) << step.explanation;
      }
      for (const auto& c : w.checks) {
        EXPECT_NE(c.label, c.id);
        EXPECT_FALSE(has_placeholder(c.label)) << c.label;
        if (lang == Lang::Zh) EXPECT_TRUE(has_cjk(c.label)) << c.label;
      }
      for (const auto& note : w.notes) {
        EXPECT_EQ(note.rfind("note.", 0), std::string::npos) << "untranslated note key " << note;
        if (lang == Lang::Zh) EXPECT_TRUE(has_cjk(note)) << note;
      }
    }
}

TEST(Lang, PlaceholdersComeFromTheWalksVars) {
  Config c = test::book_config();
  c.query = 3;
  Walk w = run_dot_product(c);
  localize(w, Lang::En, true);
  EXPECT_EQ(w.steps[1].title, "the query x(3) = inputs[2]");
  EXPECT_NE(w.steps[2].explanation.find("ω3i = x(3) · x(i)"), std::string::npos) << w.steps[2].explanation;
  EXPECT_NE(w.steps[0].explanation.find("shape (6, 3)"), std::string::npos);

  Walk z = run_dot_product(c);
  localize(z, Lang::Zh, true);
  EXPECT_EQ(z.steps[1].title, "查询 x(3) = inputs[2]");

  EXPECT_EQ(fill_placeholders("{a} and {b}, {unknown} {", {{"a", "1"}, {"b", "x(2)"}}),
            "1 and x(2), {unknown} {");
  EXPECT_EQ(fill_placeholders("{{a}}", {{"a", "1"}}), "{1}");
}

// Where the configurations' numbers stop being finite: the one made to overflow float32, and
// the all-zero embeddings' naive normalisation (0 / 0), and nowhere else (the softmax stage's
// own overflow demonstration aside). So the note and the texts' qualifier show only there.
TEST(Lang, NumbersStopBeingFiniteOnlyWhereExpected) {
  std::set<std::string> got;
  for (const auto& [cfg_name, w] : all_walks()) {
    if (cfg_name == "overflow") continue;
    for (const auto& step : w.steps)
      if (holds_nonfinite(step)) got.insert(cfg_name + ": " + w.stage + "/" + step.name);
  }
  EXPECT_EQ(got, (std::set<std::string>{"zeros: softmax/attn_weights_2_tmp", "zeros: softmax/attn_weights_2_tmp_sum"}));
}

TEST(Lang, ExplanationsOnlyWithExplain) {
  Walk w = run_causal(test::book_config());
  localize(w, Lang::Zh, /*explain=*/false);
  for (const auto& step : w.steps) {
    EXPECT_FALSE(step.title.empty());
    EXPECT_TRUE(step.explanation.empty()) << step.name;
  }
}

TEST(Lang, VariantsFollowTheConfig) {
  Config c = test::book_config();
  c.dropout = 0.0;
  Walk w = run_dropout(c);
  localize(w, Lang::En, true);
  EXPECT_NE(w.steps[1].title.find("p = 0 keeps everything"), std::string::npos) << w.steps[1].title;
  c.dropout = 0.5;
  Walk d = run_dropout(c);
  localize(d, Lang::En, true);
  EXPECT_NE(d.steps[1].title.find("kept entries become 1/(1-p)"), std::string::npos);
  EXPECT_NE(d.steps[1].explanation.find("1/(1-p) = 2.0,"), std::string::npos) << d.steps[1].explanation;
}

// A language that lacks a text shows English there, and its own text everywhere else.
TEST(Lang, MissingTextsFallBackToEnglish) {
  LangTable partial;
  partial.code = "xx";
  partial.name = "partial";
  partial.steps["causal/mask"] = {"MASK {T}", "EXPLAINED"};
  partial.checks["causal_no_future_weight"] = "NO FUTURE";
  partial.ui["word.total"] = "TOTAL";
  Walk w = run_causal(test::book_config());
  localize(w, partial, lang_en(), true);
  for (const auto& step : w.steps) {
    if (step.name == "mask") {
      EXPECT_EQ(step.title, "MASK 6");
      EXPECT_EQ(step.explanation, "EXPLAINED");
    } else {
      StepText en;
      ASSERT_TRUE(find_step_text(lang_en(), lang_en(), "causal", step.name, "", &en));
      EXPECT_EQ(step.title, fill_placeholders(en.title, w.vars));
    }
  }
  for (const auto& c : w.checks)
    EXPECT_EQ(c.label, c.id == "causal_no_future_weight" ? "NO FUTURE" : lang_en().checks.at(c.id));

  // A variant only English has beats the language's plain text.
  partial.steps["dropout/dropout_ones"] = {"PLAIN", "PLAIN"};
  StepText t;
  ASSERT_TRUE(find_step_text(partial, lang_en(), "dropout", "dropout_ones", "p0", &t));
  EXPECT_EQ(t.title, lang_en().steps.at("dropout/dropout_ones#p0").title);
  ASSERT_TRUE(find_step_text(partial, lang_en(), "dropout", "dropout_ones", "", &t));
  EXPECT_EQ(t.title, "PLAIN");
  EXPECT_FALSE(find_step_text(partial, lang_en(), "dropout", "no_such_step", "", &t));

  // Words in step details fall back too.
  Walk m = run_multi_head(test::book_config());
  localize(m, partial, lang_en(), false);
  EXPECT_EQ(detail_lines(m.steps.back()).back(), "  TOTAL = 2,360,064");
}

// Feature texts live in parts (src/lang/parts.cpp); a key given by two parts is a bug.
TEST(LangParts, DuplicateKeyThrows) {
  LangTable base{"en", "English", {}, {}, {{"word.x", "x"}}};
  EXPECT_NO_THROW(with_parts(base));
  LangTable dup = base;
  for (const auto& part : lang_parts()) {
    if (std::string(part.code) != "en") continue;
    const LangTable t = part.texts();
    if (!t.ui.empty()) {
      dup.ui[t.ui.begin()->first] = "again";
      EXPECT_THROW(with_parts(dup), std::logic_error);
    }
  }
}

}  // namespace
}  // namespace attn
