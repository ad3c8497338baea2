// Beyond chapter 3: multi-head latent attention (ch04/05_mla/gpt_with_kv_mla.py), as
// DeepSeek uses it. Keys and values of every head are up-projected from one small latent per
// token, so a KV cache keeps only that latent: --latent-dim numbers per token instead of the
// 2 * d_out of keys and values.
#include <fmt/format.h>

#include "modules/mla.h"
#include "ops/ops.h"
#include "stages/bonus_common.h"
#include "stages/common.h"
#include "stages/stages.h"

namespace attn {

Walk run_mla(const Config& cfg) {
  Walk walk = bonus_walk("mla", cfg);
  const BonusConfig& bc = cfg.bonus;
  const int64_t B = cfg.batch, T = cfg.num_tokens(), L = bc.latent_dim;
  walk.vars["latent_dim"] = std::to_string(L);
  const Tensor batch = bonus_batch(cfg);  // (B, T, d_in)

  // Built right after the seed; parameters drawn as the reference declares them.
  TorchGenerator gen;
  gen.manual_seed(cfg.seed1);
  const MultiHeadLatentAttention mla(gen, cfg.d_in(), bc.d_out, bc.heads, cfg.qkv_bias, L);
  for (const auto& [name, layer] : {std::pair<const char*, const Linear*>{"W_query", &mla.W_query},
                                    {"W_DKV", &mla.W_DKV},
                                    {"W_UK", &mla.W_UK},
                                    {"W_UV", &mla.W_UV}}) {
    walk.add_parameter(std::string(name) + ".weight", layer->weight);  // (out, in)
    if (layer->bias) walk.add_parameter(std::string(name) + ".bias", *layer->bias);
  }

  // The full causal pass, as without a cache.
  MultiHeadLatentAttention::Trace t = mla.forward_traced(batch);
  walk.add("queries_all", std::move(t.queries_all));  // (B, T, d_out)
  walk.add("latent", std::move(t.latent));            // (B, T, latent_dim)
  walk.add("keys_all", std::move(t.keys_all));        // (B, T, d_out)
  walk.add("values_all", std::move(t.values_all));
  walk.add("attn_scores", Role::Scores, std::move(t.attn_scores));  // (B, H, T, T)
  const Tensor& attn_weights = walk.add("attn_weights", Role::Weights, std::move(t.attn_weights));
  add_check(walk, "causal_no_future_weight", zero_above_diagonal(attn_weights));
  add_check(walk, "softmax_rows_sum_to_1", rows_sum_to_one(attn_weights));
  const Tensor& full = walk.add("context_vec", std::move(t.context_vec));  // (B, T, d_out)

  // Generation: one token at a time, only the latent rows cached; keys and values are
  // up-projected again from the whole cache at every step.
  Tensor cache;
  std::vector<Tensor> outs;
  for (int64_t i = 0; i < T; ++i) outs.push_back(mla.forward_traced(narrow(batch, 1, i, 1), &cache).context_vec);
  walk.add("cache_c_kv", std::move(cache));                             // (B, T, latent_dim)
  const Tensor& cached = walk.add("context_vec_cached", cat(outs, 1));  // (B, T, d_out)
  add_check(walk, "mla_cached_equals_full", compare_close(cached, full));

  // What a cache holds for these T tokens: keys and values of every head, or the latent.
  const int64_t mha_floats = 2 * B * T * bc.d_out, mla_floats = B * T * L;
  walk.add("kv_cache_size", Tensor({2}, {static_cast<float>(mha_floats), static_cast<float>(mla_floats)}));
  walk.steps.back().details = {
      fmt::format("  MultiHeadAttention:        2 × {} × {} × {} = {} {{floats}}", B, T, bc.d_out, grouped(mha_floats)),
      fmt::format("  MultiHeadLatentAttention:  {} × {} × {} = {} {{floats}}", B, T, L, grouped(mla_floats))};
  walk.vars["cache_mha"] = grouped(mha_floats);
  walk.vars["cache_mla"] = grouped(mla_floats);
  walk.vars["kv_per_token"] = std::to_string(2 * bc.d_out);
  walk.vars["cache_ratio"] = format_number(static_cast<double>(2 * bc.d_out) / static_cast<double>(L));
  if (L >= 2 * bc.d_out) walk.last().variant = "no_saving";
  return walk;
}

}  // namespace attn
