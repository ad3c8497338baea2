// Section 3.5.1: causal attention, hiding the tokens that come after each query.
// Texts: src/lang/ (key "causal/<step>").
#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "modules/chapter.h"
#include "ops/ops.h"
#include "stages/common.h"
#include "stages/stages.h"
#include "torch/torch_random.h"

namespace attn {

namespace {

// x / row_sums where row_sums lost its keepdim, (T,), or summed the columns, (1, T): the
// division broadcasts along the rows, so column j is divided by sums[j].
Tensor div_broadcast_rows(const Tensor& x, const Tensor& sums) {
  Tensor out = x;
  const int64_t n = x.size(-1);
  for (int64_t i = 0; i < x.numel(); ++i) out.data[i] = x.data[i] / sums.data[i % n];
  return out;
}

}  // namespace

Walk run_causal(const Config& cfg) { return run_causal_with(cfg, CellChoices{}); }

Walk run_causal_with(const Config& cfg, const CellChoices& c) {
  Walk walk("causal", cfg);
  set_common_vars(walk, cfg);
  const Tensor& inputs = cfg.inputs;
  const int64_t T = cfg.num_tokens();
  const char* linear_grad = cfg.qkv_bias ? "grad_fn=<AddmmBackward0>" : "grad_fn=<MmBackward0>";

  // The weights of SelfAttention_v2 from section 3.4.2 (seed2).
  TorchGenerator gen(cfg.seed2);
  const SelfAttention_v2 sa_v2(gen, cfg.d_in(), cfg.d_out, cfg.qkv_bias, c);

  const Tensor& queries =
      walk.add("queries", query_weights(sa_v2.W_query, sa_v2.W_key, c)(inputs), {linear_grad});
  const Tensor& keys = walk.add("keys", key_weights(sa_v2.W_query, sa_v2.W_key, c)(inputs), {linear_grad});
  const Tensor& attn_scores = walk.add("attn_scores", attention_scores(queries, keys, c),
                                       {"grad_fn=<MmBackward0>"});  // (T, T)
  const int64_t d_k = keys.size(-1);
  walk.vars["d_k"] = std::to_string(d_k);
  walk.vars["sqrt_d_k"] = fmt::format("{:.4g}", std::sqrt(static_cast<double>(d_k)));
  const Tensor& attn_weights = walk.add("attn_weights", scaled_softmax(attn_scores, keys, c),
                                        {"grad_fn=<SoftmaxBackward0>"});
  add_check(walk, "softmax_rows_sum_to_1", rows_sum_to_one(attn_weights));
  // A learner's queries.T @ keys is (d_k, d_k): no (T, T) mask multiplies it, and the notebook stops.
  if (attn_weights.shape != Shape{T, T}) return walk;

  // Method 1: zero the weights above the diagonal, then renormalise each row.
  const Tensor& mask_simple = walk.add("mask_simple", kept_mask(T, c));
  const Tensor& masked_simple = walk.add("masked_simple", mul(attn_weights, mask_simple),
                                         {"grad_fn=<MulBackward0>"});
  const Tensor& renormalized = c.renormalized == CellChoices::Renormalized::MaskSimple    ? mask_simple
                               : c.renormalized == CellChoices::Renormalized::AttnWeights ? attn_weights
                                                                                          : masked_simple;
  // masked_simple.sum(dim=-1, keepdim=True): (T, 1). A learner's dim=0 sums columns: (1, T).
  const Tensor& row_sums = walk.add(
      "row_sums", c.row_sums_dim == 0 ? transpose2d(sum_lastdim(transpose2d(renormalized), c.keepdim))
                                      : sum_lastdim(renormalized, c.keepdim),
      {"grad_fn=<SumBackward1>"});
  const Tensor& masked_simple_norm =
      walk.add("masked_simple_norm",
               c.keepdim && c.row_sums_dim != 0 ? div_keepdim(renormalized, row_sums)
                                                : div_broadcast_rows(renormalized, row_sums),
               {"grad_fn=<DivBackward0>"});
  add_check(walk, "rows_sum_to_1", rows_sum_to_one(masked_simple_norm));

  // Method 2: set future scores to -inf before the softmax; exp(-inf) = 0.
  const Tensor& mask = walk.add("mask", hidden_mask(T, c));
  const Tensor& masked_scores = walk.add("masked", masked(attn_scores, mask, c), {"grad_fn=<MaskedFillBackward0>"});
  // (A learner's mask filled into the weights after the softmax, not into the scores.)
  const Tensor& attn_weights_causal = walk.add(
      "attn_weights_causal",
      c.mask_after_softmax ? masked_fill(scaled_softmax(masked_scores, keys, c), mask, c.fill)
                           : scaled_softmax(masked_scores, keys, c),
      {"grad_fn=<SoftmaxBackward0>"});
  add_check(walk, "causal_no_future_weight", zero_above_diagonal(attn_weights_causal));
  add_check(walk, "masked_simple_norm_equals_inf_method",
            compare_close(masked_simple_norm, attn_weights_causal));
  return walk;
}

}  // namespace attn
