// mla 阶段（src/stages/mla.cpp）的中文文字。
#include "lang/bonus.h"

namespace attn {

LangTable mla_zh() {
  LangTable t;
  t.code = "zh";
  t.steps = {
      {"mla/W_query.weight",
       {"W_query.weight：查询与 MultiHeadAttention 相同，({d_out}, {d_in})",
        "MultiHeadLatentAttention 在 torch.manual_seed({seed1}) 之后立即构建，按顺序抽取 W_query、W_DKV、"
        "W_UK、W_UV 和 out_proj。查询的投影与本章的 MultiHeadAttention 相同。"}},
      {"mla/W_query.bias", {"W_query.bias", "紧接 W_query 的权重之后抽取（--qkv-bias）。"}},
      {"mla/W_DKV.weight",
       {"W_DKV.weight：向下投影到潜变量，({latent_dim}, {d_in})",
        "不用 W_key 和 W_value，而是用一个小矩阵把每个词元压缩成 {latent_dim} 个数的潜变量 c_kv。"
        "每个头的键和值都由它生成。"}},
      {"mla/W_DKV.bias", {"W_DKV.bias", "紧接 W_DKV 的权重之后抽取（--qkv-bias）。"}},
      {"mla/W_UK.weight",
       {"W_UK.weight：潜变量 -> 键，({d_out}, {latent_dim})",
        "把潜变量向上投影为全部 {heads} 个头的键。"}},
      {"mla/W_UK.bias", {"W_UK.bias", "紧接 W_UK 的权重之后抽取（--qkv-bias）。"}},
      {"mla/W_UV.weight",
       {"W_UV.weight：潜变量 -> 值，({d_out}, {latent_dim})",
        "把潜变量向上投影为全部 {heads} 个头的值。"}},
      {"mla/W_UV.bias", {"W_UV.bias", "紧接 W_UV 的权重之后抽取（--qkv-bias）。"}},
      {"mla/queries_all",
       {"queries_all = W_query(x)",
        "形状为 ({batch}, {T}, {d_out})；下面拆成 {heads} 个 {head_dim} 维的头。"}},
      {"mla/latent",
       {"latent = W_DKV(x)：c_kv，缓存只需保存它",
        "形状为 ({batch}, {T}, {latent_dim})：每个词元 {latent_dim} 个数，而 MultiHeadAttention 要保存 "
        "{kv_per_token} 个（它的键和值）。"}},
      {"mla/keys_all",
       {"keys_all = W_UK(latent)",
        "每个头的键，由潜变量向上投影得到：({batch}, {T}, {d_out})。需要时从缓存的潜变量重新计算。"}},
      {"mla/values_all",
       {"values_all = W_UV(latent)",
        "每个头的值，来自同一个潜变量：({batch}, {T}, {d_out})。"}},
      {"mla/attn_scores",
       {"torch.matmul(queries, keys.transpose(-2, -1))，q_position < k_position 处屏蔽",
        "从这里起是本章的数学，形状 ({batch}, {heads}, {T}, {T})：参考代码用位置构造因果掩码，"
        "q_positions.unsqueeze(-1) < k_positions.unsqueeze(0)，所以位置 t 的缓存查询仍能看到键 0..t。"}},
      {"mla/attn_weights",
       {"softmax(attn_scores / √{head_dim})",
        "每行和为 1，对角线以上为 0。"}},
      {"mla/context_vec",
       {"context_vec：合并各头，out_proj",
        "完整一次前向的输出，({batch}, {T}, {d_out})。"}},
      {"mla/cache_c_kv",
       {"逐个输入 {T} 个词元后的 cache_c_kv（use_cache=True）",
        "与生成时一样：每次调用把该词元的潜变量行加入 cache_c_kv，再从整个缓存向上投影出键和值。"
        "形状为 ({batch}, {T}, {latent_dim})：逐行就是完整前向的潜变量。"}},
      {"mla/context_vec_cached",
       {"{T} 次缓存调用的输出，堆叠起来",
        "位置 t 的查询关注由缓存潜变量生成的键 0..t：输出与完整前向相同（在 float32 舍入误差内）。"}},
      {"mla/kv_cache_size",
       {"{T} 个词元的缓存大小（浮点数个数）：MultiHeadAttention 的键和值，然后是 MLA 的潜变量",
        "键和值需要 {cache_mha} 个浮点数，潜变量只要 {cache_mla} 个：每层少 {cache_ratio} 倍，"
        "代价是每一步都要用 W_UK 和 W_UV 向上投影。"}},
      {"mla/kv_cache_size#no_saving",
       {"{T} 个词元的缓存大小（浮点数个数）：MultiHeadAttention 的键和值，然后是 MLA 的潜变量",
        "键和值需要 {cache_mha} 个浮点数，潜变量需要 {cache_mla} 个：{latent_dim} 维的潜变量不比一个词元的键和值的 "
        "{kv_per_token} 个数少，所以没有节省。--latent-dim 小于 {kv_per_token} 时 MLA 才划算"
        "（参考代码的默认值是 max(16, d_out // 8)）。"}},
  };
  t.checks = {
      {"mla_cached_equals_full", "用潜变量缓存逐个词元计算，得到与完整前向相同的输出（在 float32 舍入误差内）"},
  };
  t.ui = {
      {"stage.mla", "多头潜在注意力：键和值来自一个小的缓存潜变量（--latent-dim）"},
  };
  return t;
}

}  // namespace attn
