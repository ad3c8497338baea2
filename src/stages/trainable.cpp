// Section 3.4: self-attention with trainable weights (scaled dot-product attention).
#include <fmt/format.h>

#include <cmath>

#include "modules.h"
#include "ops.h"
#include "stages/common.h"
#include "stages/stages.h"
#include "torch_random.h"

namespace attn {

Walk run_trainable(const Config& cfg) {
  Walk walk("trainable", cfg);
  const Tensor& inputs = cfg.inputs;
  const int64_t d_in = cfg.d_in(), d_out = cfg.d_out;
  const int64_t q = cfg.query - 1;
  const char* init = cfg.init == InitKind::Rand ? "rand" : "randn";
  TorchGenerator gen;

  const Tensor& x_2 = walk.add("x_2", fmt::format("the query token x({}) = inputs[{}]", cfg.query, q),
                               inputs[q]);

  // 3.4.1: three weight matrices, drawn in this order after torch.manual_seed(seed1).
  gen.manual_seed(cfg.seed1);
  const auto weight_title = [&](const char* what) {
    return fmt::format("{}: nn.Parameter(torch.{}({}, {}), requires_grad=False), seed {}", what,
                       init, d_in, d_out, cfg.seed1);
  };
  const Tensor& W_query = walk.add_parameter(
      "W_query", weight_title("projects inputs to queries"),
      init_parameter(gen, d_in, d_out, cfg.init), /*requires_grad=*/false);
  const Tensor& W_key = walk.add_parameter(
      "W_key", weight_title("projects inputs to keys"),
      init_parameter(gen, d_in, d_out, cfg.init), false);
  const Tensor& W_value = walk.add_parameter(
      "W_value", weight_title("projects inputs to values"),
      init_parameter(gen, d_in, d_out, cfg.init), false);

  const Tensor& query_2 = walk.add("query_2", "x_2 @ W_query", matmul(x_2, W_query));  // (d_out,)
  walk.add("key_2", "x_2 @ W_key", matmul(x_2, W_key));
  walk.add("value_2", "x_2 @ W_value", matmul(x_2, W_value));

  const Tensor& keys = walk.add("keys", "inputs @ W_key: a key for every token", matmul(inputs, W_key));
  const Tensor& values = walk.add("values", "inputs @ W_value: a value for every token",
                                  matmul(inputs, W_value));                    // (T, d_out)

  const Tensor keys_2 = keys[q];
  walk.add("attn_score_22", fmt::format("query_2 · keys[{}]: the score of x({}) for itself", q, cfg.query),
           dot(query_2, keys_2));
  const Tensor& attn_scores_2 = walk.add("attn_scores_2", "query_2 @ keys.T: scores against every key",
                                         matmul(query_2, transpose2d(keys)));  // (T,)

  // Scale by sqrt(d_k) so that large dot products do not push softmax into saturation.
  const double d_k = static_cast<double>(keys.size(-1));
  const Tensor& attn_weights_2 = walk.add(
      "attn_weights_2", fmt::format("softmax(attn_scores_2 / sqrt(d_k)), d_k = {}", keys.size(-1)),
      softmax_lastdim(div_scalar(attn_scores_2, std::sqrt(d_k))));
  walk.add("context_vec_2", "attn_weights_2 @ values", matmul(attn_weights_2, values));  // (d_out,)

  // 3.4.2: the same computation as a module, for every token at once.
  gen.manual_seed(cfg.seed1);
  const SelfAttention_v1 sa_v1(gen, d_in, d_out, cfg.init);
  walk.add("sa_v1_output",
           fmt::format("SelfAttention_v1({}, {})(inputs), seed {}: row {} is context_vec_2", d_in,
                       d_out, cfg.seed1, cfg.query),
           sa_v1.forward(inputs), {"grad_fn=<MmBackward0>"});

  gen.manual_seed(cfg.seed2);
  const SelfAttention_v2 sa_v2(gen, d_in, d_out, cfg.qkv_bias);
  const auto linear_title = [&](const char* layer, const char* part) {
    return fmt::format("SelfAttention_v2 (seed {}): nn.Linear {}.{}, stored as (d_out, d_in)",
                       cfg.seed2, layer, part);
  };
  for (const auto& [name, layer] : {std::pair<const char*, const Linear*>{"W_query", &sa_v2.W_query},
                                    {"W_key", &sa_v2.W_key},
                                    {"W_value", &sa_v2.W_value}}) {
    walk.add_parameter(fmt::format("sa_v2.{}.weight", name), linear_title(name, "weight"),
                       layer->weight);
    if (layer->bias)
      walk.add_parameter(fmt::format("sa_v2.{}.bias", name), linear_title(name, "bias"), *layer->bias);
  }
  walk.add("sa_v2_output",
           fmt::format("SelfAttention_v2({}, {}{})(inputs)", d_in, d_out,
                       cfg.qkv_bias ? ", qkv_bias=True" : ""),
           sa_v2.forward(inputs), {"grad_fn=<MmBackward0>"});
  return walk;
}

}  // namespace attn
