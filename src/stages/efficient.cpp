// Beyond chapter 3: the bonus notebook's efficient multi-head attention
// (ch03/02_bonus_efficient-multihead-attention/mha-implementations.ipynb). Its
// MultiHeadAttentionCombinedQKV (one qkv projection, reshaped, permuted and unbound), MHAEinsum
// (every product a torch.einsum) and torch.nn.MultiheadAttention with a causal attn_mask: the
// same math as the chapter's MultiHeadAttention with other weights, and equal outputs once
// the chapter module's weights are copied in.
#include <cmath>
#include <limits>

#include "modules/chapter.h"
#include "modules/combined_qkv.h"
#include "modules/mha_einsum.h"
#include "modules/torch_mha.h"
#include "ops/ops.h"
#include "stages/bonus_common.h"
#include "stages/common.h"
#include "stages/stages.h"

namespace attn {

namespace {

// "differ": same math, other random weights, so the outputs are not close.
Comparison differs(const Tensor& a, const Tensor& b) {
  const Comparison same = compare_close(a, b);
  return {!same.passed, same.max_diff};
}

// MHAEinsum after the seed, then with the chapter module's weights. Returns the copied output.
Tensor walk_einsum(Walk& walk, const Config& cfg, const Tensor& batch, const MultiHeadAttention& mha,
                   const Tensor& mha_out) {
  const BonusConfig& bc = cfg.bonus;
  TorchGenerator gen;
  gen.manual_seed(cfg.seed1);
  MHAEinsum einsum(gen, cfg.d_in(), bc.d_out, bc.heads, cfg.qkv_bias);
  walk.vars["einsum_proj_eq"] = einsum.proj_eq;
  walk.add_parameter("einsum.W_query", einsum.W_query);  // (d_out, d_in)
  MHAEinsum::Trace t = einsum.forward_traced(batch);
  walk.add("einsum_Q", std::move(t.Q));  // (B, T, d_out)
  if (!einsum.multiplies_by_w()) walk.last().variant = "linear_eq";
  walk.add("einsum_scores", std::move(t.scores));                                // (B, H, T, T)
  walk.add("einsum_attn_weights", std::move(t.attn_weights));                    // (B, H, T, T)
  const Tensor& out = walk.add("einsum_context_vec", std::move(t.context_vec));  // (B, T, d_out)
  add_check(walk, "efficient_einsum_differs_by_weights", differs(out, mha_out));
  einsum.copy_from(mha);
  walk.add_parameter("einsum.W_query_copied", einsum.W_query);
  if (!einsum.multiplies_by_w()) walk.last().variant = "linear_eq";
  const Tensor& copied = walk.add("einsum_context_vec_copied", einsum.forward_traced(batch).context_vec);
  add_check(walk, "efficient_einsum_copied_equal_mha", compare_close(copied, mha_out));
  return copied;
}

// The notebook's MHAPyTorchClass (nn.MultiheadAttention, then proj) after the seed, the steps
// of F.multi_head_attention_forward, then with the chapter module's weights. Returns the
// copied output.
Tensor walk_torch_mha(Walk& walk, const Config& cfg, const Tensor& batch, const MultiHeadAttention& mha,
                      const Tensor& mha_out) {
  const BonusConfig& bc = cfg.bonus;
  TorchGenerator gen;
  gen.manual_seed(cfg.seed1);
  MHAPyTorchClass pt(gen, bc.d_out, bc.heads, cfg.qkv_bias);
  walk.vars["in_proj_width"] = std::to_string(3 * bc.d_out);
  walk.vars["xavier_bound"] = format_number(std::sqrt(6.0 / static_cast<double>(4 * bc.d_out)));
  const char* bias_kv = cfg.qkv_bias ? "bias_kv" : "";  // the texts of a mask and an output with bias_k
  walk.vars["keys_seen"] = std::to_string(cfg.num_tokens() + (cfg.qkv_bias ? 1 : 0));
  // clang-format off
  walk.add_parameter("torch_mha.in_proj_weight", pt.multihead_attn.in_proj_weight);   // (3 * d_out, d_out)
  walk.add_parameter("torch_mha.out_proj.weight", pt.multihead_attn.out_proj.weight); // (d_out, d_out)
  if (pt.multihead_attn.bias_k) walk.add_parameter("torch_mha.bias_k", *pt.multihead_attn.bias_k);  // (1, 1, d_out)
  // clang-format on
  MHAPyTorchClass::Trace t = pt.forward_traced(batch);
  walk.add("torch_mha_attn_mask", std::move(t.attn_mask));  // (1, T, S)
  walk.last().variant = bias_kv;
  walk.add("torch_mha_q_scaled", std::move(t.q_scaled));                            // (B * H, T, head_dim)
  walk.add("torch_mha_scores", std::move(t.scores));                                // (B * H, T, S)
  walk.add("torch_mha_attn_weights", std::move(t.attn_weights));                    // (B * H, T, S)
  walk.add("torch_mha_attn_output", std::move(t.attn_output));                      // (B, T, d_out)
  walk.add("torch_mha_avg_weights", std::move(t.avg_weights));                      // (B, T, S)
  const Tensor& out = walk.add("torch_mha_context_vec", std::move(t.context_vec));  // (B, T, d_out)
  add_check(walk, "efficient_torch_mha_differs_by_weights", differs(out, mha_out));
  pt.copy_from(mha);
  const Tensor& copied = walk.add("torch_mha_context_vec_copied", pt.forward_traced(batch).context_vec);
  walk.last().variant = bias_kv;
  add_check(walk, "efficient_torch_mha_copied_equal_mha", compare_close(copied, mha_out));
  return copied;
}

}  // namespace

Walk run_efficient(const Config& cfg) {
  Walk walk = bonus_walk("efficient", cfg);
  const BonusConfig& bc = cfg.bonus;
  const int64_t T = cfg.num_tokens(), d_in = cfg.d_in(), H = bc.heads;
  walk.vars["qkv_width"] = std::to_string(3 * bc.d_out);
  const Tensor batch = bonus_batch(cfg);  // (B, T, d_in)

  // Built right after the seed: qkv (d_in -> 3 * d_out) is drawn first, then proj.
  TorchGenerator gen;
  gen.manual_seed(cfg.seed1);
  MultiHeadAttentionCombinedQKV combined(gen, d_in, bc.d_out, H, cfg.qkv_bias);
  walk.add_parameter("qkv.weight", combined.qkv.weight);  // (3 * d_out, d_in)
  MultiHeadAttentionCombinedQKV::Trace t = combined.forward_traced(batch);
  walk.add("qkv", std::move(t.qkv));                                  // (B, T, 3 * d_out)
  walk.add("qkv_viewed", std::move(t.qkv_viewed));                    // (B, T, 3, H, head_dim)
  walk.add("qkv_permuted", std::move(t.qkv_permuted));                // (3, B, H, T, head_dim)
  const Tensor& queries = walk.add("queries", std::move(t.queries));  // (B, H, T, head_dim)
  const Tensor& keys = walk.add("keys", std::move(t.keys));
  const Tensor& values = walk.add("values", std::move(t.values));
  walk.add("attn_scores", Role::Scores, std::move(t.attn_scores));  // (B, H, T, T)
  const Tensor& attn_weights = walk.add("attn_weights", Role::Weights, std::move(t.attn_weights));
  add_check(walk, "causal_no_future_weight", zero_above_diagonal(attn_weights));
  add_check(walk, "softmax_rows_sum_to_1", rows_sum_to_one(attn_weights));
  const Tensor& context_vec = walk.add("context_vec", std::move(t.context_vec));  // (B, T, d_out)

  // The chapter's MultiHeadAttention after the same seed. Without biases both draw the same
  // uniform numbers in the same order with the same bound (fan_in = d_in): qkv's rows are
  // W_query, W_key, W_value, and proj is drawn where out_proj is. With biases each W_* draws
  // its bias right after its weight, so the numbers land elsewhere. The walk checks which.
  gen.manual_seed(cfg.seed1);
  const MultiHeadAttention mha(gen, d_in, bc.d_out, T, 0.0, H, cfg.qkv_bias, cfg.dropout_rng);
  const Tensor& mha_out = walk.add("mha_context_vecs", mha.forward_traced(gen, batch).context_vecs);
  Step& mha_out_step = walk.last();
  const Tensor stacked = cat({mha.W_query.weight, mha.W_key.weight, mha.W_value.weight}, 0);
  if (!cfg.qkv_bias) {
    mha_out_step.variant = "same_draws";
    // clang-format off
    add_check(walk, "efficient_same_draws", both(compare_close(combined.qkv.weight, stacked, 0, 0),
                                                 compare_close(context_vec, mha_out, 0, 0)));
    // clang-format on
  } else {
    const Comparison same = compare_close(context_vec, mha_out);
    add_check(walk, "efficient_outputs_differ_by_weights", {!same.passed, same.max_diff});
  }

  // Copy the chapter module's weights in: the same function, so the same outputs.
  combined.copy_from(mha);
  walk.add_parameter("qkv.weight_copied", combined.qkv.weight);  // rows: W_query, W_key, W_value
  const Tensor& copied_out = walk.add("context_vec_copied", combined.forward_traced(batch).context_vec);
  add_check(walk, "efficient_copied_weights_equal_mha", compare_close(copied_out, mha_out));

  // F.scaled_dot_product_attention(queries, keys, values, is_causal=True) came after PyTorch
  // 1.13; its math, step by step as its documentation writes it: an additive bias of -inf
  // above the diagonal, scores multiplied by scale_factor = 1 / sqrt(head_dim).
  const float inf = std::numeric_limits<float>::infinity();
  walk.add("sdpa_attn_bias", masked_fill(Tensor::zeros({T, T}), triu_ones(T, 1), -inf));  // (T, T)
  const double scale_factor = 1.0 / std::sqrt(static_cast<double>(bc.head_dim()));
  // keys is a permuted view: it folds into one batch for the product only when B == 1.
  const Tensor scores = cfg.batch > 1 ? matmul(queries, transpose(keys, -2, -1)) : matmul_transposed(queries, keys);
  const Tensor& sdpa_scores = walk.add("sdpa_scores", mul_scalar(scores, scale_factor));  // (B, H, T, T)
  // + attn_bias: adding 0 leaves a score, adding -inf masks it, as masked_fill does.
  const Tensor& sdpa_weight =
      walk.add("sdpa_attn_weight", softmax_lastdim(masked_fill(sdpa_scores, triu_ones(T, 1), -inf)));
  const Tensor& sdpa_out = walk.add("sdpa_output", matmul(sdpa_weight, values));  // (B, H, T, head_dim)
  add_check(walk, "efficient_sdpa_equals_chapter_math", compare_close(sdpa_out, matmul(attn_weights, values)));

  // MHAEinsum; then nn.MultiheadAttention, whose inputs must be d_out wide (embed_dim), as
  // in the notebook where d_in == d_out.
  const Tensor einsum_out = walk_einsum(walk, cfg, batch, mha, mha_out);
  if (d_in != bc.d_out) {
    walk.notes.push_back("note.efficient_torch_mha_needs_square");
    return walk;
  }
  const Tensor torch_out = walk_torch_mha(walk, cfg, batch, mha, mha_out);
  add_check(walk, "efficient_all_copied_outputs_equal",
            both(both(compare_close(copied_out, mha_out), compare_close(einsum_out, mha_out)),
                 compare_close(torch_out, mha_out)));
  return walk;
}

}  // namespace attn
