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

Walk run_causal(const Config& cfg) {
  Walk walk("causal", cfg);
  set_common_vars(walk, cfg);
  const Tensor& inputs = cfg.inputs;
  const int64_t T = cfg.num_tokens();
  const char* linear_grad = cfg.qkv_bias ? "grad_fn=<AddmmBackward0>" : "grad_fn=<MmBackward0>";

  // The weights of SelfAttention_v2 from section 3.4.2 (seed2).
  TorchGenerator gen(cfg.seed2);
  const SelfAttention_v2 sa_v2(gen, cfg.d_in(), cfg.d_out, cfg.qkv_bias);

  const Tensor& queries = walk.add("queries", sa_v2.W_query(inputs), {linear_grad});
  const Tensor& keys = walk.add("keys", sa_v2.W_key(inputs), {linear_grad});
  const Tensor& attn_scores = walk.add("attn_scores", matmul_transposed(queries, keys),
                                       {"grad_fn=<MmBackward0>"});  // (T, T)
  const double sqrt_d_k = std::sqrt(static_cast<double>(keys.size(-1)));
  walk.vars["d_k"] = std::to_string(keys.size(-1));
  walk.vars["sqrt_d_k"] = fmt::format("{:.4g}", sqrt_d_k);
  const Tensor& attn_weights = walk.add("attn_weights", softmax_lastdim(div_scalar(attn_scores, sqrt_d_k)),
                                        {"grad_fn=<SoftmaxBackward0>"});
  add_check(walk, "softmax_rows_sum_to_1", rows_sum_to_one(attn_weights));

  // Method 1: zero the weights above the diagonal, then renormalise each row.
  const Tensor& mask_simple = walk.add("mask_simple", tril_ones(T));
  const Tensor& masked_simple = walk.add("masked_simple", mul(attn_weights, mask_simple),
                                         {"grad_fn=<MulBackward0>"});
  const Tensor& row_sums = walk.add("row_sums", sum_lastdim(masked_simple, true), {"grad_fn=<SumBackward1>"});
  const Tensor& masked_simple_norm = walk.add("masked_simple_norm", div_keepdim(masked_simple, row_sums),
                                              {"grad_fn=<DivBackward0>"});
  add_check(walk, "rows_sum_to_1", rows_sum_to_one(masked_simple_norm));

  // Method 2: set future scores to -inf before the softmax; exp(-inf) = 0.
  const Tensor& mask = walk.add("mask", triu_ones(T, 1));
  const Tensor& masked = walk.add(
      "masked", masked_fill(attn_scores, mask, -std::numeric_limits<float>::infinity()),
      {"grad_fn=<MaskedFillBackward0>"});
  const Tensor& attn_weights_causal = walk.add(
      "attn_weights_causal", softmax_lastdim(div_scalar(masked, sqrt_d_k)), {"grad_fn=<SoftmaxBackward0>"});
  add_check(walk, "causal_no_future_weight", zero_above_diagonal(attn_weights_causal));
  add_check(walk, "masked_simple_norm_equals_inf_method",
            compare_close(masked_simple_norm, attn_weights_causal));
  return walk;
}

}  // namespace attn
