// Chinese texts of the softmax stage (src/stages/softmax.cpp):
// 3.3.1 节，分数的归一化
#include "lang/chapter.h"

namespace attn {

LangTable softmax_zh() {
  LangTable t;
  t.code = "zh";
  t.steps = {
      {"softmax/attn_scores_2",
       {"查询 {xq} 的注意力分数",
        "注意力分数 ω{query}i = {xq} · x(i)，形状为 ({T},)。原始分数可大可小、可正可负；"
        "这一部分比较三种把分数变成权重的方法。"}},
      {"softmax/attn_weights_2_tmp",
       {"attn_scores_2 / attn_scores_2.sum()",
        "最简单的归一化是把每个分数除以它们的总和：结果之和为 1，但负的分数会得到负的权重，"
        "总和接近 0 时权重还会变得极大。所以注意力机制改用 softmax。"}},
      {"softmax/attn_weights_2_tmp_sum",
       {"它的总和", "把所有元素相加，得到一个 0 维张量：1，符合预期。"}},
      {"softmax/attn_weights_2_naive",
       {"softmax_naive：exp(x) / exp(x).sum()",
        "softmax(x)i = exp(xi) / Σ_j exp(xj)：exp 让每个权重都为正，并且放大较大的分数。"
        "这个朴素版本直接对原始分数取 exp，一旦某个分数超过 88 左右，float32 就会溢出。"}},
      {"softmax/attn_weights_2_naive_sum",
       {"它的总和", "还是 1：softmax 得到的权重之和总是 1。"}},
      {"softmax/attn_weights_2",
       {"torch.softmax(attn_scores_2, dim=0)",
        "PyTorch 计算的是 exp(x - max(x)) / Σ exp(x - max(x))。减去最大值在数学上不改变结果"
        "（因子 exp(-max) 会约掉），但最大的指数项变成了 exp(0) = 1，因此不会溢出。"
        "结果与 softmax_naive 相同。"}},
      {"softmax/attn_weights_2_sum", {"它的总和", "在 float32 的舍入误差范围内等于 1。"}},
      {"softmax/attn_weights",
       {"对每个查询：torch.softmax(inputs @ inputs.T, dim=-1)",
        "对所有查询做同样的事：把 ({T}, {T}) 的分数矩阵按 dim=-1 逐行归一化"
        "（dim=0 会按列归一化，那不是注意力需要的）。"}},
      {"softmax/attn_weights_row_sums",
       {"每一行之和都为 1", "每行（即每个查询）一个和，形状为 ({T},)。"}},
      {"softmax/overflow_scale",
       {"让分数的 exp 在 float32 中溢出的放大倍数",
        "这是能让 exp 溢出的最小的 10 的幂：分数乘上它之后，exp 就会超出 float32 的上限"
        "（约 3.4e38 = exp(88.7)）。实际中确实会出现很大的分数，因为点积会随嵌入维度的增大而"
        "增大。"}},
      {"softmax/overflow_scale#no_overflow",
       {"对这些分数，任何倍数都不会让 exp 溢出；这里用 100",
        "无论乘上多大的 10 的幂，在分数本身溢出之前 exp 都不会溢出（例如所有分数都是 0），"
        "所以后面的步骤用 100。"}},
      {"softmax/big_scores_2",
       {"attn_scores_2 * {big_scale}",
        "同样的分数放大 {big_scale} 倍：大小顺序不变，但最大的几个已经超出了 float32 中 exp "
        "能表示的范围。"}},
      {"softmax/big_scores_2#no_overflow",
       {"attn_scores_2 * {big_scale}", "同样的分数放大 {big_scale} 倍：大小顺序不变。"}},
      {"softmax/big_weights_2_naive",
       {"softmax_naive(big_scores_2)：exp 溢出为 inf；inf / inf 得到 nan，有限值 / inf 得到 0",
        "在 float32 中，其中 {n_nan} 个分数的 exp 是 inf，于是总和也是 inf。这 {n_nan} 个元素"
        "是 inf / inf = nan；另外 {n_zero} 个分数的 exp 是有限值，有限值除以 inf 得 0。"
        "无论哪种情况，朴素的 softmax 都失效了。"}},
      {"softmax/big_weights_2_naive#all_nan",
       {"softmax_naive(big_scores_2)：exp 溢出为 inf，inf / inf 得到 nan",
        "在 float32 中，这些分数的 exp 全都是 inf，总和也是 inf，所以每个元素都是 "
        "inf / inf = nan：朴素的 softmax 失效了。"}},
      {"softmax/big_weights_2_naive#no_overflow",
       {"softmax_naive(big_scores_2)",
        "这些分数的 exp 不会溢出，所以朴素的 softmax 在这里仍然可用。"}},
      {"softmax/big_weights_2",
       {"torch.softmax(big_scores_2, dim=0)：仍是有限值，总和为 1",
        "减去最大值之后，每个指数都不大于 0，exp 的结果落在 0 到 1 之间：权重都是有限值，"
        "总和为 1。这么大的分数会把权重集中到最大的几个分数上：这里 {w1_tok} 得到 {w1}，"
        "{w2_tok} 得到 {w2}，其余的合计只有 {rest}。"}},
      {"softmax/big_weights_2#one_hot",
       {"torch.softmax(big_scores_2, dim=0)：仍是有限值，总和为 1",
        "减去最大值之后，每个指数都不大于 0，exp 的结果落在 0 到 1 之间：权重都是有限值，"
        "总和为 1。这么大的分数让 softmax 几乎变成 one-hot：{w1_tok} 得到 {w1}，其余的合计只有 "
        "{rest}。"}},
      {"softmax/big_weights_2#many",
       {"torch.softmax(big_scores_2, dim=0)：仍是有限值，总和为 1",
        "减去最大值之后，每个指数都不大于 0，exp 的结果落在 0 到 1 之间：权重都是有限值，"
        "总和为 1。权重由 {n_shared} 个词元分享，每个至少得到 0.01；最大的是 {w1_tok}，得到 "
        "{w1}。"}},
      {"softmax/attn_weights_2_sharp",
       {"torch.softmax(attn_scores_2 / 0.5)：更尖锐，更接近 one-hot",
        "除以小于 1 的数会拉大分数之间的差距，最大的分数就会分到更多权重。分数很大时也会"
        "这样，这正是 3.4 节要除以 sqrt(d_k) 的原因。"}},
      {"softmax/attn_weights_2_flat",
       {"torch.softmax(attn_scores_2 / 2.0)：更平缓，更接近均匀分布",
        "除以 2 会缩小分数之间的差距，权重变得更均匀。缩放点积注意力除以 sqrt(d_k) 正是为此："
        "让 softmax 远离饱和区，也就是几乎 one-hot、梯度几乎为零的区域。"}},
  };
  t.ui = {
      {"stage.softmax", "分数的归一化：除以总和、朴素的 exp，以及数值稳定的 softmax"},
  };
  return t;
}

}  // namespace attn
