// Beyond chapter 3: grouped-query attention (ch04/04_gqa/gpt_with_kv_gqa.py), as Llama,
// Qwen, Gemma and Mistral use it. Keys and values come in --kv-groups groups, each shared
// by several query heads, so the KV cache shrinks by the group size.
#include <fmt/format.h>

#include <vector>

#include "modules/gqa.h"
#include "ops/ops.h"
#include "stages/bonus_common.h"
#include "stages/common.h"
#include "stages/stages.h"

namespace attn {

std::string gqa_misuse(const Config& cfg) {
  if (std::string why = bonus_heads_misuse(cfg); !why.empty()) return why;
  const BonusConfig& b = cfg.bonus;
  if (b.heads % b.kv_groups == 0) return "";
  return fmt::format("--kv-groups: GroupedQueryAttention shares each key/value group among "
                     "heads / groups heads, so the {} heads must be divisible by --kv-groups, got {}",
                     b.heads, b.kv_groups);
}

Walk run_gqa(const Config& cfg) {
  Walk walk = bonus_walk("gqa", cfg);
  const BonusConfig& bc = cfg.bonus;
  const int64_t B = cfg.batch, T = cfg.num_tokens(), H = bc.heads, G = bc.kv_groups, hd = bc.head_dim();
  walk.vars["group_size"] = std::to_string(H / G);
  walk.vars["kv_width"] = std::to_string(G * hd);
  const Tensor batch = bonus_batch(cfg);  // (B, T, d_in)

  // Built right after the seed; parameters drawn as the reference declares them.
  TorchGenerator gen;
  gen.manual_seed(cfg.seed1);
  const GroupedQueryAttention gqa(gen, cfg.d_in(), bc.d_out, H, G, cfg.qkv_bias);
  for (const auto& [name, layer] : {std::pair<const char*, const Linear*>{"W_key", &gqa.W_key},
                                    {"W_value", &gqa.W_value},
                                    {"W_query", &gqa.W_query}}) {
    walk.add_parameter(std::string(name) + ".weight", layer->weight);  // (out, d_in)
    if (layer->bias) walk.add_parameter(std::string(name) + ".bias", *layer->bias);
  }

  GroupedQueryAttention::Trace t = gqa.forward_traced(batch);
  walk.add("queries", std::move(t.queries));                             // (B, H, T, head_dim)
  const Tensor& keys_new = walk.add("keys_new", std::move(t.keys_new));  // (B, G, T, head_dim)
  const Tensor& values_new = walk.add("values_new", std::move(t.values_new));
  const Tensor& keys = walk.add("keys", std::move(t.keys));  // (B, H, T, head_dim)
  const Tensor& values = walk.add("values", std::move(t.values));
  // Head h reads group h // group_size: compare every head with its group, slice by slice.
  Comparison shared{true, 0.0};
  for (int64_t h = 0; h < H; ++h)
    shared = both(shared, both(compare_close(narrow(keys, 1, h, 1), narrow(keys_new, 1, h / gqa.group_size, 1), 0, 0),
                               compare_close(narrow(values, 1, h, 1), narrow(values_new, 1, h / gqa.group_size, 1), 0, 0)));
  add_check(walk, "gqa_heads_share_their_group", shared);

  // What keys_new.repeat(1, group_size, 1, 1) would do instead: [K1, K2, K1, K2], so head h
  // would read group h % G, a group its query was never trained with.
  const size_t keys_repeat_index = walk.steps.size();  // add_check below may follow it
  const Tensor& keys_repeat = walk.add("keys_repeat", repeat_along(keys_new, gqa.group_size, 1));
  if (G > 1 && gqa.group_size > 1) {
    const Comparison same = compare_close(keys_repeat, keys, 0, 0);
    add_check(walk, "gqa_repeat_differs", {!same.passed, same.max_diff});
  } else {
    walk.steps[keys_repeat_index].variant = "same";  // one group, or one head per group: no difference
  }

  // Heatmaps show which heads read the same keys and values: head h belongs to group
  // h // group_size.
  std::vector<int64_t> head_groups;
  for (int64_t h = 0; h < H; ++h) head_groups.push_back(h / gqa.group_size);
  auto group_heads = [&walk, &head_groups]() {
    walk.steps.back().head_groups = head_groups;
    walk.steps.back().head_group_text = "heatmap.gqa.kv_group";
  };
  walk.add("attn_scores", Role::Scores, std::move(t.attn_scores));  // (B, H, T, T), -inf above the diagonal
  group_heads();
  const Tensor& attn_weights = walk.add("attn_weights", Role::Weights, std::move(t.attn_weights));
  group_heads();
  add_check(walk, "causal_no_future_weight", zero_above_diagonal(attn_weights));
  add_check(walk, "softmax_rows_sum_to_1", rows_sum_to_one(attn_weights));
  walk.add("context_vec", std::move(t.context_vec));  // (B, T, d_out)

  // The KV cache for these T tokens: keys and values of every head (MHA) or every group.
  const int64_t mha_floats = 2 * B * T * H * hd, gqa_floats = 2 * B * T * G * hd;
  walk.add("kv_cache_size", Tensor({2}, {static_cast<float>(mha_floats), static_cast<float>(gqa_floats)}));
  walk.steps.back().details = {
      fmt::format("  MultiHeadAttention:    2 × {} × {} × {} × {} = {} {{floats}}", B, T, H, hd, grouped(mha_floats)),
      fmt::format("  GroupedQueryAttention: 2 × {} × {} × {} × {} = {} {{floats}}", B, T, G, hd, grouped(gqa_floats))};
  walk.vars["cache_mha"] = grouped(mha_floats);
  walk.vars["cache_gqa"] = grouped(gqa_floats);
  return walk;
}

}  // namespace attn
