// Section 3.3: a simple self-attention mechanism without trainable weights.
// Titles and explanations of every step: src/lang/ (key "dot-product/<step>").
#include <fmt/format.h>

#include <cmath>

#include "core/number_format.h"
#include "ops/ops.h"
#include "stages/common.h"
#include "stages/stages.h"

namespace attn {

namespace {

// |x|: a vector's length, in double so the text's numbers carry no extra rounding.
double length(const Tensor& x) {
  double s = 0.0;
  for (float v : x.data) s += static_cast<double>(v) * v;
  return std::sqrt(s);
}

// x · y = |x| |y| cos θ grows with length as well as with alignment. The texts of
// attn_scores_2 and attn_scores say so with this walk's numbers: which score is the
// largest, and a row where another token outscores the query itself (which no vector can
// do by alignment alone, so that token must be longer).
void score_facts(Walk& walk, const Tensor& inputs, const Tensor& attn_scores_2, Step& attn_scores_2_step,
                 const Tensor& attn_scores, Step& attn_scores_step, int64_t q) {
  auto& v = walk.vars;
  int64_t top = q;  // ties go to the query itself
  for (int64_t i = 0; i < attn_scores_2.numel(); ++i)
    if (attn_scores_2(i) > attn_scores_2(top)) top = i;
  v["top"] = std::to_string(top + 1);
  v["top_score"] = python_fixed(attn_scores_2(top), 4);
  v["self_score"] = python_fixed(attn_scores_2(q), 4);
  v["top_len"] = python_fixed(length(inputs[top]), 4);
  v["q_len"] = python_fixed(length(inputs[q]), 4);
  if (top != q) attn_scores_2_step.variant = "longer_wins";

  // The row where another token beats the diagonal by the most.
  int64_t ci = -1, cj = -1;
  double margin = 0.0;
  for (int64_t i = 0; i < attn_scores.size(0); ++i)
    for (int64_t j = 0; j < attn_scores.size(1); ++j)
      if (j != i && attn_scores(i, j) - attn_scores(i, i) > margin) {
        margin = attn_scores(i, j) - attn_scores(i, i);
        ci = i, cj = j;
      }
  if (ci < 0) {
    attn_scores_step.variant = "self_wins";
    return;
  }
  v["ci"] = std::to_string(ci + 1);
  v["cj"] = std::to_string(cj + 1);
  v["c_score"] = python_fixed(attn_scores(ci, cj), 4);
  v["c_self"] = python_fixed(attn_scores(ci, ci), 4);
  v["ci_len"] = python_fixed(length(inputs[ci]), 4);
  v["cj_len"] = python_fixed(length(inputs[cj]), 4);
}

}  // namespace

Walk run_dot_product(const Config& cfg) {
  Walk walk("dot-product", cfg);
  set_common_vars(walk, cfg);
  walk.section = "3.3.1";
  const int64_t T = cfg.num_tokens(), d_in = cfg.d_in();
  const int64_t q = cfg.query - 1;

  const Tensor& inputs = walk.add("inputs", cfg.inputs);  // (T, d_in)
  const Tensor query = walk.add("query", inputs[q]);      // (d_in,)

  // Attention scores: the dot product of the query with every input, ω2i = x(2) · x(i).
  // clang-format off
  const Tensor& attn_scores_2 = walk.add("attn_scores_2", Role::Scores, dot_scores(inputs, query));  // (T,)
  Step& attn_scores_2_step = walk.last();  // its text depends on attn_scores (score_facts)
  // clang-format on

  // One of them by hand: multiply element by element and add up.
  Tensor res = Tensor::scalar(0.0f);
  const Tensor x_1 = inputs[0];
  double magnitude = 0.0;  // Σ |x_1[k] · query[k]|: how much rounding the sum can carry
  for (int64_t idx = 0; idx < d_in; ++idx) {
    res(0) = res(0) + x_1(idx) * query(idx);
    magnitude += std::fabs(static_cast<double>(x_1(idx)) * query(idx));
  }
  walk.add("res", res);
  add_check(walk, "res_equals_attn_scores_2_0",
            compare_close(res, Tensor::scalar(attn_scores_2(0)), 1e-5, 1e-6 * (1.0 + magnitude)));

  const Tensor& attn_weights_2 = walk.add("attn_weights_2", Role::Weights, softmax_lastdim(attn_scores_2));
  add_check(walk, "softmax_sums_to_1", rows_sum_to_one(attn_weights_2));

  // Context vector: the attention-weighted sum of the inputs, z(2) = Σ α2i x(i).
  Tensor context_vec_2 = Tensor::zeros({d_in});  // (d_in,)
  for (int64_t i = 0; i < T; ++i) {
    const Tensor x_i = inputs[i];
    for (int64_t k = 0; k < d_in; ++k) context_vec_2(k) += attn_weights_2(i) * x_i(k);
  }
  walk.add("context_vec_2", context_vec_2);
  walk.section = "3.3.2";

  // Now every query at once, as matrix products.
  const Tensor& attn_scores = walk.add("attn_scores", Role::Scores, matmul_transposed(inputs, inputs));  // (T, T)
  score_facts(walk, inputs, attn_scores_2, attn_scores_2_step, attn_scores, walk.last(), q);
  const Tensor& attn_weights = walk.add("attn_weights", Role::Weights, softmax_lastdim(attn_scores));  // (T, T)
  // The notebook checks one row by hand, typing the printed weights into Python's sum():
  // 4 decimals each, added up as Python floats.
  {
    double row_sum = 0.0;
    for (int64_t j = 0; j < T; ++j) row_sum += std::stod(python_fixed(attn_weights(q, j), 4));
    walk.add_python("row_2_sum", row_sum, python_float_str(row_sum), "float");
    label_last(walk, fmt::format("Row {} sum:", cfg.query));
  }
  walk.add("attn_weights_row_sums", sum_lastdim(attn_weights, false));  // (T,)
  label_last(walk, "All row sums:");
  add_check(walk, "softmax_rows_sum_to_1", rows_sum_to_one(attn_weights));
  const Tensor& all_context_vecs = walk.add("all_context_vecs", matmul(attn_weights, inputs));  // (T, d_in)
  // The learner's check: the loop of context_vec_2, run for every query, gives every row.
  add_check(walk, "all_context_vecs_equal_loop",
            compare_close(all_context_vecs, loop_context_vectors(attn_weights, inputs)));
  // The notebook prints the loop's result again, to compare it with row 2 by eye.
  walk.add("context_vec_2_previous", context_vec_2);
  label_last(walk, "Previous 2nd context vector:");
  return walk;
}

}  // namespace attn
