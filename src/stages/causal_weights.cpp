#include "stages/causal_weights.h"

#include "modules/chapter.h"
#include "ops/ops.h"
#include "torch/torch_random.h"

namespace attn {

SelfAttention_v2 notebook_sa_v2(const Config& cfg, const Cells& cells) {
  TorchGenerator gen(cfg.seed2);
  if (!cells.seed.is_book()) {  // section 3.4's draws before it: 3.4.1's three matrices, then sa_v1
    const int64_t d_in = cfg.d_in(), d_out = cfg.d_out;
    gen.manual_seed(cfg.seed1);
    declared_in_order<Tensor>(cells, [&] { return init_parameter(gen, d_in, d_out, cfg.init); });
    cells.seed(gen, cfg.seed1, "sa_v1");
    const SelfAttention_v1 sa_v1(gen, d_in, d_out, cfg.init, cells);
    cells.seed(gen, cfg.seed2, "sa_v2");
  }
  return SelfAttention_v2(gen, cfg.d_in(), cfg.d_out, cfg.qkv_bias, cells);
}

CausalWeights causal_weights(const Config& cfg, const Cells& cells) {
  const SelfAttention_v2 sa_v2 = notebook_sa_v2(cfg, cells);
  const Layer W_query = layer(sa_v2.W_query), W_key = layer(sa_v2.W_key);
  CausalWeights w;
  w.queries = cells.queries(cfg.inputs, W_query, W_key);
  w.keys = cells.keys(cfg.inputs, W_query, W_key);
  w.attn_scores = cells.score(w.queries, w.keys);
  w.attn_weights = cells.softmax(w.attn_scores, notebook_self(w.keys));
  w.mask = cells.mask(cfg.num_tokens());
  w.attn_weights_causal = causal_attention_weights(w.queries, w.keys, w.mask, nullptr, {}, cells);
  return w;
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
