// Chinese texts of the dot-product stage (src/stages/dot_product.cpp):
// 3.3.1–3.3.2 节，不含可训练权重的注意力
#include "lang/chapter.h"

namespace attn {

LangTable dot_product_zh() {
  LangTable t;
  t.code = "zh";
  t.steps = {
      {"dot-product/inputs",
       {"{T} 个词元的嵌入向量，每行一个词元",
        "每一行 x(i) 是一个词元（token）的嵌入向量：共 {T} 个词元，每个 {d_in} 维，所以 inputs "
        "的形状是 ({T}, {d_in})。自注意力要把每个 x(i) 变成一个上下文向量 z(i)，让它同时带上"
        "其他词元的信息。"}},
      {"dot-product/query",
       {"查询 {xq} = inputs[{q}]",
        "先只看一个词元：以 {xq} 作为查询（query），第一步就是计算它的上下文向量 z({query})。"
        "Python 从 0 开始计数，所以 x({query}) 是 inputs[{q}]，形状为 ({d_in},)。"}},
      {"dot-product/attn_scores_2",
       {"注意力分数：{xq} 与每个输入的点积 {xq} · x(i)",
        "注意力分数 ω{query}i = {xq} · x(i) 是查询与每个输入的点积，每个词元对应一个分数，"
        "形状为 ({T},)。点积等于 |a| |b| cos θ：两个向量的方向越接近、长度越长，点积就越大。"
        "这里最大的分数是 {xq} 与自身的点积 ω{query}{query} = {self_score}：没有哪个向量比 "
        "{xq} 自己的方向更接近 {xq}。"}},
      {"dot-product/attn_scores_2#longer_wins",
       {"注意力分数：{xq} 与每个输入的点积 {xq} · x(i)",
        "注意力分数 ω{query}i = {xq} · x(i) 是查询与每个输入的点积，每个词元对应一个分数，"
        "形状为 ({T},)。点积等于 |a| |b| cos θ：它不只取决于方向是否接近，也随向量的长度增大。"
        "这里 {xq} · x({top}) = {top_score} 比 {xq} · {xq} = {self_score} 还大，尽管没有哪个"
        "向量比 {xq} 自己的方向更接近 {xq}：原因是 x({top}) 更长，|x({top})| = {top_len}，"
        "而 |{xq}| = {q_len}。"}},
      {"dot-product/res",
       {"逐元素手算 x(1) · {xq}，与 attn_scores_2[0] 相同",
        "点积就是把两个向量逐元素相乘再求和：x(1) · {xq} = Σ_k x(1)[k] · {xq}[k]。"
        "这个循环算出的数与 attn_scores_2[0] 相同，结果是一个 0 维张量。"}},
      {"dot-product/attn_weights_2",
       {"注意力权重：softmax(attn_scores_2)，总和为 1",
        "注意力权重 α{query}i = exp(ω{query}i) / Σ_j exp(ω{query}j) 对分数做归一化：每个权重都"
        "是正数且总和为 1，可以理解为 {xq} 分给每个词元多少注意力。形状不变，仍是 ({T},)。"}},
      {"dot-product/context_vec_2",
       {"{xq} 的上下文向量：Σ attn_weights_2[i] · x(i)",
        "上下文向量 z({query}) = Σ α{query}i x(i) 是所有输入按注意力权重的加权和，相当于在 "
        "{xq} 的嵌入向量里融入了每个词元的信息。它的维度与输入相同，形状为 ({d_in},)。"}},
      {"dot-product/attn_scores",
       {"全部注意力分数：inputs @ inputs.T",
        "现在一次处理所有查询：第 [i, j] 个元素是 ωij = x(i) · x(j)，所以第 {query} 行就是 "
        "attn_scores_2。一次矩阵乘法完成全部点积：({T}, {d_in}) @ ({d_in}, {T}) 得到 "
        "({T}, {T})。长度和方向同样重要：在第 {ci} 行，x({ci}) · x({cj}) = {c_score} 大于 "
        "x({ci}) · x({ci}) = {c_self}，因为 |x({cj})| = {cj_len} 比 |x({ci})| = {ci_len} 更长。"}},
      {"dot-product/attn_scores#self_wins",
       {"全部注意力分数：inputs @ inputs.T",
        "现在一次处理所有查询：第 [i, j] 个元素是 ωij = x(i) · x(j)，所以第 {query} 行就是 "
        "attn_scores_2。一次矩阵乘法完成全部点积：({T}, {d_in}) @ ({d_in}, {T}) 得到 "
        "({T}, {T})。在这组嵌入向量中，每个词元都与自身的分数最高：每一行最大的分数都在"
        "对角线上。"}},
      {"dot-product/attn_weights",
       {"对每一行做 softmax（dim=-1）",
        "torch.softmax(attn_scores, dim=-1) 沿最后一维归一化，也就是每行单独归一化，第 i 行"
        "就是查询 x(i) 的注意力权重。形状不变：({T}, {T})。"}},
      {"dot-product/row_2_sum",
       {"把第 {query} 行打印出来的权重交给 Python 的 sum() 相加：得到一个 Python 浮点数",
        "笔记本手动验算了一行：把第 {query} 行打印出的 {T} 个权重抄进 sum([...])，按 Python "
        "浮点数相加。每个权重都舍入到了 4 位小数，所以和的最后几位可能不是 1；下一步对未舍入的 "
        "float32 权重求和。"}},
      {"dot-product/attn_weights_row_sums",
       {"attn_weights 每一行之和都为 1",
        "attn_weights.sum(dim=-1) 对每一行求和：每个查询得到一个数，形状为 ({T},)，"
        "在 float32 的舍入误差范围内都等于 1。"}},
      {"dot-product/all_context_vecs",
       {"全部上下文向量：attn_weights @ inputs；第 {query} 行就是 context_vec_2",
        "一次算出所有的 z(i) = Σ_j αij x(j)：({T}, {T}) @ ({T}, {d_in}) 得到 ({T}, {d_in})，"
        "每个词元一个上下文向量。第 {query} 行正是前面用循环算出的 context_vec_2。"}},
  };
  t.ui = {
      {"stage.dot-product", "用点积计算注意力分数、softmax 权重和上下文向量"},
  };
  return t;
}

}  // namespace attn
