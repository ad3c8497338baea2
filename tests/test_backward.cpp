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
  t.data[3] = 0.7f;                  // (0, 1, 0): below the diagonal, allowed
  t.data[9 + 4] = 0.2f;              // the diagonal, allowed
  t.data[9 + 5] = -0.0f;             // above, but -0 is 0
  EXPECT_TRUE(masked_exactly_zero(t).passed);
  t.data[9 + 2] = 1e-30f;            // (1, 0, 2): above the diagonal
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
  s.series = true;
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
