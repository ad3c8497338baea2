// Section 3.5.2-3.5.3: dropout on attention weights, then the CausalAttention class.
#include <fmt/format.h>

#include "modules.h"
#include "ops.h"
#include "stages/causal_weights.h"
#include "stages/stages.h"
#include "torch_random.h"

namespace attn {

Walk run_dropout(const Config& cfg) {
  Walk walk("dropout", cfg);
  const int64_t T = cfg.num_tokens();
  walk.notes.push_back(dropout_kernel_note(cfg.dropout_rng));
  TorchGenerator gen;

  const Tensor& attn_weights = walk.add(
      "attn_weights_causal", "the causal attention weights of section 3.5.1",
      causal_attn_weights(cfg), {"grad_fn=<SoftmaxBackward0>"});

  // Dropout keeps each element with probability 1-p and scales kept ones by 1/(1-p),
  // so the expected value is unchanged, but rows no longer sum to 1.
  const Dropout dropout{cfg.dropout, cfg.dropout_rng};
  gen.manual_seed(cfg.seed1);
  walk.add("dropout_ones",
           fmt::format("torch.nn.Dropout({:g})(torch.ones({}, {})), seed {}: kept entries become "
                       "1/(1-p)", cfg.dropout, T, T, cfg.seed1),
           dropout(gen, Tensor::full({T, T}, 1.0f)));
  gen.manual_seed(cfg.seed1);
  const Tensor& dropped = walk.add(
      "dropout_attn_weights",
      fmt::format("the same dropout on attn_weights_causal, seed {}", cfg.seed1),
      dropout(gen, attn_weights), {dropout_grad_fn(cfg.dropout, "grad_fn=<SoftmaxBackward0>")});
  walk.add("dropout_attn_weights_row_sums", "row sums after dropout: no longer 1",
           sum_lastdim(dropped, false),
           {"grad_fn=<SumBackward1>"});

  // 3.5.3: a batch of identical inputs through the CausalAttention module.
  const Tensor& batch = walk.add(
      "batch", fmt::format("torch.stack((inputs,) * {}): a batch of {} copies", cfg.batch, cfg.batch),
      stack_copies(cfg.inputs, cfg.batch));                        // (B, T, d_in)
  gen.manual_seed(cfg.seed1);
  const CausalAttention ca(gen, cfg.d_in(), cfg.d_out, T, cfg.attn_dropout, cfg.qkv_bias,
                           cfg.dropout_rng);
  walk.add("causal_attention_context_vecs",
           fmt::format("CausalAttention({}, {}, {}, {:g}{})(batch), seed {}", cfg.d_in(), cfg.d_out,
                       T, cfg.attn_dropout, cfg.qkv_bias ? ", qkv_bias=True" : "", cfg.seed1),
           ca.forward(gen, batch), {"grad_fn=<UnsafeViewBackward0>"});  // (B, T, d_out)
  return walk;
}

}  // namespace attn
