// Section 3.6: multi-head attention, first as stacked CausalAttention heads, then as
// one module that splits its projections into heads.
#include <fmt/format.h>

#include "modules.h"
#include "ops.h"
#include "stages/causal_weights.h"
#include "stages/stages.h"
#include "torch_random.h"

namespace attn {

Walk run_multi_head(const Config& cfg) {
  Walk walk("multi-head", cfg);
  const int64_t T = cfg.num_tokens(), d_in = cfg.d_in(), d_out = cfg.d_out, H = cfg.heads;
  if (cfg.attn_dropout > 0.0) walk.notes.push_back(dropout_kernel_note(cfg.dropout_rng));
  const std::string bias_arg = cfg.qkv_bias ? ", qkv_bias=True" : "";
  TorchGenerator gen;

  const Tensor& batch = walk.add(
      "batch", fmt::format("torch.stack((inputs,) * {}): a batch of {} copies", cfg.batch, cfg.batch),
      stack_copies(cfg.inputs, cfg.batch));                         // (B, T, d_in)

  // 3.6.1: H independent CausalAttention heads, outputs concatenated.
  gen.manual_seed(cfg.seed1);
  const MultiHeadAttentionWrapper wrapper(gen, d_in, d_out, T, cfg.attn_dropout, H, cfg.qkv_bias,
                                          cfg.dropout_rng);
  walk.add("wrapper_context_vecs",
           fmt::format("MultiHeadAttentionWrapper({}, {}, {}, {:g}, num_heads={}{})(batch), seed {}: "
                       "{} heads x d_out {}", d_in, d_out, T, cfg.attn_dropout, H, bias_arg,
                       cfg.seed1, H, d_out),
           wrapper.forward(gen, batch), {"grad_fn=<CatBackward0>"});  // (B, T, H * d_out)

  // The batched matrix product MultiHeadAttention relies on, on the chapter's fixed tensor.
  const Tensor& a = walk.add(
      "a", "a tensor of shape (b=1, num_heads=2, num_tokens=3, head_dim=4)",
      Tensor({1, 2, 3, 4}, {0.2745f, 0.6584f, 0.2775f, 0.8573f, 0.8993f, 0.0390f, 0.9268f, 0.7388f,
                            0.7179f, 0.7058f, 0.9156f, 0.4340f, 0.0772f, 0.3565f, 0.1479f, 0.5331f,
                            0.4066f, 0.2318f, 0.4545f, 0.9737f, 0.4606f, 0.5159f, 0.4220f, 0.5786f}));
  walk.add("a_at_a_T", "a @ a.transpose(2, 3): one matrix product per head",
           matmul(a, transpose(a, 2, 3)));                            // (1, 2, 3, 3)
  const Tensor first_head = a[0][0], second_head = a[0][1];
  walk.add("first_res", "first_head @ first_head.T, equal to the first block above",
           matmul(first_head, transpose2d(first_head)));
  walk.add("second_res", "second_head @ second_head.T, equal to the second block",
           matmul(second_head, transpose2d(second_head)));

  // 3.6.2: MultiHeadAttention, every intermediate of its forward pass.
  gen.manual_seed(cfg.seed1);
  const MultiHeadAttention mha(gen, d_in, d_out, T, cfg.attn_dropout, H, cfg.qkv_bias,
                               cfg.dropout_rng);
  const auto t = mha.forward_traced(gen, batch);
  const int64_t hd = mha.head_dim;
  const char* proj_grad = cfg.qkv_bias ? "grad_fn=<ViewBackward0>" : "grad_fn=<UnsafeViewBackward0>";
  const std::string mha_call = fmt::format("MultiHeadAttention({}, {}, {}, {:g}, num_heads={}{}), seed {}",
                                           d_in, d_out, T, cfg.attn_dropout, H, bias_arg, cfg.seed1);
  walk.add("keys", "W_key(x) of " + mha_call, t.keys, {proj_grad});       // (B, T, d_out)
  walk.add("queries", "W_query(x)", t.queries, {proj_grad});
  walk.add("values", "W_value(x)", t.values, {proj_grad});
  const std::string view_title = fmt::format(".view(b, num_tokens, {}, {}): split d_out into {} heads of {}", H, hd, H, hd);
  walk.add("keys_viewed", "keys" + view_title, t.keys_viewed, {"grad_fn=<ViewBackward0>"});
  walk.add("queries_viewed", "queries" + view_title, t.queries_viewed, {"grad_fn=<ViewBackward0>"});
  walk.add("values_viewed", "values" + view_title, t.values_viewed, {"grad_fn=<ViewBackward0>"});
  const char* tr = ".transpose(1, 2): heads become a batch dimension (b, num_heads, num_tokens, head_dim)";
  walk.add("keys_transposed", std::string("keys") + tr, t.keys_t, {"grad_fn=<TransposeBackward0>"});
  walk.add("queries_transposed", std::string("queries") + tr, t.queries_t, {"grad_fn=<TransposeBackward0>"});
  walk.add("values_transposed", std::string("values") + tr, t.values_t, {"grad_fn=<TransposeBackward0>"});
  walk.add("attn_scores", "queries @ keys.transpose(2, 3): scores for every head",
           t.attn_scores, {"grad_fn=<UnsafeViewBackward0>"});         // (B, H, T, T)
  walk.add("attn_scores_masked", "attn_scores.masked_fill_(mask_bool, -torch.inf)",
           t.attn_scores_masked, {"grad_fn=<MaskedFillBackward0>"});
  walk.add("attn_weights",
           cfg.attn_dropout > 0.0 ? "dropout(softmax(attn_scores / sqrt(head_dim)))"
                                  : "softmax(attn_scores / sqrt(head_dim), dim=-1)",
           t.attn_weights, {dropout_grad_fn(cfg.attn_dropout, "grad_fn=<SoftmaxBackward0>")});
  walk.add("context_vec", "(attn_weights @ values).transpose(1, 2): back to (b, num_tokens, num_heads, head_dim)",
           t.context_vec, {"grad_fn=<TransposeBackward0>"});
  walk.add("context_vec_merged", "context_vec.contiguous().view(b, num_tokens, d_out): heads side by side",
           t.context_vec_merged, {"grad_fn=<ViewBackward0>"});
  walk.add_parameter("out_proj.weight", "out_proj: nn.Linear(d_out, d_out), always with a bias",
                     mha.out_proj.weight);
  walk.add_parameter("out_proj.bias", "out_proj.bias", *mha.out_proj.bias);
  walk.add("mha_context_vecs", "out_proj(context_vec_merged): the module's output",
           t.context_vecs, {"grad_fn=<ViewBackward0>"});               // (B, T, d_out)
  return walk;
}

}  // namespace attn
