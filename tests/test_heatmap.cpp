// The terminal heatmap (src/render/heatmap_*.cpp): which steps get one, the shading and
// the colours, the masked and zero cells, token labels (CJK is two columns wide), and
// the summaries that keep big inputs small.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "input/embeddings.h"
#include "render/heatmap.h"
#include "render/render.h"
#include "stages/stages.h"
#include "test_util.h"

namespace attn {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

Config config_with_tokens(std::vector<std::string> tokens, int64_t d_in = 2) {
  Config c;
  const auto T = static_cast<int64_t>(tokens.size());
  c.tokens = std::move(tokens);
  std::vector<float> data(static_cast<size_t>(T * d_in));
  for (size_t i = 0; i < data.size(); ++i) data[i] = 0.1f * static_cast<float>(i % 7);
  c.inputs = Tensor({T, d_in}, data);
  return c;
}

Config config_of_size(int64_t T) {
  std::vector<std::string> tokens;
  for (int64_t i = 0; i < T; ++i) tokens.push_back("x" + std::to_string(i + 1));
  return config_with_tokens(tokens);
}

Tensor stacked(const Shape& lead, const Tensor& block, bool vary) {
  Shape shape = lead;
  shape.insert(shape.end(), block.shape.begin(), block.shape.end());
  std::vector<float> data;
  const int64_t copies = numel_of(lead);
  for (int64_t k = 0; k < copies; ++k)
    for (float v : block.data) data.push_back(vary && std::isfinite(v) && v != 0.0f ? v * (1.0f + 0.01f * k) : v);
  return Tensor(shape, data);
}

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string line;
  while (std::getline(ss, line)) out.push_back(line);
  return out;
}

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + needle.size())) ++n;
  return n;
}

RenderOptions plain() {
  RenderOptions o;
  o.heatmap = true;
  return o;
}

RenderOptions colored() {
  RenderOptions o = plain();
  o.color = true;
  return o;
}

// ------------------------------------------------------------------ the rule

TEST(WantsHeatmap, RolesAndShapes) {
  const Walk walk("test", config_of_size(3));
  const Tensor tt = Tensor::zeros({3, 3});
  // Attention matrices, in every layout the chapter uses: the role decides, not the name.
  for (const Role role : {Role::Scores, Role::Weights, Role::DroppedWeights, Role::MaskHidden, Role::MaskKept}) {
    EXPECT_TRUE(draws_heatmap(role));
    EXPECT_TRUE(wants_heatmap(walk, test::make_step("renamed", tt, role)));
  }
  for (const Role role : {Role::Value, Role::Parameter, Role::Series}) {
    EXPECT_FALSE(draws_heatmap(role));
    EXPECT_FALSE(wants_heatmap(walk, test::make_step("attn_weights", tt, role)));
  }
  EXPECT_TRUE(wants_heatmap(walk, test::make_step("attn_weights", Tensor::zeros({2, 3, 3}), Role::Weights)));
  EXPECT_TRUE(wants_heatmap(walk, test::make_step("attn_weights", Tensor::zeros({2, 4, 3, 3}), Role::Weights)));
  // Square by accident, or not (T, T) at all.
  for (const char* name : {"inputs", "a_at_a_T", "first_res", "sa_v1_output", "keys", "queries",
                           "row_sums", "context_vec", "W_query"})
    EXPECT_FALSE(wants_heatmap(walk, test::make_step(name, tt))) << name;
  EXPECT_FALSE(wants_heatmap(walk, test::make_step("attn_weights_row_sums", Tensor::zeros({3}))));
  EXPECT_FALSE(wants_heatmap(walk, test::make_step("attn_scores_2", Tensor::zeros({3}))));
  EXPECT_FALSE(wants_heatmap(walk, test::make_step("attn_weights", Tensor::zeros({3, 4}), Role::Weights)));
  EXPECT_FALSE(wants_heatmap(walk, test::make_step("attn_weights", Tensor::zeros({4, 4}), Role::Weights)));
  EXPECT_FALSE(wants_heatmap(walk, test::make_step("attn_weights", Tensor::zeros({1, 2, 2, 3, 3}), Role::Weights)));
  EXPECT_FALSE(wants_heatmap(walk, test::make_step("attn_weights", Tensor::scalar(1.0f), Role::Weights)));
  // T = 1: (T, 1) row sums are (1, 1) but are not attention.
  const Walk one("test", config_of_size(1));
  EXPECT_FALSE(wants_heatmap(one, test::make_step("row_sums", Tensor::zeros({1, 1}))));
  EXPECT_TRUE(wants_heatmap(one, test::make_step("attn_weights", Tensor::zeros({1, 1}), Role::Weights)));
}

