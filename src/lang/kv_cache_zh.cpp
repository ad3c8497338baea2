// kv-cache 阶段（src/stages/kv_cache.cpp）的中文文字。{t} 是该步骤所属的词元。
#include "lang/bonus.h"

namespace attn {

LangTable kv_cache_zh() {
  LangTable t;
  t.code = "zh";
  t.steps = {
      {"kv-cache/keys_new",
       {"第 {t} 个词元：keys_new = W_key(x[:, {t0}:{t1}])，新词元的键行",
        "use_cache=True 时，模块只接收最新的词元 x[:, {t0}:{t1}]，形状为 ({batch}, 1, {d_in})，"
        "并对它做投影：每个批次条目得到一行 {d_out} 维的键。之前词元的键不再重新计算，它们已在缓存中。"}},
      {"kv-cache/values_new",
       {"第 {t} 个词元：values_new = W_value(x[:, {t0}:{t1}])，新的值行",
        "它的值行，形状为 ({batch}, 1, {d_out})，和键一起放进缓存。"}},
      {"kv-cache/queries",
       {"第 {t} 个词元：queries = W_query(x[:, {t0}:{t1}])，唯一需要的查询",
        "现在只有最新的词元提出查询：一行查询，形状为 ({batch}, 1, {d_out})。之前词元的查询在生成它们时"
        "已经用过，以后不再需要，所以没有查询缓存。"}},
      {"kv-cache/keys",
       {"第 {t} 个词元：keys = cache_k.transpose(1, 2)，存有 {t} 个词元的键缓存",
        "torch.cat([cache_k, keys_new], dim=1) 把新行接到 cache_k 后面，形状为 ({batch}, {t}, {heads}, "
        "{head_dim})；为多头转置后是 ({batch}, {heads}, {t}, {head_dim})：比上一个词元时多一行。"}},
      {"kv-cache/keys#first",
       {"第 1 个词元：keys = cache_k.transpose(1, 2)，键缓存从一个词元开始",
        "缓存原来是空的，所以 cache_k 就是 keys_new 本身，形状为 ({batch}, 1, {heads}, {head_dim})；"
        "为多头转置后是 ({batch}, {heads}, 1, {head_dim})。之后每个词元用 torch.cat(..., dim=1) 追加一行。"}},
      {"kv-cache/values#first",
       {"第 1 个词元：values = cache_v.transpose(1, 2)，值缓存从一个词元开始",
        "cache_v 就是 values_new 本身：({batch}, {heads}, 1, {head_dim})。"}},
      {"kv-cache/values",
       {"第 {t} 个词元：values = cache_v.transpose(1, 2)，存有 {t} 个词元的值缓存",
        "值缓存以同样方式增长：({batch}, {heads}, {t}, {head_dim})。"}},
      {"kv-cache/attn_scores",
       {"第 {t} 个词元：attn_scores = queries @ keys.transpose(2, 3)，每个头一行 1 × {t}",
        "一个查询对所有 {t} 个缓存的键：形状为 ({batch}, {heads}, 1, {t})。掩码截取为 [:1, :1]，"
        "什么也不遮挡：缓存中的词元都在过去，或就是它自己。"}},
      {"kv-cache/attn_scores#first",
       {"第 1 个词元：attn_scores = queries @ keys.transpose(2, 3)，每个头一个 1 × 1 分数",
        "第一个词元只能关注它自己：每个头一个分数，形状为 ({batch}, {heads}, 1, 1)。"}},
      {"kv-cache/attn_weights#first",
       {"第 1 个词元：softmax(attn_scores / √{head_dim})，唯一的权重 1",
        "单个分数的 softmax 等于 1：第一个词元的输出就是它自己的值，再经过投影。"}},
      {"kv-cache/attn_weights",
       {"第 {t} 个词元：softmax(attn_scores / √{head_dim})，对 {t} 个缓存词元的权重",
        "每个头的 {t} 个权重之和为 1。这一行就是完整因果计算中权重的第 {t} 行，"
        "但不需要计算其他行（下面的 attn_weights_cached 把它们叠在一起）。"}},
      {"kv-cache/context_vec",
       {"第 {t} 个词元：out_proj(attn_weights @ values)，新词元的输出行",
        "缓存中值的加权和，多头合并回 {d_out} 维后再投影：形状为 ({batch}, 1, {d_out})。"
        "生成文本时它会变成下一个词元；这里下一个输入就是文本中的下一个词元。"}},
      {"kv-cache/attn_weights_cached",
       {"{T} 行权重叠在一起：第 t 行来自第 t 个词元的 1 × t 分数",
        "这些行合起来，每个头构成一个 ({T}, {T}) 矩阵，第 t 行有 t 个元素：每来一个词元，缓存就多一个键。"
        "对角线以上当时还没有可关注的词元（这里为 0），正是因果掩码放 0 的位置。形状为 ({batch}, {heads}, {T}, {T})。"}},
      {"kv-cache/context_vecs_cached",
       {"torch.cat 拼接 {T} 个输出行，dim=1",
        "逐个词元计算的输出并排放在一起：({batch}, {T}, {d_out})。"}},
      {"kv-cache/context_vecs_full",
       {"同一个模块一次处理全部 {T} 个词元（use_cache=False）",
        "本章的因果计算：一次算出所有键、查询和值，用掩码遮住未来。它与逐个词元的缓存计算给出相同的输出"
        "（只差 float32 舍入），因为每一行注意力本来就只看它之前的词元。"}},
      {"kv-cache/cost",
       {"生成 {T} 个词元的开销：两行分别是不用缓存和使用缓存",
        "不用缓存时，第 t 个词元要把全部 t 个词元重新投影、重新打分：{T} 个词元共 {flops_without} 次浮点运算，"
        "最后一步的分数有 {scores_without} 个浮点数。使用缓存时，每一步只投影一个词元、只算一行分数："
        "{flops_with} 次浮点运算（少 {flops_ratio} 倍），分数 {scores_with} 个浮点数；代价是在词元之间保留缓存："
        "{kept_floats} 个浮点数（float32 下 {kept_bytes} 字节），真实模型的每一层都有一份。"}},
  };
  t.checks = {
      {"kv_cache_weights_equal_full_pass", "叠起来的各行等于完整因果计算的注意力权重"},
      {"kv_cache_outputs_equal_full_pass", "叠起来的输出等于完整因果计算（use_cache=False）"},
  };
  t.ui = {
      {"stage.kv-cache", "KV 缓存：一次一个词元，缓存逐步增长，输出相同，开销对比"},
      {"word.cost_columns", "浮点运算次数 / 词元之间保留的浮点数 / 最后一步分数的浮点数"},
      {"word.without_cache", "不用缓存"},
      {"word.cost_colon", "："},
      {"word.with_cache", "使用缓存"},
  };
  return t;
}

}  // namespace attn
