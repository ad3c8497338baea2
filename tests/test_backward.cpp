// The backward stage's computed checks can fail: each is fed a tensor that breaks its rule.
// (Its numbers are tested against PyTorch in test_backward_goldens.cpp.)
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "modules/train.h"
#include "modules/train_f64.h"
#include "ops/ops.h"
#include "render/render.h"
#include "render/series_svg.h"
#include "stages/backward.h"
#include "stages/backward_checks.h"
#include "stages/stages.h"
#include "test_util.h"

namespace attn {
namespace {

TEST(BackwardChecks, RowsSumToZeroCanFail) {
  const Tensor good({2, 3}, {0.5f, -0.25f, -0.25f, 0.0f, 1.0f, -1.0f});
  EXPECT_TRUE(rows_sum_to_zero(good, 1e-6).passed);
  const Tensor bad({2, 3}, {0.5f, -0.25f, -0.25f, 0.0f, 1.0f, -0.5f});
  const Comparison c = rows_sum_to_zero(bad, 1e-6);
  EXPECT_FALSE(c.passed);
  EXPECT_DOUBLE_EQ(c.max_diff, 0.5);
  // A row holding a NaN sums to NaN, which is no 0: the check fails, whatever row comes after.
  const Tensor nan({2, 3}, {std::numeric_limits<float>::quiet_NaN(), 0.0f, 0.0f, 0.0f, 1.0f, -1.0f});
  const Comparison n = rows_sum_to_zero(nan, 1e-6);
  EXPECT_FALSE(n.passed);
  EXPECT_EQ(n.max_diff, std::numeric_limits<double>::infinity());
}

TEST(BackwardChecks, MaskedExactlyZeroCanFail) {
  Tensor t = Tensor::zeros({2, 3, 3});
  t.data[3] = 0.7f;       // (0, 1, 0): below the diagonal, allowed
  t.data[9 + 4] = 0.2f;   // the diagonal, allowed
  t.data[9 + 5] = -0.0f;  // above, but -0 is 0
  EXPECT_TRUE(masked_exactly_zero(t).passed);
  t.data[9 + 2] = 1e-30f;  // (1, 0, 2): above the diagonal
  const Comparison c = masked_exactly_zero(t);
  EXPECT_FALSE(c.passed);
  EXPECT_FLOAT_EQ(static_cast<float>(c.max_diff), 1e-30f);
  t.data[9 + 2] = std::numeric_limits<float>::quiet_NaN();
  const Comparison n = masked_exactly_zero(t);
  EXPECT_FALSE(n.passed);
  EXPECT_EQ(n.max_diff, std::numeric_limits<double>::infinity());
}

TEST(BackwardChecks, FiniteDifferenceAgreesAndAWrongGradientFails) {
  Config cfg = test::book_config();
  const Walk w = find_stage("backward")->run(cfg);
  bool seen = false;
  for (const auto& c : w.checks)
    if (c.id == "grad_matches_finite_difference") {
      seen = true;
      EXPECT_TRUE(c.passed) << c.max_diff;
    }
  EXPECT_TRUE(seen);
  const float grad = test::step_named(w, "W_query.weight.grad").value.data[0];
  // The model as the walk built it, its first forward pass, and the difference itself.
  TorchGenerator gen;
  gen.manual_seed(cfg.seed1);
  const Tensor x = narrow(cfg.inputs, 0, 0, 5);
  AttentionLM model(gen, 3, 2, 5, 0.0, 2, false, DropoutKernel::Default, 6);
  const Activations a = forward(model, gen, stack_copies(x, 2), {1, 2, 3, 4, 5, 1, 2, 3, 4, 5}, true);
  const double fd = finite_difference(model, a, "W_query.weight", 0, 1e-3);
  EXPECT_TRUE(gradient_matches(grad, fd, 1e-3, 1e-6).passed);
  EXPECT_FALSE(gradient_matches(grad * 1.01, fd, 1e-3, 1e-6).passed);
  EXPECT_FALSE(gradient_matches(-grad, fd, 1e-3, 1e-6).passed);
}

TEST(BackwardStage, RefusesTooFewTokensAndIndivisibleHeads) {
  Config one = test::book_config();
  one.inputs = Tensor({1, 3}, {0.1f, 0.2f, 0.3f});
  one.tokens = {"x"};
  EXPECT_NE(backward_misuse(one), "");
  EXPECT_TRUE(run_backward(one).steps.empty());
  Config odd = test::book_config();
  odd.d_out = 3;
  EXPECT_NE(backward_misuse(odd), "");
  EXPECT_EQ(backward_misuse(test::book_config()), "");
}

// The float64 loss of the finite-difference check is the learner's loss: with softmax before
// cross_entropy, and with reduction="sum" (whose gradient is N = 10 times the mean's, so a
// mean would fail the check).
TEST(BackwardChecks, FiniteDifferenceFollowsTheLossTheLearnerWrote) {
  for (const bool sum : {false, true}) {
    TrainChoices choices;
    choices.loss_reduction_sum = sum;
    choices.softmax_before_cross_entropy = !sum;
    const Walk w = run_backward_with(test::book_config(), choices);
    bool seen = false;
    for (const auto& c : w.checks)
      if (c.id == "grad_matches_finite_difference") {
        seen = true;
        EXPECT_TRUE(c.passed) << (sum ? "sum: " : "softmax first: ") << c.max_diff;
      }
    EXPECT_TRUE(seen);
  }
}

// --text trains 50257-row tables: the width and the positions are bounded, with a message.
TEST(BackwardStage, TextWalksAreBounded) {
  Config c = test::book_config();
  c.token_ids = {7120, 7002, 4940, 351, 530, 2239};
  EXPECT_EQ(backward_misuse(c), "");
  Config wide = c;
  wide.d_out = 66;
  EXPECT_NE(backward_misuse(wide).find("at most 64"), std::string::npos);
  Config long_batch = c;
  long_batch.batch = 13;  // 13 x 5 positions
  EXPECT_NE(backward_misuse(long_batch).find("at most 64, got 13 x 5"), std::string::npos);
  Config labels = long_batch;  // without --text the vocabulary is the labels': no bound
  labels.token_ids.clear();
  EXPECT_EQ(backward_misuse(labels), "");
}

TEST(BackwardStage, TheDefaultWalksLossFalls) {
  const Walk w = run_backward(test::book_config());
  const Tensor& losses = test::step_named(w, "losses").value;
  ASSERT_EQ(losses.numel(), 30);
  EXPECT_LT(losses.data.back(), losses.data.front() - 0.5f);
}

}  // namespace
}  // namespace attn