// The chapter's own walks and the bonus stages: exactly the attention matrices get a heatmap
// (the roles their stages set; each stage's heatmap steps named here once).
TEST(WantsHeatmap, TheChaptersStages) {
  Config cfg;
  Embeddings emb = builtin_journey();
  cfg.tokens = emb.tokens;
  cfg.inputs = emb.inputs;
  const std::map<std::string, std::set<std::string>> expected = {
      {"dot-product", {"attn_scores", "attn_weights"}},
      {"softmax", {"attn_weights"}},
      // clang-format off
      {"causal", {"attn_scores", "attn_weights", "mask_simple", "masked_simple", "masked_simple_norm",
                  "mask", "masked", "attn_weights_causal"}},
      // clang-format on
      {"dropout", {"attn_weights_causal", "dropout_ones", "dropout_attn_weights"}},
      {"multi-head", {"attn_scores", "attn_scores_masked", "attn_weights"}},
      {"trainable", {}},
      {"tokens", {}},
      {"efficient", {"attn_scores", "attn_weights"}},
      {"kv-cache", {"attn_weights_cached"}},
      {"gqa", {"attn_scores", "attn_weights"}},
      {"swa", {"mask", "attn_scores_masked", "attn_weights"}},
      {"rope", {"attn_scores_masked", "attn_weights", "attn_scores_shifted"}},
      {"flash", {}},
      {"mla", {"attn_scores", "attn_weights"}},
      {"backward", {"attn_scores", "attn_scores_masked", "attn_weights", "attn_weights_untrained", "attn_weights_trained"}},
  };
  for (const auto& [stage, names] : expected) {
    SCOPED_TRACE(stage);
    const Walk walk = find_stage(stage)->run(cfg);
    std::set<std::string> got;
    for (const auto& s : walk.steps)
      if (wants_heatmap(walk, s)) got.insert(s.name);
    EXPECT_EQ(got, names);
  }
}

// ------------------------------------------------------------------ cells

TEST(Heatmap, NumbersMaskedAndZeroCellsWithoutColour) {
  Walk walk("test", config_with_tokens({"a", "b", "c"}));
  Tensor masked = test::causal_matrix(3, kNegInf);
  const std::string out = render_heatmap(walk, test::make_step("masked", masked, Role::Scores), plain());
  EXPECT_EQ(out.find('\033'), std::string::npos) << "no escape codes without colour";
  // Each cell: its number (2 decimals), then a shade; -inf is written out and marked ×.
  bool row1 = false, row3 = false;
  for (const auto& l : lines_of(out)) {
    if (l.rfind("1 a ", 0) == 0) row1 = l.substr(4) == "  1.00█  -inf×  -inf×";
    if (l.rfind("3 c ", 0) == 0) row3 = l.substr(4) == "  0.33▒  0.33▒  0.33▒";
  }
  EXPECT_TRUE(row1) << out;
  EXPECT_TRUE(row3) << out;
  EXPECT_NE(out.find("×× -inf (masked)"), std::string::npos) << out;
  EXPECT_EQ(out.find("exactly 0"), std::string::npos) << "no zero cells here";

  // After softmax the masked cells are exact zeros: "0 ·", never a small weight's "0.00".
  Tensor weights = test::causal_matrix(3, 0.0f);
  weights(2, 0) = 0.001f;  // a small weight, not zero
  const std::string w = render_heatmap(walk, test::make_step("attn_weights", weights, Role::Weights), plain());
  bool row1w = false, row3w = false;
  for (const auto& l : lines_of(w)) {
    if (l.rfind("1 a ", 0) == 0) row1w = l.substr(4) == "  1.00█     0·     0·";
    if (l.rfind("3 c ", 0) == 0) row3w = l.substr(4) == "  0.00░  0.33▒  0.33▒";
  }
  EXPECT_TRUE(row1w) << w;
  EXPECT_TRUE(row3w) << w;
  EXPECT_NE(w.find("·· exactly 0"), std::string::npos) << w;
  EXPECT_EQ(w.find("×"), std::string::npos) << w;
  // The column labels are written across, each over its own cell.
  EXPECT_NE(w.find("\n          a      b      c\n"), std::string::npos) << w;
}

