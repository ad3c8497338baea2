// Beyond chapter 3: rotary position embeddings (compute_rope_params and apply_rope of
// pkg/llms_from_scratch/llama3.py), as Llama, Qwen and Gemma use them, applied to the
// queries and keys of the chapter's MultiHeadAttention after its heads are split.
// Texts: src/lang/bonus_b_en.cpp, bonus_b_zh.cpp (key "rope/<step>").
#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "modules/chapter.h"
#include "modules/rope.h"
#include "ops/ops.h"
#include "stages/bonus_common.h"
#include "stages/common.h"
#include "stages/stages.h"
#include "torch/torch_random.h"
#include "torch/torch_sleef.h"

namespace attn {

namespace {

// queries @ keys.transpose(2, 3) with the causal mask: (b, H, T, T). The rotated keys are a
// fresh contiguous tensor, so PyTorch multiplies by its transposed view at any batch size.
Tensor causal_scores(const Tensor& queries, const Tensor& keys) {
  const int64_t T = queries.size(-2);
  return masked_fill(matmul_transposed(queries, keys), triu_ones(T, 1),
                     -std::numeric_limits<float>::infinity());
}

}  // namespace

std::string rope_misuse(const Config& cfg) {
  if (std::string why = bonus_heads_misuse(cfg); !why.empty()) return why;
  if (cfg.bonus.head_dim() % 2 == 0) return "";
  return fmt::format("--heads: RoPE rotates pairs of dimensions, so each head needs an even number "
                     "of them; d_out {} with {} heads gives {}",
                     cfg.bonus.d_out, cfg.bonus.heads, cfg.bonus.head_dim());
}

Walk run_rope(const Config& cfg) {
  Walk walk = bonus_walk("rope", cfg);
  const BonusConfig& bc = cfg.bonus;
  const int64_t B = cfg.batch, T = cfg.num_tokens(), hd = bc.head_dim();
  const Tensor batch = bonus_batch(cfg);  // (B, T, d_in)
  walk.vars["half"] = std::to_string(hd / 2);
  walk.vars["shift"] = std::to_string(T);
  walk.vars["last_position"] = std::to_string(T - 1);
  walk.vars["shift_last"] = std::to_string(2 * T - 1);

  // The tables, one row per position: pair k of a head turns by position * inv_freq[k].
  RopeParams rope = compute_rope_params(hd, bc.rope_base, T);
  walk.add("inv_freq", rope.inv_freq);    // (hd / 2)
  walk.add("positions", rope.positions);  // (T)
  walk.add("angles", rope.angles);        // (T, hd)
  walk.add("cos", rope.cos);
  walk.add("sin", rope.sin);

  // The chapter's MultiHeadAttention, right after the seed; its heads as it splits them.
  TorchGenerator gen;
  gen.manual_seed(cfg.seed1);
  const MultiHeadAttention mha(gen, cfg.d_in(), bc.d_out, T, 0.0, bc.heads, cfg.qkv_bias, DropoutKernel::Default);
  const MultiHeadAttention::Trace t = mha.forward_traced(gen, batch);
  walk.add("keys_transposed", t.keys_t);  // (B, H, T, hd)
  walk.add("queries_transposed", t.queries_t);

  // Rotate every query and key by its own position; values stay as they are.
  const Tensor& keys = walk.add("keys_rotated", apply_rope(t.keys_t, rope));
  const Tensor& queries = walk.add("queries_rotated", apply_rope(t.queries_t, rope));

  // Then attention as in the chapter, on the rotated queries and keys.
  const Tensor& attn_scores = walk.add("attn_scores_masked", Role::Scores, causal_scores(queries, keys));  // (B, H, T, T)
  Tensor attn_weights = softmax_lastdim(div_scalar(attn_scores, std::sqrt(static_cast<double>(hd))));
  const Tensor& weights = walk.add("attn_weights", Role::Weights, std::move(attn_weights));
  add_check(walk, "causal_no_future_weight", zero_above_diagonal(weights));
  const Tensor context_vec = transpose(matmul(weights, t.values_t), 1, 2);      // (B, T, H, hd)
  walk.add("context_vecs", mha.out_proj(view(context_vec, {B, T, bc.d_out})));  // (B, T, d_out)

  // The same tokens T positions later: q_i . k_j depends on i - j only, so the scores stay.
  const RopeParams later = compute_rope_params(hd, bc.rope_base, 2 * T);
  const Tensor& shifted = walk.add("attn_scores_shifted", Role::Scores,
                                   causal_scores(apply_rope(t.queries_t, later, T), apply_rope(t.keys_t, later, T)));
  add_check(walk, "rope_scores_depend_on_distance", compare_close(shifted, attn_scores));
  if (2 * T > kernels::kSleefTrigExactBelow) walk.notes.push_back("note.rope_long_angles");
  return walk;
}

}  // namespace attn