namespace attn {
namespace {

// The losses' line plot: one point per value, nothing for a series with a non-finite value.
TEST(BackwardStage, HtmlDrawsTheLossesAsALinePlot) {
  Step s = test::make_step("losses", Tensor({4}, {2.0f, 1.5f, 1.25f, 1.0f}));
  s.role = Role::Series;
  const std::string svg = series_svg(s);
  ASSERT_NE(svg.find("<svg class=\"series\""), std::string::npos);
  const auto poly = svg.find("points=\"");
  ASSERT_NE(poly, std::string::npos);
  const std::string points = svg.substr(poly + 8, svg.find('"', poly + 8) - poly - 8);
  EXPECT_EQ(std::count(points.begin(), points.end(), ','), 4);
  EXPECT_NE(svg.find(">2.0000<"), std::string::npos);  // the highest value labels the top
  EXPECT_NE(svg.find(">1.0000<"), std::string::npos);
  s.value.data[2] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(series_svg(s), "");
  const std::string html = render_html({run_backward(test::book_config())}, RenderOptions{});
  EXPECT_NE(html.find("<svg class=\"series\""), std::string::npos);
}

}  // namespace
}  // namespace attn

#include <nlohmann/json.hpp>

#include "request/option_table.h"
#include "run_process.h"