TEST(Heatmap, CompactCellsWhenNumbersDoNotFit) {
  // 12 columns: 2-column shaded cells, positions across the top.
  std::vector<std::string> tokens;
  for (int i = 1; i <= 12; ++i) tokens.push_back("t" + std::to_string(i));
  Walk walk("test", config_with_tokens(tokens));
  const std::string out = render_heatmap(walk, test::make_step("attn_weights", test::causal_matrix(12, 0.0f), Role::Weights), plain());
  EXPECT_NE(out.find("\n 1 t1  ██······"), std::string::npos) << out;
  // Every column has its position, written downwards: 10, 11 and 12 in two lines, none left out.
  EXPECT_NE(out.find("\n" + std::string(7 + 9 * 2, ' ') + "1 1 1\n       1 2 3 4 5 6 7 8 9 0 1 2\n"),
            std::string::npos)
      << out;
  // Scores too wide for 5 characters also fall back.
  Walk w3("test", config_with_tokens({"a", "b", "c"}));
  Tensor big = test::causal_matrix(3, kNegInf);
  big(0, 0) = 1234.0f;
  EXPECT_NE(render_heatmap(w3, test::make_step("attn_scores", big, Role::Scores), plain()).find("1 a ██××××"), std::string::npos);
}

TEST(Heatmap, ColourUsesBackgroundsAndKeepsMarks) {
  Walk walk("test", config_with_tokens({"a", "b", "c"}));
  const std::string out = render_heatmap(walk, test::make_step("masked", test::causal_matrix(3, kNegInf), Role::Scores), colored());
  EXPECT_NE(out.find("\033[48;5;"), std::string::npos) << "256-colour backgrounds";
  // In the rows themselves: 1.0 and 1/2 are different colours, the masked cells have none.
  std::string row1, row2;
  for (const auto& l : lines_of(out)) {
    if (l.rfind("1 a ", 0) == 0) row1 = l;
    if (l.rfind("2 b ", 0) == 0) row2 = l;
  }
  ASSERT_NE(row1.find("\033[48;5;"), std::string::npos) << out;
  ASSERT_NE(row2.find("\033[48;5;"), std::string::npos) << out;
  EXPECT_NE(row1.substr(4, row1.find('m', 4) - 4), row2.substr(4, row2.find('m', 4) - 4)) << "1 and 1/2 look the same";
  EXPECT_NE(row1.find("m  1.00 \033[0;38;5;244m  -inf×  -inf×"), std::string::npos) << row1;
  EXPECT_NE(out.find("××"), std::string::npos) << "the legend keeps the masked glyph in colour";
  EXPECT_EQ(out.find("░"), std::string::npos) << "no shading ramp with colour";
  // Every line that sets a colour resets it.
  for (const auto& l : lines_of(out))
    if (l.find("\033[") != std::string::npos) EXPECT_NE(l.rfind("\033[0m"), std::string::npos) << l;
  // The same heatmap without colour has none.
  EXPECT_EQ(render_heatmap(walk, test::make_step("masked", test::causal_matrix(3, kNegInf), Role::Scores), plain()).find('\033'),
            std::string::npos);
}

TEST(Heatmap, NothingForOtherSteps) {
  Walk walk("test", config_with_tokens({"a", "b", "c"}));
  EXPECT_EQ(render_heatmap(walk, test::make_step("inputs", test::causal_matrix(3, 0)), plain()), "");
  EXPECT_EQ(render_heatmap(walk, test::make_step("attn_weights", Tensor::zeros({3}), Role::Weights), plain()), "");
}

TEST(Heatmap, NanAndPlusInfAreFlagged) {
  Walk walk("test", config_with_tokens({"a", "b"}));
  Tensor t = Tensor::zeros({2, 2});
  t(0, 0) = std::nanf("");
  t(0, 1) = std::numeric_limits<float>::infinity();
  t(1, 0) = 0.5f;
  t(1, 1) = 0.25f;
  const std::string out = render_heatmap(walk, test::make_step("attn_weights", t, Role::Weights), plain());
  EXPECT_NE(out.find("1 a    nan!   inf!"), std::string::npos) << out;
  EXPECT_NE(out.find("nan or +inf"), std::string::npos) << out;
  // The scale ignores them: scores span their finite values, weights the fixed 0..1.
  const HeatmapPlan plan = plan_heatmap(walk, test::make_step("attn_scores", t, Role::Scores), 32, 16);
  EXPECT_EQ(plan.lo, 0.0);
  EXPECT_EQ(plan.hi, 0.5);
  EXPECT_EQ(plan_heatmap(walk, test::make_step("attn_weights", t, Role::Weights), 32, 16).hi, 1.0);
}

