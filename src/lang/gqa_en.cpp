// English texts of the gqa stage (src/stages/gqa.cpp).
#include "lang/bonus.h"

namespace attn {

LangTable gqa_en() {
  LangTable t;
  t.code = "en";
  t.steps = {
      {"gqa/W_key.weight",
       {"W_key.weight: only {kv_groups} groups × {head_dim} = {kv_width} key rows",
        "GroupedQueryAttention draws W_key first, right after torch.manual_seed({seed1}): "
        "nn.Linear({d_in}, num_kv_groups * head_dim) gives {kv_width} output rows instead of "
        "MultiHeadAttention's {d_out}, one block of {head_dim} per key/value group."}},
      {"gqa/W_key.bias", {"W_key.bias (qkv_bias=True)", "One bias per key output: ({kv_width},)."}},
      {"gqa/W_value.weight",
       {"W_value.weight: {kv_width} value rows, drawn second",
        "The values are grouped the same way: ({kv_width}, {d_in})."}},
      {"gqa/W_value.bias", {"W_value.bias (qkv_bias=True)", "One bias per value output: ({kv_width},)."}},
      {"gqa/W_query.weight",
       {"W_query.weight: all {heads} heads, {d_out} rows, drawn third",
        "Queries keep one block per head: ({d_out}, {d_in}). Only keys and values are shared, "
        "because they are what the KV cache stores."}},
      {"gqa/W_query.bias", {"W_query.bias (qkv_bias=True)", "One bias per query output: ({d_out},)."}},
      {"gqa/queries",
       {"queries: W_query(x) split into {heads} heads, (b, heads, T, head_dim)",
        "queries.view(b, T, {heads}, {head_dim}).transpose(1, 2): shape ({batch}, {heads}, {T}, "
        "{head_dim}), as in the chapter's MultiHeadAttention."}},
      {"gqa/keys_new",
       {"keys_new: W_key(x) split into {kv_groups} groups, (b, groups, T, head_dim)",
        "keys.view(b, T, {kv_groups}, {head_dim}).transpose(1, 2): only {kv_groups} sets of keys "
        "for {heads} heads, shape ({batch}, {kv_groups}, {T}, {head_dim})."}},
      {"gqa/values_new",
       {"values_new: W_value(x) split into {kv_groups} groups",
        "Shape ({batch}, {kv_groups}, {T}, {head_dim})."}},
      {"gqa/keys",
       {"keys = keys_new.repeat_interleave({group_size}, dim=1): each group for its {group_size} heads",
        "repeat_interleave repeats each group {group_size} times in a row, [K1, K2] -> [K1, K1, K2, "
        "K2], so head h reads group h // {group_size}: shape ({batch}, {heads}, {T}, {head_dim}), "
        "one set of keys per query head again."}},
      {"gqa/values",
       {"values = values_new.repeat_interleave({group_size}, dim=1)",
        "The values are expanded the same way: ({batch}, {heads}, {T}, {head_dim})."}},
      {"gqa/keys_repeat",
       {"keys_new.repeat(1, {group_size}, 1, 1): what repeat would wrongly do",
        "repeat copies the whole block instead, [K1, K2] -> [K1, K2, K1, K2]: head h would read "
        "group h % {kv_groups}, so heads would be paired with the wrong keys. Compare it with keys "
        "above."}},
      {"gqa/keys_repeat#same",
       {"keys_new.repeat(1, {group_size}, 1, 1): the same as repeat_interleave here",
        "repeat copies the whole block, [K1, K2] -> [K1, K2, K1, K2], which pairs heads with the "
        "wrong groups in general; with {kv_groups} group(s) of {group_size} head(s) the two orders "
        "happen to agree. Try --kv-groups 2 with --heads 4 to see them differ."}},
      {"gqa/attn_scores",
       {"attn_scores = queries @ keys.transpose(2, 3), future masked with -inf",
        "Every head scores its own queries against its group's keys; the causal mask "
        "q_positions < k_positions hides the future. Shape ({batch}, {heads}, {T}, {T}): heads of "
        "the same group share keys but still differ, because their queries differ."}},
      {"gqa/attn_weights",
       {"attn_weights = softmax(attn_scores / √{head_dim})",
        "Each row sums to 1 and is 0 above the diagonal, exactly as in MultiHeadAttention."}},
      {"gqa/context_vec",
       {"context_vec: heads merged and projected by out_proj (no bias)",
        "(attn_weights @ values).transpose(1, 2), viewed as ({batch}, {T}, {d_out}) and projected "
        "by out_proj, which the reference builds without a bias."}},
      {"gqa/kv_cache_size",
       {"KV cache size in floats for {T} tokens: MultiHeadAttention, then GroupedQueryAttention",
        "A cache keeps the keys and values of every token: 2 × batch × T × heads × head_dim = "
        "{cache_mha} floats for MultiHeadAttention, but only {cache_gqa} with {kv_groups} groups, "
        "{group_size} times less, in every layer."}},
  };
  t.checks = {
      {"gqa_heads_share_their_group", "every head h uses exactly the keys and values of group h // {group_size}"},
      {"gqa_repeat_differs", "repeat gives different keys than repeat_interleave: the wrong heads would share"},
  };
  t.ui = {
      {"heatmap.gqa.kv_group", "K/V group {}: keys and values shared by heads {}"},
      {"stage.gqa", "grouped-query attention: keys and values in --kv-groups groups, a smaller KV cache"},
      {"word.floats", "floats"},
  };
  return t;
}

}  // namespace attn
