// The bonus stages efficient, swa, rope and flash beyond their PyTorch goldens: the ideas each walk's
// checks rest on, and configurations they must refuse.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "modules/chapter.h"
#include "modules/flash.h"
#include "modules/mha_einsum.h"
#include "modules/rope.h"
#include "modules/sliding_window.h"
#include "ops/ops.h"
#include "render/heatmap.h"
#include "render/render.h"
#include "stages/common.h"
#include "stages/stages.h"
#include "test_util.h"
#include "torch/torch_random.h"

namespace attn {
namespace {

Config bonus_config(int64_t d_out = 8, int64_t heads = 4) {
  Config c = test::book_config();
  c.bonus.d_out = d_out;
  c.bonus.heads = heads;
  return c;
}

const Check& check_named(const Walk& w, const std::string& id) {
  for (const auto& c : w.checks)
    if (c.id == id) return c;
  throw std::runtime_error("no check " + id);
}

bool has_step(const Walk& w, const std::string& name) {
  for (const auto& st : w.steps)
    if (st.name == name) return true;
  return false;
}

// MHAEinsum always; nn.MultiheadAttention only when its inputs are embed_dim = d_out wide (the
// notebook's d_in == d_out), else a note says why. Every check holds: the outputs differ
// after the seed and agree with the chapter's once its weights are copied in.
TEST(Efficient, EinsumAlwaysTorchMhaOnlyWhenDinEqualsDout) {
  const Walk wide = run_efficient(bonus_config());  // d_in 3, d_out 8
  EXPECT_TRUE(has_step(wide, "einsum_scores"));
  EXPECT_FALSE(has_step(wide, "torch_mha_scores"));
  EXPECT_NE(std::find(wide.notes.begin(), wide.notes.end(), "note.efficient_torch_mha_needs_square"), wide.notes.end());
  EXPECT_EQ(wide.vars.at("einsum_proj_eq"), "bnd,id->bni");
  for (const bool bias : {false, true}) {
    Config c = bonus_config(3, 3);
    c.qkv_bias = bias;
    const Walk w = run_efficient(c);
    SCOPED_TRACE(bias ? "qkv_bias" : "no bias");
    EXPECT_EQ(w.vars.at("einsum_proj_eq"), "bnd,di->bni");
    EXPECT_TRUE(has_step(w, "torch_mha_scores"));
    EXPECT_EQ(has_step(w, "torch_mha.bias_k"), bias);
    // add_bias_kv: one more key, a column every query sees
    EXPECT_EQ(test::step_named(w, "torch_mha_scores").value.shape, (Shape{2 * 3, 6, bias ? 7 : 6}));
    for (const char* id : {"efficient_einsum_differs_by_weights", "efficient_einsum_copied_equal_mha",
                           "efficient_torch_mha_differs_by_weights", "efficient_torch_mha_copied_equal_mha",
                           "efficient_all_copied_outputs_equal"})
      EXPECT_TRUE(check_named(w, id).passed) << id;
  }
  for (const auto& chk : wide.checks) EXPECT_TRUE(chk.passed) << chk.id;
}

// The notebook's "bnd,di->bni" multiplies by W itself, so the chapter's nn.Linear weight goes
// in transposed; "bnd,id->bni" takes it as it is.
TEST(Efficient, EinsumCopiesTheChaptersWeightsTransposedForTheNotebooksEquation) {
  for (const int64_t d_in : {3, 4}) {
    TorchGenerator gen(123);
    MHAEinsum e(gen, d_in, 4, 2, false);
    gen.manual_seed(123);
    const MultiHeadAttention mha(gen, d_in, 4, 6, 0.0, 2, false, DropoutKernel::Default);
    e.copy_from(mha);
    EXPECT_EQ(e.W_query.data, d_in == 4 ? transpose2d(mha.W_query.weight).data : mha.W_query.weight.data);
  }
}

size_t count_of(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

// GQA's heatmaps show which heads share one key/value group: in the terminal a rule naming
// the group and its heads before the group's first head, in HTML a frame around its heads.
TEST(GqaHeatmap, HeadsAreDrawnInTheirKeyValueGroups) {
  RenderOptions o;
  o.heatmap = true;
  o.color = false;
  Config c = bonus_config();  // 4 heads, 2 groups
  const Walk w = run_gqa(c);
  const Step& weights = test::step_named(w, "attn_weights");
  EXPECT_EQ(weights.head_groups, (std::vector<int64_t>{0, 0, 1, 1}));
  const std::string term = render_heatmap(w, weights, o);
  const size_t g0 = term.find("K/V group 0: keys and values shared by heads 0, 1");
  const size_t g1 = term.find("K/V group 1: keys and values shared by heads 2, 3");
  ASSERT_NE(g0, std::string::npos) << term;
  ASSERT_NE(g1, std::string::npos) << term;
  EXPECT_LT(g0, term.find("head 0:"));
  EXPECT_LT(term.find("head 1:"), g1);
  EXPECT_LT(g1, term.find("head 2:"));
  // Batch 1 repeats batch 0, so each group is drawn once: two rules.
  EXPECT_EQ(count_of(term, "K/V group"), 2u) << term;

  o.lang = Lang::Zh;
  EXPECT_NE(render_heatmap(w, weights, o).find("K/V 组 1：头 2, 3 共用这组键和值"), std::string::npos);
  o.lang = Lang::En;

  // JSON: the same grouping, for scripts, on exactly the two per-head steps.
  const auto doc = nlohmann::json::parse(render_json({w}));
  int grouped_steps = 0;
  for (const auto& step : doc["steps"]) {
    if (!step.contains("head_groups")) continue;
    ++grouped_steps;
    EXPECT_TRUE(step["name"] == "attn_scores" || step["name"] == "attn_weights") << step["name"];
    EXPECT_EQ(step["head_groups"], nlohmann::json({0, 0, 1, 1})) << step["name"];
  }
  EXPECT_EQ(grouped_steps, 2);
  EXPECT_FALSE(nlohmann::json::parse(render_json({run_multi_head(test::book_config())})).dump().find("head_groups") !=
               std::string::npos);

  // HTML: two steps with heatmaps (scores, weights), two groups each, in balanced divs.
  const std::string page = render_html({w}, o);
  EXPECT_EQ(count_of(page, "<div class=\"hm-group\""), 4u);
  EXPECT_NE(page.find("shared by heads 2, 3</p>"), std::string::npos);
  EXPECT_EQ(count_of(page, "<div"), count_of(page, "</div>"));

  // One group holds every head; as many groups as heads is plain multi-head attention.
  c.bonus.kv_groups = 1;
  const Walk one_group = run_gqa(c);
  EXPECT_NE(render_heatmap(one_group, test::step_named(one_group, "attn_weights"), o).find("shared by heads 0, 1, 2, 3"),
            std::string::npos);
  c.bonus.kv_groups = 4;
  const Walk mha_like = run_gqa(c);
  EXPECT_EQ(count_of(render_heatmap(mha_like, test::step_named(mha_like, "attn_weights"), o), "K/V group"), 4u);
  // Stages that do not group their heads draw none.
  const Walk chapter = run_multi_head(test::book_config());
  EXPECT_EQ(render_html({chapter}, o).find("<div class=\"hm-group\""), std::string::npos);
}

// MLA: one token at a time with only the latent cached gives the full pass, for any latent
// size; the cache holds latent_dim numbers per token, and the text says when that saves nothing.
TEST(Mla, CachedLatentPassEqualsTheFullPassAndTheCacheShrinks) {
  for (const int64_t L : {1, 4, 16, 40}) {
    Config c = bonus_config();
    c.bonus.latent_dim = L;
    const Walk w = run_mla(c);
    SCOPED_TRACE("latent_dim " + std::to_string(L));
    for (const auto& chk : w.checks) EXPECT_TRUE(chk.passed) << chk.id << " " << chk.max_diff;
    EXPECT_EQ(test::step_named(w, "cache_c_kv").value.shape, (Shape{2, 6, L}));
    const Tensor& size = test::step_named(w, "kv_cache_size").value;
    EXPECT_EQ(size.data[0], 2.0f * 2 * 6 * 8);
    EXPECT_EQ(size.data[1], 2.0f * 6 * L);
    EXPECT_EQ(test::step_named(w, "kv_cache_size").variant == "no_saving", L >= 16);
  }
}

TEST(Swa, MaskIsTheBandOfTheWindow) {
  const Tensor m = sliding_window_mask(5, 2);
  for (int64_t i = 0; i < 5; ++i)
    for (int64_t j = 0; j < 5; ++j) EXPECT_EQ(m(i, j), (j == i || j == i - 1) ? 0.0f : 1.0f) << i << "," << j;
  // A window as long as the input is the chapter's causal mask.
  EXPECT_EQ(sliding_window_mask(6, 6).data, triu_ones(6, 1).data);
}

TEST(Swa, ChecksHoldForEveryWindowAndAWholeWindowIsTheChapter) {
  for (int64_t W : {1, 2, 3, 6, 10}) {
    Config c = bonus_config();
    c.bonus.window = W;
    const Walk w = run_swa(c);
    SCOPED_TRACE("window " + std::to_string(W));
    for (const auto& chk : w.checks) EXPECT_TRUE(chk.passed) << chk.id << " " << chk.max_diff;
  }
  // W >= T: the whole output equals the chapter's MultiHeadAttention, bit for bit.
  Config c = bonus_config();
  c.bonus.window = 6;
  TorchGenerator gen(c.seed1);
  const MultiHeadAttention mha(gen, 3, 8, 6, 0.0, 4, false, DropoutKernel::Default);
  EXPECT_EQ(test::step_named(run_swa(c), "context_vecs").value.data,
            mha.forward(gen, stack_copies(c.inputs, c.batch)).data);
}

TEST(Rope, RotationKeepsLengthsAndPositionZeroIsUnchanged) {
  const RopeParams p = compute_rope_params(4, 10000.0, 6);
  TorchGenerator gen(1);
  const Tensor x = randn(gen, {1, 2, 6, 4});
  const Tensor r = apply_rope(x, p);
  for (int64_t row = 0; row < 12; ++row) {
    double n0 = 0, n1 = 0;
    for (int64_t k = 0; k < 4; ++k) {
      n0 += double(x.data[row * 4 + k]) * x.data[row * 4 + k];
      n1 += double(r.data[row * 4 + k]) * r.data[row * 4 + k];
    }
    EXPECT_NEAR(n0, n1, 1e-5 * n0) << row;
    if (row % 6 == 0)  // position 0: cos 1, sin 0
      for (int64_t k = 0; k < 4; ++k) EXPECT_EQ(r.data[row * 4 + k], x.data[row * 4 + k]);
  }
}

// The check compares scores at shifted positions; shifting queries and keys differently
// changes i - j, and the same comparison must then fail.
TEST(Rope, ShiftCheckCanFail) {
  const RopeParams p = compute_rope_params(2, 10000.0, 12);
  TorchGenerator gen(2);
  const Tensor q = randn(gen, {1, 1, 6, 2}), k = randn(gen, {1, 1, 6, 2});
  const Tensor same = matmul_transposed(apply_rope(q, p), apply_rope(k, p));
  EXPECT_TRUE(compare_close(matmul_transposed(apply_rope(q, p, 6), apply_rope(k, p, 6)), same).passed);
  EXPECT_FALSE(compare_close(matmul_transposed(apply_rope(q, p, 3), apply_rope(k, p, 6)), same).passed);
}

TEST(Rope, RefusesAnOddHeadDim) {
  EXPECT_EQ(rope_misuse(bonus_config(8, 4)), "");
  const std::string why = rope_misuse(bonus_config(9, 3));
  EXPECT_NE(why.find("--heads"), std::string::npos) << why;
  EXPECT_NE(why.find("even"), std::string::npos) << why;
  EXPECT_NE(rope_misuse(bonus_config(8, 3)), "");  // not divisible at all
  EXPECT_THROW(compute_rope_params(3, 10000.0, 4), std::invalid_argument);
}

TEST(Flash, OneBlockPerBlockOfKeysAndEqualToTheModule) {
  for (int64_t block : {1, 2, 4, 6, 100}) {
    Config c = bonus_config();
    c.bonus.block = block;
    const Walk w = run_flash(c);
    SCOPED_TRACE("block " + std::to_string(block));
    const int64_t blocks = (6 + block - 1) / block;
    EXPECT_EQ(static_cast<int64_t>(w.steps.size()), 4 * blocks + 2);
    EXPECT_EQ(w.vars.at("num_blocks"), std::to_string(blocks));
    EXPECT_TRUE(check_named(w, "flash_equals_attention").passed);
    EXPECT_TRUE(check_named(w, "flash_output_equals_module").passed);
    // Each block shows scores, m, l, acc in that order; then the output and the module's.
    EXPECT_EQ(w.steps[w.steps.size() - 5].name, "m");
    EXPECT_EQ(w.steps[w.steps.size() - 2].name, "flash_context_vec");
  }
}

TEST(Flash, RefusesMoreThan64Blocks) {
  Config c = bonus_config();
  c.bonus.block = 1;
  EXPECT_EQ(flash_misuse(c), "");  // 6 blocks
  TorchGenerator gen(4);
  c.inputs = randn(gen, {65, 3});
  const std::string why = flash_misuse(c);
  EXPECT_NE(why.find("--block"), std::string::npos) << why;
  EXPECT_NE(why.find("65 blocks"), std::string::npos) << why;
  c.bonus.block = 2;
  EXPECT_EQ(flash_misuse(c), "");
}

// acc / l after every key equals the ordinary softmax; stopping one block early does not.
TEST(Flash, StoppingEarlyDiffersSoTheCheckCanFail) {
  TorchGenerator gen(3);
  const Tensor q = randn(gen, {1, 1, 4, 2}), k = randn(gen, {1, 1, 4, 2}), v = randn(gen, {1, 1, 4, 2});
  const FlashTrace f = flash_attention(q, k, v, 2);
  const Tensor ordinary = matmul(causal_attention_weights(q, k, triu_ones(4, 1)), v);
  EXPECT_TRUE(compare_close(f.out, ordinary).passed);
  const FlashBlock& first = f.blocks.front();
  EXPECT_FALSE(compare_close(div_keepdim(first.acc, first.l), ordinary).passed);
}

}  // namespace
}  // namespace attn