TEST(Heatmap, ScaleIncludesZeroAndNegativeScores) {
  Walk walk("test", config_with_tokens({"a", "b"}));
  Tensor t({2, 2}, {-0.5f, 0.25f, 1.5f, kNegInf});
  const HeatmapPlan plan = plan_heatmap(walk, test::make_step("attn_scores", t, Role::Scores), 32, 16);
  EXPECT_EQ(plan.lo, -0.5);
  EXPECT_EQ(plan.hi, 1.5);
  EXPECT_TRUE(plan.has_masked);
  EXPECT_DOUBLE_EQ(cell_level(plan, -0.5f), 0.0);
  EXPECT_DOUBLE_EQ(cell_level(plan, 1.5f), 1.0);
  const std::string out = render_heatmap(walk, test::make_step("attn_scores", t, Role::Scores), plain());
  EXPECT_NE(out.find("░░ -0.5..0"), std::string::npos) << out;
  EXPECT_NE(out.find("██ 1..1.5"), std::string::npos) << out;
  // All equal: still a valid scale.
  const HeatmapPlan flat = plan_heatmap(walk, test::make_step("mask", Tensor::zeros({2, 2}), Role::MaskHidden), 32, 16);
  EXPECT_GT(flat.hi, flat.lo);
}

// ------------------------------------------------------------------ labels

TEST(Labels, DisplayWidth) {
  EXPECT_EQ(display_width("step"), 4);
  EXPECT_EQ(display_width("你好"), 4);
  EXPECT_EQ(display_width("ｆｕｌｌ"), 8);
  EXPECT_EQ(display_width("e\xCC\x81"), 1);  // e + combining acute
  EXPECT_EQ(display_width("한국어"), 6);
  EXPECT_EQ(glyphs("e\xCC\x81x").size(), 2u);
  EXPECT_EQ(fit_width("journey", 12), "journey");
  EXPECT_EQ(fit_width("supercalifragilistic", 8), "superca…");
  EXPECT_LE(display_width(fit_width("从零构建大语言模型", 7)), 7);
  EXPECT_EQ(fit_width("从零构建大语言模型", 7), "从零构…");
}

TEST(Labels, SanitizeControlCharactersAndBadUtf8) {
  EXPECT_EQ(sanitize_label("a\033[31mb"), "a?[31mb");
  EXPECT_EQ(sanitize_label("x\xFFy"), "x?y");
  EXPECT_EQ(sanitize_label("\xE2\x80\xAE"
                           "evil"),
            "?evil");  // right-to-left override
  EXPECT_EQ(sanitize_label(""), "\"\"");
  EXPECT_EQ(sanitize_label("你好"), "你好");
  Walk walk("test", config_with_tokens({"a\033[2Jb", "c"}));
  const std::string out = render_heatmap(walk, test::make_step("mask", test::causal_matrix(2, 0), Role::MaskHidden), plain());
  EXPECT_EQ(out.find('\033'), std::string::npos) << "a token cannot send escape codes";
}

// Where each cell column starts, in terminal columns: the same on every line.
TEST(Labels, CjkRowsAndColumnsLineUp) {
  Walk walk("test", config_with_tokens({"你的", "a", "一个很长很长的中文词元", "step", "ｆｕｌｌ"}));
  const std::string out = render_heatmap(walk, test::make_step("attn_weights", test::causal_matrix(5, 0), Role::Weights), plain());
  const auto lines = lines_of(out);
  // Rows: every row is the label prefix and then 5 cells of 7 columns.
  std::vector<int> starts;
  for (const auto& l : lines)
    if (l.size() > 2 && std::isdigit(static_cast<unsigned char>(l[0]))) starts.push_back(display_width(l) - 35);
  ASSERT_EQ(starts.size(), 5u) << out;
  for (int s : starts) EXPECT_EQ(s, starts[0]) << out;
  // The long token is cut to 12 columns in its row label.
  EXPECT_NE(out.find("一个很长很…"), std::string::npos) << out;
  // Column labels across one line, each right-aligned over its 7-column cell (cut to 6).
  std::string header;
  for (const auto& l : lines)
    if (!l.empty() && l[0] == ' ' && l.find("你的") != std::string::npos) header = l;
  ASSERT_FALSE(header.empty()) << out;
  const auto end_of = [&](const std::string& label) {
    return display_width(header.substr(0, header.find(label))) + display_width(label);
  };
  EXPECT_EQ(end_of("你的"), starts[0] + 7);
  EXPECT_EQ(end_of("a"), starts[0] + 14);
  EXPECT_EQ(end_of("一个…"), starts[0] + 21) << header;
  EXPECT_EQ(end_of("step"), starts[0] + 28);
  EXPECT_EQ(end_of("ｆｕ…"), starts[0] + 35) << header;
}

