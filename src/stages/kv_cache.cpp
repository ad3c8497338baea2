// Beyond chapter 3: the KV cache (ch04/03_kv-cache/gpt_with_kv_cache.py). The chapter's
// MultiHeadAttention keeps the keys and values of the tokens it has seen, so generating
// one more token projects only that token and scores it against the cache.
#include <fmt/format.h>

#include <cmath>

#include "modules/chapter.h"
#include "modules/kv_cache.h"
#include "ops/ops.h"
#include "stages/bonus_common.h"
#include "stages/common.h"
#include "stages/stages.h"

namespace attn {

namespace {

// What generating T tokens one at a time costs in the attention module, without the cache
// (step t recomputes all t tokens) and with it (step t projects one token). FLOPs count a
// multiply-add as 2; "kept" is what stays in memory between tokens; "scores" is the size of
// the last token's score tensor.
struct Cost {
  int64_t flops = 0, kept = 0, scores = 0;
};

Cost generation_cost(int64_t B, int64_t T, int64_t d_in, int64_t d_out, int64_t H, bool cached) {
  const int64_t hd = d_out / H;
  Cost c;
  for (int64_t t = 1; t <= T; ++t) {
    const int64_t rows = cached ? 1 : t;    // tokens projected and queried at step t
    c.flops += 2 * 3 * rows * d_in * d_out  // W_query, W_key, W_value
               + 2 * 2 * H * rows * t * hd  // queries @ keys.T, attn_weights @ values
               + 2 * rows * d_out * d_out;  // out_proj
  }
  c.flops *= B;
  c.kept = cached ? 2 * B * T * d_out : 0;  // cache_k and cache_v
  c.scores = B * H * (cached ? 1 : T) * T;
  return c;
}

}  // namespace

Walk run_kv_cache(const Config& cfg) {
  Walk walk = bonus_walk("kv-cache", cfg);
  const BonusConfig& bc = cfg.bonus;
  const int64_t B = cfg.batch, T = cfg.num_tokens(), d_in = cfg.d_in(), H = bc.heads;
  const Tensor batch = bonus_batch(cfg);  // (B, T, d_in)

  // The module, built right after the seed: the chapter's draws, no dropout (model.eval()).
  TorchGenerator gen;
  gen.manual_seed(cfg.seed1);
  const MultiHeadAttention mha(gen, d_in, bc.d_out, T, 0.0, H, cfg.qkv_bias, cfg.dropout_rng);

  // Generation: feed one token at a time with use_cache=True; the cache grows by one row.
  KVCache cache;
  std::vector<Tensor> outputs;  // (B, 1, d_out) each
  Tensor attn_weights_cached = Tensor::zeros({B, H, T, T});
  for (int64_t t = 0; t < T; ++t) {
    CachedForward f = forward_with_cache(mha, cache, narrow(batch, 1, t, 1));  // x[:, t:t+1]
    const std::map<std::string, std::string> vars = {
        {"t", std::to_string(t + 1)}, {"t0", std::to_string(t)}, {"t1", std::to_string(t + 1)}};
    // A step of token t; `first`: its text differs for the first token, which starts the
    // cache and attends to itself only.
    auto add = [&](const char* name, Tensor value, Role role = Role::Value, bool first = false) {
      walk.add(name, role, std::move(value));
      walk.steps.back().vars = vars;
      if (t == 0 && first) walk.last().variant = "first";
    };
    add("keys_new", std::move(f.keys_new));  // (B, 1, d_out)
    add("values_new", std::move(f.values_new));
    add("queries", std::move(f.queries));
    add("keys", std::move(f.keys), Role::Value, true);  // (B, H, t, head_dim): the cache so far
    add("values", std::move(f.values), Role::Value, true);
    add("attn_scores", std::move(f.attn_scores), Role::Scores, true);  // (B, H, 1, t)
    // Row t of every head's (T, T) matrix, for the heatmap of the cache growing below.
    for (int64_t bh = 0; bh < B * H; ++bh)
      for (int64_t j = 0; j <= t; ++j)
        attn_weights_cached.data[static_cast<size_t>((bh * T + t) * T + j)] =
            f.attn_weights.data[static_cast<size_t>(bh * (t + 1) + j)];
    add("attn_weights", std::move(f.attn_weights), Role::Weights, true);  // (B, H, 1, t)
    outputs.push_back(f.context_vec);
    add("context_vec", std::move(f.context_vec));  // (B, 1, d_out)
  }

  // The same module on all T tokens at once (use_cache=False): the chapter's causal pass.
  MultiHeadAttention::Trace full = mha.forward_traced(gen, batch);

  // The rows stacked: row t holds the t weights token t had; nothing lies above the diagonal.
  walk.add("attn_weights_cached", Role::Weights, attn_weights_cached);  // (B, H, T, T)
  add_check(walk, "causal_no_future_weight", zero_above_diagonal(attn_weights_cached));
  add_check(walk, "kv_cache_weights_equal_full_pass", compare_close(attn_weights_cached, full.attn_weights));
  const Tensor& context_vecs_cached = walk.add("context_vecs_cached", cat(outputs, 1));  // (B, T, d_out)
  const Tensor& context_vecs_full = walk.add("context_vecs_full", std::move(full.context_vecs));
  add_check(walk, "kv_cache_outputs_equal_full_pass", compare_close(context_vecs_cached, context_vecs_full));

  // The cost of generating T tokens, without and with the cache.
  const Cost without = generation_cost(B, T, d_in, bc.d_out, H, false);
  const Cost with = generation_cost(B, T, d_in, bc.d_out, H, true);
  auto f32 = [](int64_t n) { return static_cast<float>(static_cast<double>(n)); };
  walk.add("cost", Tensor({2, 3}, {f32(without.flops), f32(without.kept), f32(without.scores),
                                   f32(with.flops), f32(with.kept), f32(with.scores)}));
  // Exact counts under the tensor (float32 rounds counts above 2^24); words from src/lang/.
  std::vector<std::string> details = {"  {cost_columns}"};
  for (const auto& [label, c] : {std::pair<const char*, const Cost&>{"{without_cache}", without}, {"{with_cache}", with}})
    details.push_back(fmt::format("  {}{{cost_colon}}{} / {} / {}", label, grouped(c.flops), grouped(c.kept), grouped(c.scores)));
  walk.steps.back().details = std::move(details);
  walk.vars["flops_without"] = grouped(without.flops);
  walk.vars["flops_with"] = grouped(with.flops);
  walk.vars["flops_ratio"] = fmt::format("{:.1f}", static_cast<double>(without.flops) / static_cast<double>(with.flops));
  walk.vars["kept_floats"] = grouped(with.kept);
  walk.vars["kept_bytes"] = grouped(with.kept * 4);
  walk.vars["scores_without"] = grouped(without.scores);
  walk.vars["scores_with"] = grouped(with.scores);
  return walk;
}

}  // namespace attn
