// Section 3.5.1: causal attention, hiding the tokens that come after each query.
#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "modules.h"
#include "ops.h"
#include "stages/stages.h"
#include "torch_random.h"

namespace attn {

Walk run_causal(const Config& cfg) {
  Walk walk("causal", cfg);
  const Tensor& inputs = cfg.inputs;
  const int64_t T = cfg.num_tokens();
  const char* linear_grad = cfg.qkv_bias ? "grad_fn=<AddmmBackward0>" : "grad_fn=<MmBackward0>";

  // The weights of SelfAttention_v2 from section 3.4.2 (seed2).
  TorchGenerator gen(cfg.seed2);
  const SelfAttention_v2 sa_v2(gen, cfg.d_in(), cfg.d_out, cfg.qkv_bias);

  const Tensor& queries = walk.add("queries", fmt::format("sa_v2.W_query(inputs), seed {}", cfg.seed2), sa_v2.W_query(inputs),
           {linear_grad});
  const Tensor& keys = walk.add("keys", "sa_v2.W_key(inputs)", sa_v2.W_key(inputs), {linear_grad});
  const Tensor& attn_scores = walk.add("attn_scores", "queries @ keys.T",
                                       matmul(queries, transpose2d(keys)),
                                       {"grad_fn=<MmBackward0>"});  // (T, T)
  const double sqrt_d_k = std::sqrt(static_cast<double>(keys.size(-1)));
  const Tensor& attn_weights = walk.add(
      "attn_weights", "softmax(attn_scores / sqrt(d_k)): every token still sees the future",
      softmax_lastdim(div_scalar(attn_scores, sqrt_d_k)), {"grad_fn=<SoftmaxBackward0>"});

  // Method 1: zero the weights above the diagonal, then renormalise each row.
  const Tensor& mask_simple = walk.add("mask_simple", "torch.tril(torch.ones(T, T)): 1 where j <= i",
                                       tril_ones(T));
  const Tensor& masked_simple = walk.add("masked_simple", "attn_weights * mask_simple",
                                         mul(attn_weights, mask_simple), {"grad_fn=<MulBackward0>"});
  const Tensor& row_sums = walk.add("row_sums", "masked_simple.sum(dim=-1, keepdim=True)",
                                    sum_lastdim(masked_simple, true), {"grad_fn=<SumBackward1>"});
  walk.add("masked_simple_norm", "masked_simple / row_sums: rows sum to 1 again",
           div_keepdim(masked_simple, row_sums), {"grad_fn=<DivBackward0>"});

  // Method 2: set future scores to -inf before the softmax; exp(-inf) = 0.
  const Tensor& mask = walk.add("mask", "torch.triu(torch.ones(T, T), diagonal=1): 1 where j > i",
                                triu_ones(T, 1));
  const Tensor& masked = walk.add(
      "masked", "attn_scores.masked_fill(mask.bool(), -torch.inf)",
      masked_fill(attn_scores, mask, -std::numeric_limits<float>::infinity()),
      {"grad_fn=<MaskedFillBackward0>"});
  walk.add("attn_weights_causal", "softmax(masked / sqrt(d_k)): equal to masked_simple_norm",
           softmax_lastdim(div_scalar(masked, sqrt_d_k)), {"grad_fn=<SoftmaxBackward0>"});
  return walk;
}

}  // namespace attn