TEST(Labels, ChineseCaptionsAndLegend) {
  Walk walk("test", config_with_tokens({"你", "好"}));
  RenderOptions o = plain();
  o.lang = Lang::Zh;
  const std::string out = render_heatmap(walk, test::make_step("attn_weights", stacked({1, 2}, test::causal_matrix(2, 0), true), Role::Weights), o);
  EXPECT_NE(out.find("批次 0，头 1："), std::string::npos) << out;
  EXPECT_NE(out.find("色标（所有权重和掩码共用）："), std::string::npos) << out;
  EXPECT_NE(out.find("恰好为 0"), std::string::npos) << out;
}

// ------------------------------------------------------------------ blocks and summaries

TEST(Blocks, MultiHeadBlocksAreLabelled) {
  Walk walk("test", config_with_tokens({"a", "b", "c"}));
  const Step step = test::make_step("attn_weights", stacked({2, 2}, test::causal_matrix(3, 0), true), Role::Weights);
  const HeatmapPlan plan = plan_heatmap(walk, step, 32, 16);
  ASSERT_EQ(plan.blocks.size(), 4u);
  EXPECT_TRUE(plan.repeated_batches.empty());
  EXPECT_EQ(plan.blocks[3].batch, 1);
  EXPECT_EQ(plan.blocks[3].head, 1);
  EXPECT_EQ(plan.blocks[3].offset, 27u);
  const std::string out = render_heatmap(walk, step, plain());
  for (const char* c : {"batch 0, head 0:", "batch 0, head 1:", "batch 1, head 0:", "batch 1, head 1:"})
    EXPECT_NE(out.find(c), std::string::npos) << c;
  // (B, T, T): "batch b".
  const std::string three = render_heatmap(walk, test::make_step("attn_weights", stacked({2}, test::causal_matrix(3, 0), true), Role::Weights), plain());
  EXPECT_NE(three.find("batch 1:"), std::string::npos) << three;
  EXPECT_EQ(three.find("head"), std::string::npos) << three;
}

TEST(Blocks, IdenticalBatchesAreDrawnOnce) {
  Walk walk("test", config_with_tokens({"a", "b", "c"}));
  const Step step = test::make_step("attn_weights", stacked({3, 2}, test::causal_matrix(3, 0), false), Role::Weights);
  const HeatmapPlan plan = plan_heatmap(walk, step, 32, 16);
  EXPECT_EQ(plan.blocks.size(), 2u);
  EXPECT_EQ(plan.repeated_batches, (std::vector<int64_t>{1, 2}));
  const std::string out = render_heatmap(walk, step, plain());
  EXPECT_NE(out.find("batches 1, 2 are identical to batch 0"), std::string::npos) << out;
  EXPECT_EQ(out.find("batch 1, head"), std::string::npos) << out;
  EXPECT_EQ(count(out, "batch 0, head"), 2u) << out;
}

TEST(Blocks, TooManyBlocksAreCut) {
  Walk walk("test", config_with_tokens({"a", "b"}));
  const Step step = test::make_step("attn_weights", stacked({3, 8}, test::causal_matrix(2, 0), true), Role::Weights);
  const HeatmapPlan plan = plan_heatmap(walk, step, 32, 16);
  EXPECT_EQ(plan.blocks.size(), 16u);
  EXPECT_EQ(plan.blocks_left_out, 8u);
  const std::string out = render_heatmap(walk, step, plain());
  EXPECT_NE(out.find("8 more blocks are not drawn"), std::string::npos) << out;
  EXPECT_EQ(count(out, "batch "), 16u + 0u) << out;
}