namespace attn {
namespace {

// --grad-step: which step's forward pass and gradients the walk shows, said in the titles and
// bounded by --steps. (Its numbers: the goldens book_dropout_grad_step_4, book_sgd_grad_step_last.)
TEST(BackwardStage, GradStepIsOneOfTheStepsAndTheTitlesSaySo) {
  Config c = test::book_config();
  c.train.steps = 3;
  c.train.grad_step = 4;
  EXPECT_NE(backward_misuse(c).find("--grad-step"), std::string::npos);
  c.train.grad_step = 0;
  EXPECT_NE(backward_misuse(c), "");
  c.train.grad_step = 3;
  ASSERT_EQ(backward_misuse(c), "");
  const test::RunResult r = test::run_cli({"--stage", "backward", "--steps", "3", "--grad-step", "3", "--format", "json",
                                           "--explain", "--only", "logits.grad,attn_scores.grad,step1.update"});
  ASSERT_EQ(r.exit_code, 0) << test::describe(r);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["config"]["train"]["grad_step"], 3);
  ASSERT_EQ(j["steps"].size(), 3u);
  EXPECT_NE(j["steps"][0]["title"].get<std::string>().find("(step 3)"), std::string::npos);
  EXPECT_NE(j["steps"][0]["explanation"].get<std::string>().find("training step 3's of 3"), std::string::npos);
  EXPECT_EQ(j["steps"][2]["title"].get<std::string>().find("(step 3)"), std::string::npos);  // the update is step 1's
  const test::RunResult zh = test::run_cli({"--stage", "backward", "--steps", "3", "--grad-step", "2", "--lang", "zh",
                                            "--only", "logits.grad"});
  EXPECT_NE(zh.out.find("（第 2 步）"), std::string::npos) << zh.out;
  const test::RunResult bad = test::run_cli({"--stage", "backward", "--steps", "3", "--grad-step", "5"});
  EXPECT_EQ(bad.exit_code, 2) << test::describe(bad);
  EXPECT_EQ(bad.out, "");
  EXPECT_NE(bad.err.find("--grad-step"), std::string::npos);
}

// torch.optim.SGD's weight_decay defaults to 0, AdamW's to chapter 5's 0.1; a given
// --weight-decay is honoured by both. (Its numbers: the golden book_sgd_weight_decay.)
TEST(BackwardStage, SgdDecaysOnlyWhenTold) {
  const auto decay = [](std::vector<std::string> args) {
    Config c;
    c.inputs = Tensor::zeros({6, 3});
    set_knobs(parse_walk_options(args).walk, c);
    return c.train.weight_decay;
  };
  EXPECT_EQ(decay({}), 0.1);
  EXPECT_EQ(decay({"--optimizer", "sgd"}), 0.0);
  EXPECT_EQ(decay({"--optimizer", "sgd", "--weight-decay", "0.5"}), 0.5);
  EXPECT_EQ(decay({"--weight-decay", "0.5", "--optimizer", "sgd"}), 0.5);
  EXPECT_EQ(decay({"--optimizer", "adamw", "--weight-decay", "0"}), 0.0);
  Config sgd = test::book_config();
  sgd.train.optimizer = OptimizerKind::SGD;
  sgd.train.lr = 0.5;
  sgd.train.steps = 3;
  sgd.train.weight_decay = 0.0;
  Config decayed = sgd;
  decayed.train.weight_decay = 0.5;
  EXPECT_NE(test::step_named(run_backward(sgd), "losses").value.data,
            test::step_named(run_backward(decayed), "losses").value.data);
}

// --format json-compact: the 50257-long dimensions keep the text's ids; the rest is counted
// and digested, and equals the full document's.
TEST(BackwardStage, JsonCompactKeepsTheTextsIdsAndDigestsTheRest) {
  const std::vector<std::string> args = {"--stage", "backward", "--text", "Your journey starts with one step",
                                         "--steps", "2"};
  std::vector<std::string> full_args = args, compact_args = args;
  full_args.insert(full_args.end(), {"--format", "json"});
  compact_args.insert(compact_args.end(), {"--format", "json-compact"});
  const test::RunResult full = test::run_cli(full_args), compact = test::run_cli(compact_args);
  ASSERT_EQ(full.exit_code, 0) << test::describe(full);
  ASSERT_EQ(compact.exit_code, 0) << test::describe(compact);
  EXPECT_LT(compact.out.size() * 20, full.out.size()) << compact.out.size() << " vs " << full.out.size();
  const auto f = nlohmann::json::parse(full.out), c = nlohmann::json::parse(compact.out);
  ASSERT_EQ(f["steps"].size(), c["steps"].size());
  std::vector<int64_t> ids = f["token_ids"].get<std::vector<int64_t>>();
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  int compacted = 0;
  for (size_t i = 0; i < f["steps"].size(); ++i) {
    const auto &fs = f["steps"][i], &cs = c["steps"][i];
    SCOPED_TRACE(fs["name"].get<std::string>());
    EXPECT_EQ(fs["shape"], cs["shape"]);
    EXPECT_EQ(fs["printed"], cs["printed"]);
    if (!cs.contains("compact")) {
      EXPECT_EQ(fs["data"], cs["data"]);
      continue;
    }
    ++compacted;
    const auto shape = fs["shape"].get<std::vector<int64_t>>();
    const int axis = cs["compact"]["axis"].get<int>();
    ASSERT_EQ(shape[static_cast<size_t>(axis)], 50257);
    EXPECT_EQ(cs["compact"]["ids"].get<std::vector<int64_t>>(), ids);
    // The full data, row-major as (outer, 50257, inner): the kept entries and the rest.
    const std::vector<float> all = test::flatten(fs["data"]), kept = test::flatten(cs["data"]);
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis; ++d) outer *= shape[static_cast<size_t>(d)];
    for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) inner *= shape[d];
    std::vector<float> want_kept, rest;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t v = 0; v < 50257; ++v)
        for (int64_t k = 0; k < inner; ++k) {
          const float x = all[static_cast<size_t>((o * 50257 + v) * inner + k)];
          (std::binary_search(ids.begin(), ids.end(), v) ? want_kept : rest).push_back(x);
        }
    EXPECT_EQ(kept.size(), want_kept.size());
    double max_diff = 0;
    EXPECT_EQ(test::count_bit_differences(kept, want_kept, &max_diff), 0);
    EXPECT_EQ(cs["compact"]["rest"]["count"].get<size_t>(), rest.size());
    EXPECT_EQ(cs["compact"]["rest"]["fnv1a64"].get<std::string>(), test::fnv1a64(rest));
    const bool zeros = std::all_of(rest.begin(), rest.end(), [](float x) { return x == 0.0f; });
    EXPECT_EQ(cs["compact"]["rest"]["all_zero"].get<bool>(), zeros);
    if (fs["name"] == "tok_emb.weight.grad") EXPECT_TRUE(zeros);
  }
  // logits, logits.grad, out_head.weight.grad, tok_emb.weight.grad, tok_emb.weight, out_head.weight
  EXPECT_EQ(compacted, 6);
}

// --text: print() of tok_emb.weight.grad shows the input ids' rows, labelled with them.
TEST(BackwardStage, TokEmbGradPrintsTheTextsRows) {
  const test::RunResult r = test::run_cli({"--stage", "backward", "--text", "the cat and the dog", "--steps", "1",
                                           "--only", "tok_emb.weight.grad"});
  ASSERT_EQ(r.exit_code, 0) << test::describe(r);
  // GPT-2's ids of "the", " cat", " and", " the" (the last token, " dog", is only a target).
  EXPECT_NE(r.out.find("tok_emb.weight.grad[[1169, 3797, 290, 262]]: tensor([["), std::string::npos) << r.out;
}

}  // namespace
}  // namespace attn
