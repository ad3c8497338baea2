// gqa 阶段（src/stages/gqa.cpp）的中文文字。
#include "lang/bonus.h"

namespace attn {

LangTable gqa_zh() {
  LangTable t;
  t.code = "zh";
  t.steps = {
      {"gqa/W_key.weight",
       {"W_key.weight：只有 {kv_groups} 组 × {head_dim} = {kv_width} 行键",
        "GroupedQueryAttention 在 torch.manual_seed({seed1}) 之后先抽取 W_key：nn.Linear({d_in}, "
        "num_kv_groups * head_dim) 输出 {kv_width} 行，而不是 MultiHeadAttention 的 {d_out} 行，"
        "每个键/值组一块 {head_dim} 维。"}},
      {"gqa/W_key.bias", {"W_key.bias（qkv_bias=True）", "每个键输出一个偏置：({kv_width},)。"}},
      {"gqa/W_value.weight",
       {"W_value.weight：{kv_width} 行值，第二个抽取",
        "值也同样分组：({kv_width}, {d_in})。"}},
      {"gqa/W_value.bias", {"W_value.bias（qkv_bias=True）", "每个值输出一个偏置：({kv_width},)。"}},
      {"gqa/W_query.weight",
       {"W_query.weight：全部 {heads} 个头，{d_out} 行，第三个抽取",
        "查询仍然每个头一块：({d_out}, {d_in})。只有键和值被共享，因为 KV 缓存存的正是它们。"}},
      {"gqa/W_query.bias", {"W_query.bias（qkv_bias=True）", "每个查询输出一个偏置：({d_out},)。"}},
      {"gqa/queries",
       {"queries：W_query(x) 分成 {heads} 个头，(b, heads, T, head_dim)",
        "queries.view(b, T, {heads}, {head_dim}).transpose(1, 2)：形状为 ({batch}, {heads}, {T}, "
        "{head_dim})，与本章的 MultiHeadAttention 相同。"}},
      {"gqa/keys_new",
       {"keys_new：W_key(x) 分成 {kv_groups} 组，(b, groups, T, head_dim)",
        "keys.view(b, T, {kv_groups}, {head_dim}).transpose(1, 2)：{heads} 个头只有 {kv_groups} 组键，"
        "形状为 ({batch}, {kv_groups}, {T}, {head_dim})。"}},
      {"gqa/values_new",
       {"values_new：W_value(x) 分成 {kv_groups} 组",
        "形状为 ({batch}, {kv_groups}, {T}, {head_dim})。"}},
      {"gqa/keys",
       {"keys = keys_new.repeat_interleave({group_size}, dim=1)：每组给它的 {group_size} 个头",
        "repeat_interleave 把每一组连续重复 {group_size} 次，[K1, K2] -> [K1, K1, K2, K2]，"
        "所以第 h 个头读取第 h // {group_size} 组：形状为 ({batch}, {heads}, {T}, {head_dim})，"
        "又变成每个查询头一组键。"}},
      {"gqa/values",
       {"values = values_new.repeat_interleave({group_size}, dim=1)",
        "值也同样展开：({batch}, {heads}, {T}, {head_dim})。"}},
      {"gqa/keys_repeat",
       {"keys_new.repeat(1, {group_size}, 1, 1)：如果错用 repeat 会怎样",
        "repeat 复制的是整块，[K1, K2] -> [K1, K2, K1, K2]：第 h 个头会读取第 h % {kv_groups} 组，"
        "头和键就配错了。请与上面的 keys 比较。"}},
      {"gqa/keys_repeat#same",
       {"keys_new.repeat(1, {group_size}, 1, 1)：这里恰好与 repeat_interleave 相同",
        "repeat 复制整块，[K1, K2] -> [K1, K2, K1, K2]，一般会把头和组配错；"
        "在 {kv_groups} 组、每组 {group_size} 个头时两种顺序恰好一致。试试 --kv-groups 2 --heads 4，就能看到差别。"}},
      {"gqa/attn_scores",
       {"attn_scores = queries @ keys.transpose(2, 3)，未来位置用 -inf 遮住",
        "每个头用自己的查询对本组的键打分；因果掩码 q_positions < k_positions 遮住未来。"
        "形状为 ({batch}, {heads}, {T}, {T})：同组的头共享键，但查询不同，所以分数仍然不同。"}},
      {"gqa/attn_weights",
       {"attn_weights = softmax(attn_scores / √{head_dim})",
        "每行之和为 1，对角线以上为 0，与 MultiHeadAttention 完全一样。"}},
      {"gqa/context_vec",
       {"context_vec：合并多头，再经 out_proj（无偏置）投影",
        "(attn_weights @ values).transpose(1, 2)，视为 ({batch}, {T}, {d_out})，再由 out_proj 投影；"
        "参考代码中 out_proj 没有偏置。"}},
      {"gqa/kv_cache_size",
       {"{T} 个词元的 KV 缓存大小（浮点数个数）：先 MultiHeadAttention，后 GroupedQueryAttention",
        "缓存保存每个词元的键和值：MultiHeadAttention 需要 2 × batch × T × heads × head_dim = "
        "{cache_mha} 个浮点数，{kv_groups} 组的 GroupedQueryAttention 只要 {cache_gqa} 个，"
        "少 {group_size} 倍，每一层都是如此。"}},
  };
  t.checks = {
      {"gqa_heads_share_their_group", "第 h 个头用的键和值恰好是第 h // {group_size} 组的"},
      {"gqa_repeat_differs", "repeat 得到的键与 repeat_interleave 不同：共享键的头会配错"},
  };
  t.ui = {
      {"heatmap.gqa.kv_group", "K/V 组 {}：头 {} 共用这组键和值"},
      {"stage.gqa", "分组查询注意力：键和值分成 --kv-groups 组，KV 缓存更小"},
      {"word.floats", "个浮点数"},
  };
  return t;
}

}  // namespace attn