TEST(Summary, LargeTIsSampledAndStaysSmall) {
  const int64_t T = 300;
  Walk walk("test", config_of_size(T));
  const Step step = test::make_step("attn_weights", stacked({2, 4}, test::causal_matrix(T, 0), false), Role::Weights);
  const HeatmapPlan plan = plan_heatmap(walk, step, 32, 16);
  ASSERT_EQ(plan.index.size(), 32u);
  EXPECT_EQ(plan.index.front(), 0);
  EXPECT_EQ(plan.index.back(), T - 1);
  for (size_t k = 1; k < plan.index.size(); ++k) EXPECT_GT(plan.index[k], plan.index[k - 1]);
  EXPECT_TRUE(plan.sampled());

  for (const auto& opts : {plain(), colored()}) {
    const std::string out = render_heatmap(walk, step, opts);
    EXPECT_LT(out.size(), 120000u);
    EXPECT_NE(out.find("300 tokens: drawing 32 evenly spaced rows and columns"), std::string::npos);
    EXPECT_NE(out.find("batch 1 is identical to batch 0"), std::string::npos);
    EXPECT_EQ(count(out, "batch 0, head"), 4u);
    // 4 blocks of 32 rows; the bottom row is token 300, labelled by its name alone.
    EXPECT_NE(out.find("\nx300 "), std::string::npos);
    size_t widest = 0;
    for (const auto& l : lines_of(out)) widest = std::max<size_t>(widest, static_cast<size_t>(display_width(l)));
    if (!opts.color) EXPECT_LE(widest, 140u);
  }
  // Sampled cells are real entries: the diagonal of the sample is the diagonal.
  const std::string out = render_heatmap(walk, step, plain());
  EXPECT_NE(out.find("\nx1   ██··"), std::string::npos) << out.substr(0, 2000);
}

