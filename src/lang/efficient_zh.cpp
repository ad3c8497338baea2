// efficient 阶段（src/stages/efficient.cpp）的中文文字。
#include "lang/bonus.h"

namespace attn {

LangTable efficient_zh() {
  LangTable t;
  t.code = "zh";
  t.steps = {
      {"efficient/qkv.weight",
       {"qkv.weight：查询、键、值共用一个 Linear，({qkv_width}, {d_in})",
        "MultiHeadAttentionCombinedQKV 用一个 nn.Linear({d_in}, 3 * {d_out}) 代替 W_query、W_key 和 W_value，"
        "在 torch.manual_seed({seed1}) 之后立即抽取。前 {d_out} 行生成查询，接着 {d_out} 行生成键，最后 {d_out} 行生成值。"}},
      {"efficient/qkv",
       {"qkv = self.qkv(x)：查询、键、值并排",
        "一次矩阵乘法代替三次：({batch}, {T}, {d_in}) @ ({d_in}, {qkv_width}) 得到 ({batch}, {T}, {qkv_width})，"
        "每个词元的查询、键和值在同一行。"}},
      {"efficient/qkv_viewed",
       {"qkv.view(b, T, 3, heads, head_dim)",
        "最后一维展开为 (3, {heads}, {head_dim})：查询/键/值中的哪一个、哪个头、哪一维。"
        "形状为 ({batch}, {T}, 3, {heads}, {head_dim})；数值没有移动。"}},
      {"efficient/qkv_permuted",
       {"qkv.permute(2, 0, 3, 1, 4)：(3, b, heads, T, head_dim)",
        "permute 把查询/键/值的序号放到最前，把头放到词元之前；本章要对三个张量分别转置，这里一步完成："
        "({batch}, {T}, 3, {heads}, {head_dim}) -> (3, {batch}, {heads}, {T}, {head_dim})。"}},
      {"efficient/queries",
       {"queries, keys, values = qkv.unbind(0)：查询",
        "unbind(0) 沿第一维拆成三个 (b, heads, T, head_dim) 视图：({batch}, {heads}, {T}, {head_dim})，"
        "与本章 queries.transpose(1, 2) 的布局相同。"}},
      {"efficient/keys", {"键，qkv[1]", "形状为 ({batch}, {heads}, {T}, {head_dim})。"}},
      {"efficient/values", {"值，qkv[2]", "形状为 ({batch}, {heads}, {T}, {head_dim})。"}},
      {"efficient/attn_scores",
       {"queries @ keys.transpose(-2, -1)，未来位置用 -inf 遮住",
        "从这里开始，计算与本章相同：每个头的分数 ({batch}, {heads}, {T}, {T})，因果掩码在对角线以上填入 -inf。"}},
      {"efficient/attn_weights",
       {"softmax(attn_scores / √{head_dim})",
        "缩放后的 softmax：每行之和为 1，对角线以上为 0。"}},
      {"efficient/context_vec",
       {"context_vec：合并多头，再经 proj 投影",
        "(attn_weights @ values).transpose(1, 2) 视为 ({batch}, {T}, {d_out})，再经过模块的输出投影 proj。"}},
      {"efficient/mha_context_vecs",
       {"同一种子 {seed1} 之后的本章 MultiHeadAttention",
        "计算相同，数值不同：本章依次抽取 W_query 的权重和偏置、W_key 的、W_value 的；"
        "而 qkv 先抽取整个 ({qkv_width}, {d_in}) 权重，再抽取偏置，所以从第二块开始，每个权重拿到的是另一个随机数。"}},
      {"efficient/mha_context_vecs#same_draws",
       {"同一种子 {seed1} 之后的本章 MultiHeadAttention：输出相同",
        "种子相同，数值也相同：没有偏置时，qkv 的 ({qkv_width}, {d_in}) 权重与依次抽取的 W_query、W_key、W_value "
        "来自同一个随机数流，范围也相同（fan_in = {d_in}），所以它的各行正好就是这三个矩阵；proj 也在 out_proj 的位置抽取。"
        "试试 --qkv-bias：每个 W_* 会在权重之后立即抽取偏置，输出就不同了。"}},
      {"efficient/qkv.weight_copied",
       {"qkv.weight = torch.cat([W_query.weight, W_key.weight, W_value.weight])",
        "把本章模块的三个权重矩阵按行叠起来，并把 proj 设为它的 out_proj：现在两个模块计算同一个函数。"}},
      {"efficient/context_vec_copied",
       {"复制权重后的 MultiHeadAttentionCombinedQKV",
        "它的输出等于本章的 MultiHeadAttention：合并投影只改变计算的安排（一次矩阵乘法、一次 permute），不改变计算的内容。"}},
      {"efficient/sdpa_attn_bias",
       {"F.scaled_dot_product_attention 的计算：attn_bias，取 0 或 -inf",
        "F.scaled_dot_product_attention 在 PyTorch 1.13 之后才出现，所以这里把它的计算拆成步骤。"
        "is_causal=True 时它构造一个加性的 ({T}, {T}) 偏置：torch.ones(L, S).tril() 为 1 的位置是 0，对角线以上是 -inf。"}},
      {"efficient/sdpa_scores",
       {"queries @ keys.transpose(-2, -1) * scale_factor，scale_factor = 1 / √{head_dim}",
        "分数乘以 1 / √{head_dim}，而不是除以 √{head_dim}，所以最后一位可能与本章的 scores / √{head_dim} 不同。"
        "形状为 ({batch}, {heads}, {T}, {T})。"}},
      {"efficient/sdpa_attn_weight",
       {"torch.softmax(scores + attn_bias, dim=-1)",
        "加 0 不改变分数，加 -inf 把它遮住：与用 -inf 做 masked_fill 相同。"}},
      {"efficient/sdpa_output",
       {"attn_weight @ values：F.scaled_dot_product_attention 的返回值",
        "形状为 ({batch}, {heads}, {T}, {head_dim})，还没有合并多头；模块随后像上面一样转置、view 并经过 proj。"}},
  };
  t.checks = {
      {"efficient_outputs_differ_by_weights", "两个模块的输出不同：计算相同，随机权重不同"},
      {"efficient_same_draws", "没有偏置时 qkv.weight 与 torch.cat([W_query, W_key, W_value]) 逐位相同，输出也相等"},
      {"efficient_sdpa_equals_chapter_math", "scaled_dot_product_attention 的计算给出本章的 attn_weights @ values（只差 float32 舍入）"},
      {"efficient_copied_weights_equal_mha", "复制本章模块的权重后，输出等于 MultiHeadAttention 的输出"},
  };
  t.ui = {
      {"stage.efficient", "MultiHeadAttentionCombinedQKV：一个 qkv Linear，view、permute、unbind；复制权重后输出相同"},
  };
  return t;
}

}  // namespace attn
