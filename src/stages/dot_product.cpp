// Section 3.3: a simple self-attention mechanism without trainable weights.
#include <fmt/format.h>

#include "ops.h"
#include "stages/common.h"
#include "stages/stages.h"

namespace attn {

Walk run_dot_product(const Config& cfg) {
  Walk walk("dot-product", cfg);
  const int64_t T = cfg.num_tokens(), d_in = cfg.d_in();
  const int64_t q = cfg.query - 1;
  const std::string xq = fmt::format("x({})", cfg.query);

  const Tensor& inputs = walk.add("inputs", fmt::format("the {} token embeddings, one row per token", T),
                                  cfg.inputs);
  const Tensor query = walk.add("query", fmt::format("the query {} = inputs[{}]", xq, q), inputs[q]);

  // Attention scores: the dot product of the query with every input, ω2i = x(2) · x(i).
  const Tensor& attn_scores_2 = walk.add(
      "attn_scores_2", fmt::format("attention scores: {} · x(i) for every input x(i)", xq),
           dot_scores(inputs, query));                                 // (T,)

  // One of them by hand: multiply element by element and add up.
  Tensor res = Tensor::scalar(0.0f);
  const Tensor x_1 = inputs[0];
  for (int64_t idx = 0; idx < d_in; ++idx) res(0) = res(0) + x_1(idx) * query(idx);
  walk.add("res", fmt::format("x(1) · {} worked element by element, equal to attn_scores_2[0]", xq),
           res);

  const Tensor& attn_weights_2 = walk.add(
      "attn_weights_2", "attention weights: softmax(attn_scores_2), they sum to 1",
      softmax_lastdim(attn_scores_2));

  // Context vector: the attention-weighted sum of the inputs, z(2) = Σ α2i x(i).
  Tensor context_vec_2 = Tensor::zeros({d_in});                      // (d_in,)
  for (int64_t i = 0; i < T; ++i) {
    const Tensor x_i = inputs[i];
    for (int64_t k = 0; k < d_in; ++k) context_vec_2(k) += attn_weights_2(i) * x_i(k);
  }
  walk.add("context_vec_2", fmt::format("context vector for {}: Σ attn_weights_2[i] · x(i)", xq),
           context_vec_2);

  // Now every query at once, as matrix products.
  const Tensor& attn_scores = walk.add("attn_scores", "all attention scores: inputs @ inputs.T",
                                       matmul(inputs, transpose2d(inputs)));   // (T, T)
  const Tensor& attn_weights = walk.add("attn_weights", "softmax over each row (dim=-1)",
                                        softmax_lastdim(attn_scores));         // (T, T)
  walk.add("attn_weights_row_sums", "every row of attn_weights sums to 1",
           sum_lastdim(attn_weights, false));                                 // (T,)
  walk.add("all_context_vecs",
           fmt::format("all context vectors: attn_weights @ inputs; row {} is context_vec_2", cfg.query),
           matmul(attn_weights, inputs));                                     // (T, d_in)
  return walk;
}

}  // namespace attn
