// The checks a learner would make are real computations on the walk's tensors: they
// pass on the chapter's walks, they sit after the step they verify, and the comparison
// helpers fail (with the right largest difference) when the data is perturbed.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "input/embeddings.h"
#include "ops/ops.h"
#include "stages/common.h"
#include "stages/stages.h"
#include "test_util.h"

namespace attn {
namespace {

const Check* check_named(const Walk& w, const std::string& id) {
  for (const auto& c : w.checks)
    if (c.id == id) return &c;
  return nullptr;
}

// The step a check is shown after.
std::string shown_after(const Walk& w, const Check& c) {
  return c.after_step == 0 ? "" : w.steps[c.after_step - 1].name;
}

TEST(Checks, TheIssuesChecksAreThereAfterTheirSteps) {
  const Config cfg = test::book_config();
  struct Want {
    Walk (*run)(const Config&);
    const char* id;
    const char* after;
  };
  const Want wants[] = {
      {run_dot_product, "softmax_sums_to_1", "attn_weights_2"},
      {run_dot_product, "all_context_vecs_equal_loop", "all_context_vecs"},
      {run_softmax, "softmax_rows_sum_to_1", "attn_weights_row_sums"},
      {run_trainable, "sa_v1_row_equals_context_vec_2", "sa_v1_output"},
      {run_trainable, "exercise_3_1_outputs_equal", "exercise_3_1_sa_v2_output"},
      {run_causal, "masked_simple_norm_equals_inf_method", "attn_weights_causal"},
      {run_dropout, "dropout_rows_no_longer_sum_to_1", "dropout_attn_weights_row_sums"},
      {run_multi_head, "wrapper_first_head_equals_causal_attention", "wrapper_context_vecs"},
  };
  for (const auto& want : wants) {
    const Walk w = want.run(cfg);
    SCOPED_TRACE(w.stage + ": " + want.id);
    const Check* c = check_named(w, want.id);
    ASSERT_NE(c, nullptr);
    EXPECT_TRUE(c->passed) << "largest difference " << c->max_diff;
    EXPECT_EQ(shown_after(w, *c), want.after);
  }
}

// On a spread of configurations every check of every stage passes.
TEST(Checks, AllPassOnTheGoldenConfigurations) {
  int n = 0;
  for (const char* name : {"book", "book_query5", "book_seed42_bias", "book_randn_dout4_h4",
                           "book_dropout01_attn03", "book_dropout_edges", "book_dropout0",
                           "d8_t10_dout6_h3_bias", "d6_t40_long", "d4_t3_dout1_h1"}) {
    const Config cfg =
        test::config_from_golden(test::load_json(test::tests_dir() + "/golden/walks/" + name + ".json"));
    for (const auto& s : all_stages()) {
      if (s.run == run_multi_head && cfg.d_out % cfg.heads) continue;
      const Walk w = s.run(cfg);
      for (const auto& c : w.checks) {
        EXPECT_TRUE(c.passed) << name << "/" << w.stage << ": " << c.id << " (largest difference "
                              << c.max_diff << ")";
        EXPECT_GE(c.after_step, 1u);
        EXPECT_LE(c.after_step, w.steps.size());
        ++n;
      }
    }
  }
  EXPECT_GT(n, 100);
}

TEST(Checks, ExactCheckDifferencesAreZero) {
  const Walk causal = run_causal(test::book_config());
  EXPECT_EQ(check_named(causal, "causal_no_future_weight")->max_diff, 0.0);
  const Walk mh = run_multi_head(test::book_config());
  EXPECT_EQ(check_named(mh, "wrapper_first_head_equals_causal_attention")->max_diff, 0.0);
  const Walk tr = run_trainable(test::book_config());
  EXPECT_EQ(check_named(tr, "exercise_3_1_outputs_equal")->max_diff, 0.0);
  EXPECT_LT(check_named(tr, "sa_v1_row_equals_context_vec_2")->max_diff, 1e-6);
  const Walk dr = run_dropout(test::book_config());
  double worst = 0;  // recomputed from the printed row sums
  for (float s : test::step_named(dr, "dropout_attn_weights_row_sums").value.data)
    worst = std::max(worst, std::fabs(static_cast<double>(s) - 1.0));
  EXPECT_NEAR(check_named(dr, "dropout_rows_no_longer_sum_to_1")->max_diff, worst, 1e-6);
  EXPECT_GT(worst, 0.1);
}

TEST(Checks, DropoutEdgeCasesChooseTheRightClaim) {
  Config c = test::book_config();
  c.dropout = 0.0;
  const Walk p0 = run_dropout(c);
  EXPECT_EQ(check_named(p0, "dropout_rows_no_longer_sum_to_1"), nullptr);
  ASSERT_NE(check_named(p0, "dropout_p0_rows_still_sum_to_1"), nullptr);
  EXPECT_TRUE(check_named(p0, "dropout_p0_rows_still_sum_to_1")->passed);
  c.dropout = 1.0;
  const Walk p1 = run_dropout(c);
  EXPECT_TRUE(check_named(p1, "dropout_rows_no_longer_sum_to_1")->passed);
  EXPECT_EQ(check_named(p1, "dropout_rows_no_longer_sum_to_1")->max_diff, 1.0);
  EXPECT_EQ(check_named(p1, "dropout_kept_scaled"), nullptr);  // 1/(1-p) does not exist
  // With attention dropout the wrapper's masks differ from CausalAttention's: no check.
  c = test::book_config();
  c.attn_dropout = 0.1;
  EXPECT_EQ(check_named(run_multi_head(c), "wrapper_first_head_equals_causal_attention"), nullptr);
}

// ---- the helpers fail on perturbed data ----------------------------------------------

TEST(CheckHelpers, CompareCloseFailsOnAPerturbedWalkTensor) {
  const Walk w = run_causal(test::book_config());
  const Tensor& a = test::step_named(w, "masked_simple_norm").value;
  const Tensor& b = test::step_named(w, "attn_weights_causal").value;
  EXPECT_TRUE(compare_close(a, b).passed);
  Tensor bad = a;
  bad(3, 1) += 1e-3f;
  const Comparison c = compare_close(bad, b);
  EXPECT_FALSE(c.passed);
  EXPECT_NEAR(c.max_diff, 1e-3, 1e-6);
  // A float32 rounding step is tolerated.
  Tensor ulp = a;
  ulp(3, 1) = std::nextafter(ulp(3, 1), 2.0f);
  EXPECT_TRUE(compare_close(ulp, b).passed);
}

TEST(CheckHelpers, CompareCloseFailsOnShapeNaNAndInf) {
  const Tensor a({2, 2}, {1, 2, 3, 4});
  EXPECT_FALSE(compare_close(a, Tensor({4}, {1, 2, 3, 4})).passed);
  EXPECT_TRUE(std::isinf(compare_close(a, Tensor({4}, {1, 2, 3, 4})).max_diff));
  Tensor n = a;
  n(1, 1) = NAN;
  EXPECT_FALSE(compare_close(n, a).passed);
  Tensor i = a;
  i(0, 0) = INFINITY;
  EXPECT_FALSE(compare_close(i, a).passed);
  EXPECT_TRUE(compare_close(i, i).passed);  // equal infinities are equal
}

TEST(CheckHelpers, LoopContextVectorsEqualTheMatrixProductAndCatchAPerturbation) {
  const Walk w = run_dot_product(test::book_config());
  const Tensor& weights = test::step_named(w, "attn_weights").value;
  const Tensor& inputs = test::step_named(w, "inputs").value;
  const Tensor& all = test::step_named(w, "all_context_vecs").value;
  const Tensor loop = loop_context_vectors(weights, inputs);
  EXPECT_TRUE(compare_close(all, loop).passed);
  // Row 2 of the loop is context_vec_2.
  EXPECT_TRUE(compare_close(loop[1], test::step_named(w, "context_vec_2").value).passed);
  Tensor skewed = weights;
  skewed(4, 0) += 0.01f;  // one weight off: that row's context vector moves
  const Comparison c = compare_close(all, loop_context_vectors(skewed, inputs));
  EXPECT_FALSE(c.passed);
  EXPECT_GT(c.max_diff, 1e-3);
}

TEST(CheckHelpers, RowSums) {
  const Walk w = run_dot_product(test::book_config());
  const Tensor& weights = test::step_named(w, "attn_weights").value;
  EXPECT_TRUE(rows_sum_to_one(weights).passed);
  EXPECT_FALSE(rows_do_not_sum_to_one(weights).passed);
  Tensor bad = weights;
  bad(2, 2) += 0.25f;
  EXPECT_FALSE(rows_sum_to_one(bad).passed);
  EXPECT_NEAR(rows_sum_to_one(bad).max_diff, 0.25, 1e-6);
  EXPECT_TRUE(rows_do_not_sum_to_one(bad).passed);
  // A 1-D tensor is one row; a 0-dim tensor is one row of one.
  EXPECT_TRUE(rows_sum_to_one(Tensor({3}, {0.25f, 0.25f, 0.5f})).passed);
  EXPECT_FALSE(rows_sum_to_one(Tensor::scalar(NAN)).passed);
}

TEST(CheckHelpers, ZeroAboveDiagonal) {
  const Walk w = run_causal(test::book_config());
  EXPECT_TRUE(zero_above_diagonal(test::step_named(w, "attn_weights_causal").value).passed);
  const Comparison full = zero_above_diagonal(test::step_named(w, "attn_weights").value);
  EXPECT_FALSE(full.passed);
  EXPECT_GT(full.max_diff, 0.1);
  // Batched (B, H, T, T): one future weight in the last block is found.
  Tensor t = Tensor::zeros({2, 2, 3, 3});
  EXPECT_TRUE(zero_above_diagonal(t).passed);
  t.data[3 * 9 + 0 * 3 + 2] = 0.5f;  // block 3, row 0, column 2
  EXPECT_FALSE(zero_above_diagonal(t).passed);
  EXPECT_EQ(zero_above_diagonal(t).max_diff, 0.5);
  EXPECT_FALSE(zero_above_diagonal(Tensor({2, 3}, {0, 0, 0, 0, 0, 0})).passed);  // not square
}

TEST(CheckHelpers, ZeroOrValue) {
  const Walk w = run_dropout(test::book_config());
  const Tensor& ones = test::step_named(w, "dropout_ones").value;
  EXPECT_TRUE(zero_or_value(ones, 2.0f).passed);
  const Comparison wrong_scale = zero_or_value(ones, 1.0f);  // forgetting the 1/(1-p)
  EXPECT_FALSE(wrong_scale.passed);
  EXPECT_EQ(wrong_scale.max_diff, 1.0);
}

TEST(Checks, KeepOnlyMovesChecksToTheLastKeptStep) {
  Walk w = run_causal(test::book_config());
  keep_only(w, {"attn_scores", "masked_simple_norm"});
  ASSERT_EQ(w.steps.size(), 2u);
  for (const auto& c : w.checks) {
    if (c.id == "masked_simple_norm_equals_inf_method") EXPECT_EQ(c.after_step, 2u);
    if (c.id == "softmax_rows_sum_to_1") EXPECT_EQ(c.after_step, 1u);
  }
}

}  // namespace
}  // namespace attn
