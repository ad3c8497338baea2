// The page for a learner who has never seen it (issue 42), what of it is C++: the engine's
// errors said in plain words and in the page's language with the option they are about
// (web/page_errors), the values a walk used for the page's boxes (web/walk_values), the
// bonus stages' sizes in the page's header, the losses' plot titled and sized by its box, and
// one-glyph heatmap column labels upright. The messages come from the real parser and loader.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "request/option_table.h"
#include "request/request.h"
#include "render/render.h"
#include "render/series_svg.h"
#include "test_util.h"
#include "web/page_errors.h"
#include "web/walk_values.h"
#include "weights/gpt_weights.h"

namespace attn {
namespace {

// The message the walk of these arguments (and embeddings as JSON text) is refused with.
std::string refusal(const std::vector<std::string>& args, const std::string& input = "") {
  try {
    WalkRequest r = parse_walk_options(args).walk;
    r.input_json = input;
    RenderOptions ro;
    make_walks(r, &ro);
  } catch (const UsageError& e) {
    return e.what();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(PageTour, HeadsThatDoNotDivideDOutAreSaidPlainlyInBothLanguages) {
  const std::string m = refusal({"--stage", "multi-head", "--heads", "3"});
  ASSERT_FALSE(m.empty());
  const PageError en = page_error(m, Lang::En), zh = page_error(m, Lang::Zh);
  EXPECT_EQ(en.option, "heads");
  EXPECT_EQ(zh.option, "heads");
  EXPECT_NE(en.text.find("d_out 2 cannot be split into 3 heads"), std::string::npos) << en.text;
  EXPECT_NE(zh.text.find("d_out 2 无法平均分成 3 个头"), std::string::npos) << zh.text;
  // The bonus stages' own message says the same.
  const PageError bonus = page_error(refusal({"--stage", "flash", "--heads", "3"}), Lang::Zh);
  EXPECT_EQ(bonus.option, "heads");
  EXPECT_NE(bonus.text.find("d_out 8 无法平均分成 3 个头"), std::string::npos) << bonus.text;
}

TEST(PageTour, RangesChoicesAndTheQueryAreTranslated) {
  const PageError range = page_error(refusal({"--dropout", "1.5", "--stage", "dropout"}), Lang::Zh);
  EXPECT_EQ(range.option, "dropout");
  EXPECT_NE(range.text.find("0 到 1 之间的数"), std::string::npos) << range.text;
  EXPECT_NE(range.text.find("1.5"), std::string::npos) << range.text;
  const PageError word = page_error(refusal({"--heads", "two"}), Lang::Zh);
  EXPECT_EQ(word.option, "heads");
  EXPECT_NE(word.text.find("'two' 不是数字"), std::string::npos) << word.text;
  const PageError query = page_error(refusal({"--query", "9"}), Lang::Zh);
  EXPECT_EQ(query.option, "query");
  EXPECT_NE(query.text.find("1 到 6"), std::string::npos) << query.text;
  const PageError choice = page_error(refusal({"--init", "zeros"}), Lang::Zh);
  EXPECT_EQ(choice.option, "init");
  EXPECT_NE(choice.text.find("不是可选值"), std::string::npos) << choice.text;
  // A message of no known kind: its words, introduced in Chinese, and the option it names first.
  const PageError other = page_error(refusal({"--stage", "backward", "--text", "the cat", "--embed-dim", "100"}), Lang::Zh);
  EXPECT_EQ(other.option, "stage");
  EXPECT_EQ(other.text.rfind("这个设置无法使用（原文）：--stage backward with --text", 0), 0u) << other.text;
  // No English sentence is left in a Chinese message of a known kind.
  for (const auto* t : {&range.text, &word.text, &query.text})
    EXPECT_EQ(t->find(" must "), std::string::npos) << *t;
}

TEST(PageTour, JsonErrorsNameTheProblemInPlainWords) {
  const std::string m = refusal({}, "{\"tokens\": [\"a\"], \"embeddings\": [[1, hello]]}");
  ASSERT_NE(m.find("invalid literal"), std::string::npos) << m;  // the CLI's words, unchanged
  const PageError en = page_error(m, Lang::En), zh = page_error(m, Lang::Zh);
  EXPECT_EQ(en.option, "input");
  EXPECT_EQ(en.text.find("invalid literal"), std::string::npos) << en.text;
  EXPECT_EQ(en.text.find("last read"), std::string::npos) << en.text;
  EXPECT_NE(en.text.find("line 1, column "), std::string::npos) << en.text;
  EXPECT_NE(en.text.find("JSON cannot read what starts with 'h' here"), std::string::npos) << en.text;
  EXPECT_NE(zh.text.find("第 1 行第"), std::string::npos) << zh.text;
  EXPECT_NE(zh.text.find("JSON 读不懂这里以 'h' 开头的内容"), std::string::npos) << zh.text;
  const PageError cut = page_error(refusal({}, "[[1, 2], [3, 4]"), Lang::En);
  EXPECT_NE(cut.text.find("ends too early"), std::string::npos) << cut.text;
}

TEST(PageTour, TheBonusStagesShowTheSizesTheyUse) {
  WalkRequest r = parse_walk_options({"--stage", "flash"}).walk;
  RenderOptions ro;
  const auto walks = make_walks(r, &ro);
  const auto v = walk_values(walks);
  EXPECT_EQ(v["used"]["d-out"], "8");
  EXPECT_EQ(v["used"]["heads"], "4");
  EXPECT_EQ(v["defaults"]["d-out"], "8");
  EXPECT_EQ(v["tokens"], 6);
  const std::string body = render_html_body(walks, ro);
  EXPECT_NE(body.find("d_out 8 \xC2\xB7 heads 4"), std::string::npos);
  // The chapter's stages: their own 2 and 2, no other defaults.
  WalkRequest c = parse_walk_options({"--stage", "causal"}).walk;
  const auto chapter = walk_values(make_walks(c, &ro));
  EXPECT_EQ(chapter["used"]["d-out"], "2");
  EXPECT_TRUE(chapter["defaults"].empty());
}

// A trained model's walk (--stage gpt) heads its page with the model's own sizes, as read from the
// file (GPT_CONFIG_124M's names), and the block and head it opens, under chapter 4: not chapter
// 3's seeds, d_out, heads and dropout, which it does not use.
TEST(PageTour, TheGptWalksHeaderShowsTheModelsOwnSizes) {
  const std::string file = test::tests_dir() + "/data/gpt/hf/model.safetensors";
  const GptConfig m = load_gpt_weights(file, std::nullopt).cfg;  // its heads from the config.json beside it
  const std::string sizes = fmt::format(
      "emb_dim {} \xC2\xB7 n_layers {} \xC2\xB7 n_heads {} \xC2\xB7 head_dim {} \xC2\xB7 context_length {} \xC2\xB7 vocab_size {}",
      m.emb_dim, m.n_layers, m.n_heads, m.emb_dim / m.n_heads, m.context_length, m.vocab_size);
  for (const char* lang : {"en", "zh"}) {
    SCOPED_TRACE(lang);
    WalkRequest r = parse_walk_options({"--stage", "gpt", "--weights", file, "--layer", "1", "--head", "0",
                                        "--max-new-tokens", "2", "--lang", lang})
                        .walk;
    r.explain = true;
    r.keep_all_values = true;
    RenderOptions ro;
    const auto walks = make_walks(r, &ro);
    const std::string body = render_html_body(walks, ro);
    const std::string header = body.substr(0, body.find("</header>"));
    EXPECT_NE(header.find(sizes + " \xC2\xB7 --layer 1 \xC2\xB7 --head 0 \xC2\xB7 --max-new-tokens 2"), std::string::npos) << header;
    EXPECT_EQ(header.find("d_out"), std::string::npos) << header;
    EXPECT_EQ(header.find("seed"), std::string::npos) << header;
    EXPECT_EQ(header.find("dropout"), std::string::npos) << header;
    const bool zh = std::string(lang) == "zh";
    EXPECT_NE(header.find(zh ? "\xE7\xAC\xAC 4 \xE7\xAB\xA0" : "chapter 4"), std::string::npos) << header;  // 第 4 章
    EXPECT_NE(header.find(zh ? "\xE6\xA8\xA1\xE5\x9E\x8B" : ">model"), std::string::npos) << header;        // 模型
  }
  // Without --layer: the sizes alone. A chapter-3 stage keeps its settings line and chapter 3.
  WalkRequest plain = parse_walk_options({"--stage", "gpt", "--weights", file}).walk;
  RenderOptions ro;
  const std::string body = render_html_body(make_walks(plain, &ro), ro);
  EXPECT_NE(body.find(sizes + "</p>"), std::string::npos);
  const std::string causal = render_html_body(make_walks(parse_walk_options({"--stage", "causal"}).walk, &ro), ro);
  EXPECT_NE(causal.find("seed 123 / 789 \xC2\xB7 d_out 2"), std::string::npos);
  EXPECT_NE(causal.find("chapter 3"), std::string::npos);
}

// --stage gpt's refusals (a block or head the model does not have, --head without --layer, a text
// past its context) in the page's language and plain words, with the option to mark; the
// numbers are the model's own, from the refusal.
TEST(PageTour, GptRefusalsAreSaidInThePagesLanguage) {
  const std::string file = test::tests_dir() + "/data/gpt/hf/model.safetensors";
  const GptConfig m = load_gpt_weights(file, std::nullopt).cfg;
  const std::vector<std::string> gpt = {"--stage", "gpt", "--weights", file};
  const auto with = [&](std::vector<std::string> more) { more.insert(more.begin(), gpt.begin(), gpt.end()); return more; };
  const std::string blocks = refusal(with({"--layer", std::to_string(m.n_layers + 3)}));
  const std::string heads = refusal(with({"--layer", "0", "--head", std::to_string(m.n_heads)}));
  const std::string alone = refusal(with({"--head", "0"}));
  std::string words;
  for (int64_t i = 0; i <= m.context_length; ++i) words += " you";
  const std::string longer = refusal(with({"--text", words}));
  ASSERT_FALSE(blocks.empty() || heads.empty() || alone.empty() || longer.empty());
  const std::string n = std::to_string(m.n_layers), h = std::to_string(m.n_heads);
  const std::string last = std::to_string(m.n_layers - 1), last_head = std::to_string(m.n_heads - 1);
  const std::string past = std::to_string(m.n_layers + 3), ctx = std::to_string(m.context_length);
  struct Want {
    std::string message, option, en, zh;
  };
  const std::vector<Want> wants = {
      {blocks, "layer", "--layer: the model has " + n + " blocks, numbered 0 to " + last + "; " + past + " is not one of them",
       "--layer\xEF\xBC\x9A\xE6\xA8\xA1\xE5\x9E\x8B\xE6\x9C\x89 " + n + " \xE4\xB8\xAA\xE5\x9D\x97"},  // 模型有 n 个块
      {heads, "head", "--head: the model has " + h + " heads, numbered 0 to " + last_head + "; " + h + " is not one of them",
       "--head\xEF\xBC\x9A\xE6\xA8\xA1\xE5\x9E\x8B\xE6\x9C\x89 " + h + " \xE4\xB8\xAA\xE5\xA4\xB4"},            // 模型有 h 个头
      {alone, "head", "--head: choose a block first (--layer)", "--head\xEF\xBC\x9A\xE8\xAF\xB7\xE5\x85\x88"},  // 请先
      {longer, "text", "more than the model's context of " + ctx + " tokens",
       "\xE4\xB8\x8A\xE4\xB8\x8B\xE6\x96\x87\xE9\x95\xBF\xE5\xBA\xA6 " + ctx},  // 上下文长度
  };
  for (const Want& w : wants) {
    SCOPED_TRACE(w.message);
    const PageError en = page_error(w.message, Lang::En), zh = page_error(w.message, Lang::Zh);
    EXPECT_EQ(en.option, w.option);
    EXPECT_EQ(zh.option, w.option);
    EXPECT_NE(en.text.find(w.en), std::string::npos) << en.text;
    EXPECT_NE(zh.text.find(w.zh), std::string::npos) << zh.text;
    EXPECT_EQ(zh.text.find("the model"), std::string::npos) << zh.text;
  }
}

TEST(PageTour, TheLossesPlotHasTitledAxesAndNoFixedSize) {
  Step s = test::make_step("losses", Tensor({3}, {2.0f, 1.5f, 1.0f}));
  s.role = Role::Series;
  const std::string svg = series_svg(s, "training step", "loss");
  const std::string tag = svg.substr(0, svg.find('>'));
  EXPECT_EQ(tag.find(" width=\""), std::string::npos) << tag;  // the page's CSS sizes it
  EXPECT_EQ(tag.find(" height=\""), std::string::npos) << tag;
  EXPECT_NE(svg.find("viewBox=\"0 0 480 "), std::string::npos);
  EXPECT_NE(svg.find(">training step</text>"), std::string::npos);
  EXPECT_NE(svg.find(">loss</text>"), std::string::npos);
}

}  // namespace
}  // namespace attn
