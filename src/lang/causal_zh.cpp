// Chinese texts of the causal stage (src/stages/causal.cpp):
// 3.5.1 节，遮住未来的词元
#include "lang/chapter.h"

namespace attn {

LangTable causal_zh() {
  LangTable t;
  t.code = "zh";
  t.steps = {
      {"causal/queries",
       {"sa_v2.W_query(inputs)，随机种子 {seed2}",
        "3.5 节沿用 3.4 节的 SelfAttention_v2（随机种子 {seed2}）：这是它的查询向量，每个"
        "词元一个，形状为 ({T}, {d_out})。"}},
      {"causal/keys",
       {"sa_v2.W_key(inputs)", "以及它的键向量，形状为 ({T}, {d_out})。"}},
      {"causal/attn_scores",
       {"queries @ keys.T",
        "全部注意力分数 ωij = q(i) · k(j)：({T}, {d_out}) @ ({d_out}, {T}) 得到 ({T}, {T})。"}},
      {"causal/attn_weights",
       {"softmax(attn_scores / sqrt(d_k))：每个词元仍能看到后面的词元",
        "这是 3.4 节的缩放 softmax（d_k = {d_k}）。对角线以上的元素 [i, j]（j > i）是词元 i "
        "分给后面词元 j 的权重；预测下一个词的模型不能看到这些“未来”的词元，所以必须把它们"
        "去掉。"}},
      {"causal/mask_simple",
       {"torch.tril(torch.ones(T, T))：j <= i 处为 1",
        "因果掩码：对角线及其下方（词元 i 和它之前的词元）为 1，上方（未来的词元）为 0。"
        "torch.tril 保留下三角部分，形状为 ({T}, {T})。"}},
      {"causal/masked_simple",
       {"attn_weights * mask_simple",
        "逐元素相乘，把所有落在未来词元上的权重清零。但这样一来，每行之和就小于 1 了。"}},
      {"causal/row_sums",
       {"masked_simple.sum(dim=-1, keepdim=True)",
        "每一行的和；keepdim=True 保留形状 ({T}, 1)，这样下面的除法才能沿每一行广播。"}},
      {"causal/masked_simple_norm",
       {"masked_simple / row_sums：每行之和重新为 1",
        "每行除以自己的和，重新归一化：落在过去和当前词元上的权重之和又回到 1。这是方法一："
        "先 softmax，再掩码，最后重新归一化。"}},
      {"causal/mask",
       {"torch.triu(torch.ones(T, T), diagonal=1)：j > i 处为 1",
        "方法二需要相反的掩码：严格位于对角线上方（diagonal=1）的位置为 1，标出要遮住的未来"
        "位置。"}},
      {"causal/masked",
       {"attn_scores.masked_fill(mask.bool(), -torch.inf)",
        "未来位置的分数被替换为 -inf。掩码要在 softmax 之前施加：exp(-inf) = 0，这些位置的"
        "权重恰好为 0，而 softmax 自身的归一化会让其余权重之和为 1。"}},
      {"causal/attn_weights_causal",
       {"softmax(masked / sqrt(d_k))：与 masked_simple_norm 相等",
        "一次 softmax 就得到因果注意力权重：第 i 行的权重只分布在第 1 到第 i 个词元上。"
        "结果与方法一相同，但只需归一化一次，而不是两次。"}},
  };
  t.ui = {
      {"stage.causal", "遮住未来的词元：tril 方法与 -inf 方法"},
  };
  return t;
}

}  // namespace attn
