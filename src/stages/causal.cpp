// Section 3.5.1: causal attention, hiding the tokens that come after each query.
// Texts: src/lang/ (key "causal/<step>").
#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "modules/chapter.h"
#include "ops/ops.h"
#include "stages/causal_weights.h"
#include "stages/common.h"
#include "stages/stages.h"
#include "torch/torch_random.h"

namespace attn {

Walk run_causal(const Config& cfg) { return run_causal_with(cfg, book_cells()); }

Walk run_causal_with(const Config& cfg, const Cells& cells) {
  Walk walk("causal", cfg);
  set_common_vars(walk, cfg);
  walk.section = "3.5.1";
  const Tensor& inputs = cfg.inputs;
  const int64_t T = cfg.num_tokens();
  const char* linear_grad = cfg.qkv_bias ? "grad_fn=<AddmmBackward0>" : "grad_fn=<MmBackward0>";

  // The weights of SelfAttention_v2 from section 3.4.2 (seed2).
  const SelfAttention_v2 sa_v2 = notebook_sa_v2(cfg, cells);

  const Layer W_query = layer(sa_v2.W_query), W_key = layer(sa_v2.W_key);
  const Tensor& queries = walk.add("queries", cells.queries(inputs, W_query, W_key), {linear_grad});
  const Tensor& keys = walk.add("keys", cells.keys(inputs, W_query, W_key), {linear_grad});
  const Tensor& attn_scores = walk.add("attn_scores", Role::Scores, cells.score(queries, keys),
                                       {"grad_fn=<MmBackward0>"});  // queries @ keys.T: (T, T)
  const int64_t d_k = keys.size(-1);
  walk.vars["d_k"] = std::to_string(d_k);
  walk.vars["sqrt_d_k"] = fmt::format("{:.4g}", std::sqrt(static_cast<double>(d_k)));
  const Tensor& attn_weights = walk.add("attn_weights", Role::Weights, cells.softmax(attn_scores, notebook_self(keys)),
                                        {"grad_fn=<SoftmaxBackward0>"});
  add_check(walk, "softmax_rows_sum_to_1", rows_sum_to_one(attn_weights));
  // attn_weights * mask_simple needs (T, T) weights: PyTorch stops here otherwise.
  if (attn_weights.shape != Shape{T, T}) return walk;

  // Method 1: zero the weights above the diagonal, then renormalise each row.
  const Tensor& mask_simple = walk.add("mask_simple", Role::MaskKept, cells.mask_simple(T));  // torch.tril(torch.ones(T, T))
  const Tensor& masked_simple = walk.add("masked_simple", Role::Weights, mul(attn_weights, mask_simple),
                                         {"grad_fn=<MulBackward0>"});
  // row_sums = masked_simple.sum(dim=-1, keepdim=True): (T, 1); masked_simple / row_sums.
  auto [row_sums, masked_simple_norm] = cells.renormalize(attn_weights, mask_simple, masked_simple);
  walk.add("row_sums", std::move(row_sums), {"grad_fn=<SumBackward1>"});
  const Tensor& norm = walk.add("masked_simple_norm", Role::Weights, std::move(masked_simple_norm), {"grad_fn=<DivBackward0>"});
  add_check(walk, "rows_sum_to_1", rows_sum_to_one(norm));

  // Method 2: set future scores to -inf before the softmax; exp(-inf) = 0.
  const Tensor& mask = walk.add("mask", Role::MaskHidden, cells.mask(T));  // torch.triu(torch.ones(T, T), diagonal=1)
  const Self self = {keys, mask, notebook_self(keys).dropout};
  const Tensor& masked = walk.add("masked", Role::Scores, cells.masked(attn_scores, self), {"grad_fn=<MaskedFillBackward0>"});
  const Tensor& attn_weights_causal =
      walk.add("attn_weights_causal", Role::Weights, cells.softmax(masked, self), {"grad_fn=<SoftmaxBackward0>"});
  add_check(walk, "causal_no_future_weight", zero_above_diagonal(attn_weights_causal));
  add_check(walk, "masked_simple_norm_equals_inf_method", compare_close(norm, attn_weights_causal));
  return walk;
}

}  // namespace attn