// The step's text (render_text_step) carries the heatmap only with --heatmap.
TEST(Summary, RenderTextShowsHeatmapOnlyWhenAsked) {
  Walk walk("test", config_with_tokens({"a", "b", "c"}));
  walk.steps.push_back(test::make_step("attn_weights", test::causal_matrix(3, 0), Role::Weights));
  RenderOptions off;
  EXPECT_EQ(render_text_step(walk, 0, off).find("heatmap of"), std::string::npos);
  EXPECT_NE(render_text_step(walk, 0, plain()).find("heatmap of attn_weights"), std::string::npos);
}

}  // namespace
namespace {

// Issue 12, point 4: one colour means one value in every matrix of weights, and the masks'
// legends say what a 1 marks.
TEST(Heatmap, WeightsAndMasksShareTheFixedScaleZeroToOne) {
  Walk walk("test", config_with_tokens({"a", "b", "c"}));
  // Two weight matrices with different largest values: the same scale, so 0.5 is one colour.
  Tensor small = test::causal_matrix(3, 0.0f);
  small(0, 0) = 0.5f;
  small(0, 1) = 0.5f;
  for (const auto& [name, role] : {std::pair<const char*, Role>{"attn_weights", Role::Weights},
                                   {"attn_weights_causal", Role::Weights},
                                   {"masked_simple_norm", Role::Weights},
                                   {"mask_simple", Role::MaskKept}}) {
    const HeatmapPlan p = plan_heatmap(walk, test::make_step(name, small, role), 32, 16);
    EXPECT_EQ(p.lo, 0.0) << name;
    EXPECT_EQ(p.hi, 1.0) << name;
    EXPECT_DOUBLE_EQ(cell_level(p, 0.5f), 0.5) << name;
  }
  // Scores and dropout-scaled weights (up to 1/(1-p)) keep their own range.
  EXPECT_EQ(plan_heatmap(walk, test::make_step("attn_scores", small, Role::Scores), 32, 16).hi, 0.5);
  Tensor dropped = test::causal_matrix(3, 0.0f);
  dropped(0, 0) = 2.0f;
  EXPECT_EQ(plan_heatmap(walk, test::make_step("dropout_attn_weights", dropped, Role::DroppedWeights), 32, 16).hi, 2.0);
  const std::string out = render_heatmap(walk, test::make_step("attn_weights", small, Role::Weights), plain());
  EXPECT_NE(out.find("scale (fixed for all weights and masks): ░░ 0..0.25"), std::string::npos) << out;
}

TEST(Heatmap, MaskLegendsSayWhatAOneMarks) {
  Walk walk("test", config_with_tokens({"a", "b", "c"}));
  const std::string triu = render_heatmap(walk, test::make_step("mask", test::causal_matrix(3, 1.0f), Role::MaskHidden), plain());
  EXPECT_NE(triu.find("a 1 marks what is hidden, key j after query i (j > i)"), std::string::npos) << triu;
  const std::string tril = render_heatmap(walk, test::make_step("mask_simple", test::causal_matrix(3, 0.0f), Role::MaskKept), plain());
  EXPECT_NE(tril.find("a 1 marks what is kept, key j at or before query i (j <= i)"), std::string::npos) << tril;
  EXPECT_EQ(tril.find("hidden"), std::string::npos) << tril;
  const std::string weights = render_heatmap(walk, test::make_step("attn_weights", test::causal_matrix(3, 0.0f), Role::Weights), plain());
  EXPECT_EQ(weights.find("a 1 marks"), std::string::npos) << weights;
}

TEST(Heatmap, CellNumbersNeverShowMinusZero) {
  EXPECT_EQ(cell_decimals(-0.001, 2), "0.00");
  EXPECT_EQ(cell_decimals(-0.0, 2), "0.00");
  EXPECT_EQ(cell_decimals(-0.005, 2), "-0.01");
  EXPECT_EQ(cell_decimals(-0.00004, 4), "0.0000");
  EXPECT_EQ(cell_decimals(0.25, 2), "0.25");
  // In the HTML page: a tiny negative score is written 0.00, not -0.00.
  Walk walk("test", config_with_tokens({"a", "b"}));
  walk.steps.push_back(test::make_step("attn_scores", Tensor({2, 2}, {-0.001f, 0.5f, 0.25f, -0.002f}), Role::Scores));
  RenderOptions o = plain();
  const std::string page = render_html({walk}, o);
  EXPECT_EQ(page.find(">-0.00<"), std::string::npos);  // (the printed tensor keeps PyTorch's -0.0010)
  EXPECT_NE(page.find(">0.00<"), std::string::npos);
}

// The legend says what a 1 in the mask means, for the mask the stage shows: the chapter's
// triu mask hides the future, swa's banded mask_bool also hides keys W or more tokens back.
TEST(Heatmap, EachStageLegendDescribesItsOwnMask) {
  RenderOptions o;
  o.heatmap = true;
  o.color = false;
  Walk causal = run_causal(test::book_config());
  const std::string chapter = render_heatmap(causal, test::step_named(causal, "mask"), o);
  EXPECT_NE(chapter.find("torch.triu"), std::string::npos) << chapter;
  Walk swa = run_swa(test::book_config());
  const std::string banded = render_heatmap(swa, test::step_named(swa, "mask"), o);
  EXPECT_NE(banded.find("mask_bool"), std::string::npos) << banded;
  EXPECT_EQ(banded.find("torch.triu"), std::string::npos) << banded;
}

TEST(Heatmap, ColumnNumbersAreNeverSkipped) {
  // Read the header's digits down each column of cells: every drawn position, in order, for
  // 12 tokens and for a sampled 1000 (32 columns, positions up to 4 digits).
  for (const int64_t T : {12, 40, 1000}) {
    SCOPED_TRACE(T);
    Walk walk("test", config_of_size(T));
    const std::string out = render_heatmap(walk, test::make_step("attn_scores", test::causal_matrix(T, 0.5f), Role::Scores), plain());
    const auto lines = lines_of(out);
    // The header: the lines of digits and spaces just above the first row ("x1 ...").
    size_t rows = 0;
    while (rows < lines.size() && lines[rows].rfind("x1 ", 0) != 0) ++rows;
    ASSERT_LT(rows, lines.size()) << out;
    size_t first = rows;
    while (first > 0 && lines[first - 1].find_first_not_of(" 0123456789") == std::string::npos) --first;
    ASSERT_LT(first, rows) << out;
    const size_t cells_at = lines[rows].find_first_not_of(' ', lines[rows].find(' '));
    const HeatmapPlan plan = plan_heatmap(walk, test::make_step("attn_scores", test::causal_matrix(T, 0.5f), Role::Scores), 32, 16);
    for (size_t k = 0; k < plan.index.size(); ++k) {
      std::string number;
      for (size_t l = first; l < rows; ++l) {
        const size_t at = cells_at + 2 * k;
        if (at < lines[l].size() && lines[l][at] != ' ') number += lines[l][at];
      }
      EXPECT_EQ(number, std::to_string(plan.index[k] + 1)) << "column " << k << "\n"
                                                           << out;
    }
  }
}

TEST(Heatmap, PerMatrixScaleGivesEachMatrixItsOwnRange) {
  // Two heads: one with weights in 0.1..0.3, one in 0.5..0.9. Fixed: both on 0..1. Matrix: each
  // from its own smallest to its largest value, and each with its own legend.
  Walk walk("test", config_with_tokens({"a", "b"}));
  const Tensor t({1, 2, 2, 2}, {0.1f, 0.3f, 0.2f, 0.3f, 0.5f, 0.9f, 0.6f, 0.7f});
  const Step step = test::make_step("attn_weights", t, Role::Weights);
  const HeatmapPlan fixed = plan_heatmap(walk, step, 32, 16);
  ASSERT_EQ(fixed.blocks.size(), 2u);
  EXPECT_FALSE(fixed.per_matrix);
  for (const auto& b : fixed.blocks) EXPECT_EQ(std::make_pair(b.lo, b.hi), std::make_pair(0.0, 1.0));
  const HeatmapPlan own = plan_heatmap(walk, step, 32, 16, HeatmapScale::Matrix);
  EXPECT_TRUE(own.per_matrix);
  EXPECT_DOUBLE_EQ(own.blocks[0].lo, 0.1f);
  EXPECT_DOUBLE_EQ(own.blocks[0].hi, 0.3f);
  EXPECT_DOUBLE_EQ(own.blocks[1].lo, 0.5f);
  EXPECT_DOUBLE_EQ(own.blocks[1].hi, 0.9f);
  EXPECT_EQ(cell_level(own.blocks[0], 0.3f), 1.0);
  EXPECT_EQ(cell_level(own.blocks[1], 0.5f), 0.0);
  // The terminal: one scale line per matrix, none for the step.
  RenderOptions o = plain();
  o.heatmap_per_matrix = true;
  const std::string out = render_heatmap(walk, step, o);
  EXPECT_EQ(count(out, "scale of this matrix: "), 2u) << out;
  EXPECT_NE(out.find("scale of this matrix: ░░ 0.1..0.15  ▒▒ 0.15..0.2"), std::string::npos) << out;
  EXPECT_EQ(out.find("scale (fixed"), std::string::npos) << out;
  EXPECT_NE(render_heatmap(walk, step, plain()).find("scale (fixed"), std::string::npos);
  // A matrix of one value (a mask of ones) and one of nothing finite still get a scale.
  const Tensor flat({2, 2}, {1.0f, 1.0f, 1.0f, 1.0f});
  const HeatmapPlan one = plan_heatmap(walk, test::make_step("mask", flat, Role::MaskHidden), 32, 16, HeatmapScale::Matrix);
  EXPECT_LT(one.blocks[0].lo, one.blocks[0].hi);
}

TEST(Wrap, HeadingsWrapAtWordsWithinTheWidth) {
  const std::string heading =
      "[4] token_embeddings — token embeddings: nn.Embedding(50257, 3) at the token ids — torch.Size([19, 3])";
  const std::string wrapped = wrap_words(heading, 80, "    ");
  const auto lines = lines_of(wrapped);
  ASSERT_EQ(lines.size(), 2u) << wrapped;
  std::string joined;
  for (const auto& l : lines) {
    EXPECT_LE(display_width(l), 80) << l;
    joined += (joined.empty() ? "" : " ") + l.substr(joined.empty() ? 0 : 4);
  }
  EXPECT_EQ(joined, heading);  // broken only at spaces, none lost
  EXPECT_EQ(lines[1].rfind("    ", 0), 0u);
  EXPECT_EQ(wrap_words(heading, 0, "  "), heading);  // not a terminal: whole
  EXPECT_EQ(wrap_words("short", 80, "  "), "short");
}

TEST(Wrap, ChineseWrapsBetweenCharactersByDisplayWidth) {
  // 40 wide characters and punctuation = 80+ columns: lines of at most 30 columns, no line
  // starting with ，or 。, nothing lost.
  const std::string text = "✓ 每一行注意力权重之和都是一，因为软最大值函数把每一行的分数变成概率分布。"
                           "掩码之后仍然如此（最大差异 5.96e-08）";
  const std::string wrapped = wrap_words(text, 30, "  ");
  const auto lines = lines_of(wrapped);
  ASSERT_GT(lines.size(), 2u);
  std::string joined;
  for (size_t i = 0; i < lines.size(); ++i) {
    EXPECT_LE(display_width(lines[i]), 30) << lines[i];
    const std::string body = i ? lines[i].substr(2) : lines[i];
    EXPECT_NE(body.rfind("，", 0), 0u) << body;
    EXPECT_NE(body.rfind("。", 0), 0u) << body;
    EXPECT_NE(body.rfind("）", 0), 0u) << body;
    joined += body;
  }
  EXPECT_EQ(joined, text);  // wide characters break without a space: nothing added or dropped
  // A Latin word inside Chinese text is never cut.
  EXPECT_NE(wrapped.find("5.96e-08"), std::string::npos);
}

}  // namespace
}  // namespace attn
