// Section 3.3: a simple self-attention mechanism without trainable weights.
// Titles and explanations of every step: src/lang/ (key "dot-product/<step>").
#include <cmath>

#include "ops.h"
#include "stages/common.h"
#include "stages/stages.h"

namespace attn {

Walk run_dot_product(const Config& cfg) {
  Walk walk("dot-product", cfg);
  set_common_vars(walk, cfg);
  const int64_t T = cfg.num_tokens(), d_in = cfg.d_in();
  const int64_t q = cfg.query - 1;

  const Tensor& inputs = walk.add("inputs", cfg.inputs);             // (T, d_in)
  const Tensor query = walk.add("query", inputs[q]);                 // (d_in,)

  // Attention scores: the dot product of the query with every input, ω2i = x(2) · x(i).
  const Tensor& attn_scores_2 = walk.add("attn_scores_2", dot_scores(inputs, query));  // (T,)

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

  const Tensor& attn_weights_2 = walk.add("attn_weights_2", softmax_lastdim(attn_scores_2));
  add_check(walk, "softmax_sums_to_1", rows_sum_to_one(attn_weights_2));

  // Context vector: the attention-weighted sum of the inputs, z(2) = Σ α2i x(i).
  Tensor context_vec_2 = Tensor::zeros({d_in});                      // (d_in,)
  for (int64_t i = 0; i < T; ++i) {
    const Tensor x_i = inputs[i];
    for (int64_t k = 0; k < d_in; ++k) context_vec_2(k) += attn_weights_2(i) * x_i(k);
  }
  walk.add("context_vec_2", context_vec_2);

  // Now every query at once, as matrix products.
  const Tensor& attn_scores = walk.add("attn_scores", matmul_transposed(inputs, inputs));  // (T, T)
  const Tensor& attn_weights = walk.add("attn_weights", softmax_lastdim(attn_scores));       // (T, T)
  walk.add("attn_weights_row_sums", sum_lastdim(attn_weights, false));                       // (T,)
  add_check(walk, "softmax_rows_sum_to_1", rows_sum_to_one(attn_weights));
  const Tensor& all_context_vecs = walk.add("all_context_vecs", matmul(attn_weights, inputs));  // (T, d_in)
  // The learner's check: the loop of context_vec_2, run for every query, gives every row.
  add_check(walk, "all_context_vecs_equal_loop",
            compare_close(all_context_vecs, loop_context_vectors(attn_weights, inputs)));
  return walk;
}

}  // namespace attn
