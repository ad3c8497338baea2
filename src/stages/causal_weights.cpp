#include "stages/causal_weights.h"

#include "modules/chapter.h"
#include "ops/ops.h"
#include "torch/torch_random.h"

namespace attn {

Tensor causal_attn_weights(const Config& cfg, const Choices& c) {
  TorchGenerator gen(cfg.seed2);
  const SelfAttention_v2 sa_v2(gen, cfg.d_in(), cfg.d_out, cfg.qkv_bias, c);
  const Tensor queries = query_weights(sa_v2.W_query, sa_v2.W_key, c)(cfg.inputs);
  const Tensor keys = key_weights(sa_v2.W_query, sa_v2.W_key, c)(cfg.inputs);
  return causal_attention_weights(queries, keys, triu_ones(cfg.num_tokens(), 1), nullptr, {}, c);
}

Tensor causal_attn_weights_dropped(const Config& cfg, const Choices& c, const DropoutFn& dropout) {
  TorchGenerator gen(cfg.seed2);
  const SelfAttention_v2 sa_v2(gen, cfg.d_in(), cfg.d_out, cfg.qkv_bias, c);
  const Tensor queries = query_weights(sa_v2.W_query, sa_v2.W_key, c)(cfg.inputs);
  const Tensor keys = key_weights(sa_v2.W_query, sa_v2.W_key, c)(cfg.inputs);
  const int64_t T = cfg.num_tokens();
  switch (c.dropout_at) {
    case Choices::DropoutAt::ScoresBeforeMask:
    case Choices::DropoutAt::ScoresAfterMask:
      return causal_attention_weights(queries, keys, triu_ones(T, 1), nullptr, {}, c, dropout);
    case Choices::DropoutAt::UnmaskedWeights:  // dropout(attn_weights) of 3.5.1's unmasked weights
      return dropout(scaled_softmax(attention_scores(queries, keys, c), keys, c));
    case Choices::DropoutAt::BeforeRenormalising: {  // then masked_simple and its row sums, as 3.5.1
      const Tensor masked_simple = mul(dropout(scaled_softmax(attention_scores(queries, keys, c), keys, c)),
                                       kept_mask(T, c));
      return div_keepdim(masked_simple, sum_lastdim(masked_simple, true));
    }
    default:
      return dropout(causal_attention_weights(queries, keys, triu_ones(T, 1), nullptr, {}, c));
  }
}

void continue_after_causal_attention(TorchGenerator& gen, const Config& cfg) {
  gen.manual_seed(cfg.seed1);
  const CausalAttention ca(gen, cfg.d_in(), cfg.d_out, cfg.num_tokens(), cfg.attn_dropout, cfg.qkv_bias,
                           cfg.dropout_rng, cfg.causal_softmax);
  ca.forward(gen, stack_copies(cfg.inputs, cfg.batch));
}

const char* dropout_grad_fn(double p, const char* input_grad_fn) {
  // p == 0 returns the input itself; otherwise the result is input * noise.
  return p == 0.0 ? input_grad_fn : "grad_fn=<MulBackward0>";
}

const char* dropout_kernel_note(DropoutKernel kernel) {
  // Keys of src/lang/'s tables; localize() replaces them with the text.
  return kernel == DropoutKernel::Default ? "note.dropout_kernel.default" : "note.dropout_kernel.mkl";
}

}  // namespace attn
