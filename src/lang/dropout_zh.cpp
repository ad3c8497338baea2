// Chinese texts of the dropout stage (src/stages/dropout.cpp):
// 3.5.2–3.5.3 节
#include "lang/chapter.h"

namespace attn {

LangTable dropout_zh() {
  LangTable t;
  t.code = "zh";
  t.steps = {
      {"dropout/attn_weights_causal",
       {"3.5.1 节的因果注意力权重",
        "起点：因果注意力权重，形状为 ({T}, {T})，每行之和为 1。"}},
      {"dropout/dropout_ones",
       {"torch.nn.Dropout({p})(torch.ones({T}, {T}))，随机种子 {seed1}：保留的元素变为 1/(1-p)",
        "训练时，dropout 会让每个元素以 p = {p} 的概率变为 0，并把保留下来的元素乘以 "
        "1/(1-p) = {scale}，这样每个元素的期望值保持不变。作用在全 1 矩阵上，就能直接看到"
        "掩码本身。"}},
      {"dropout/dropout_ones#p0",
       {"torch.nn.Dropout({p})(torch.ones({T}, {T}))：p = 0 时全部保留",
        "p = 0 时 dropout 保留所有元素，缩放因子为 1/(1-0) = 1：输出就是输入，也不会抽取"
        "任何随机数。"}},
      {"dropout/dropout_ones#p1",
       {"torch.nn.Dropout({p})(torch.ones({T}, {T}))：p = 1 时全部丢弃",
        "p = 1 时每个元素都被丢弃，结果全为 0（PyTorch 直接返回全零，不抽取随机数）。"}},
      {"dropout/dropout_attn_weights",
       {"对 attn_weights_causal 做同样的 dropout，随机种子 {seed1}",
        "相同的随机种子会丢弃相同的位置；保留的权重乘以 {scale}。随机丢弃注意力权重能让模型"
        "不过分依赖少数几个词元，从而减轻过拟合。"}},
      {"dropout/dropout_attn_weights#p0",
       {"对 attn_weights_causal 做同样的 dropout（p = 0）", "p = 0 时权重原样通过。"}},
      {"dropout/dropout_attn_weights#p1",
       {"对 attn_weights_causal 做同样的 dropout（p = 1）", "p = 1 时所有权重都变为 0。"}},
      {"dropout/dropout_attn_weights_row_sums",
       {"dropout 之后的行和：不再是 1",
        "一方面有元素被置零，另一方面保留的元素按 1/(1-p) 放大：每行之和不再是 1，只有期望值"
        "还是 1；离 1 最远的是第 {far_row} 行，和为 {far_sum}。这没有关系，因为 dropout 只在"
        "训练时使用，推理时（model.eval()）会关闭。"}},
      {"dropout/dropout_attn_weights_row_sums#zero_row",
       {"dropout 之后的行和：不再是 1，第 {zero_rows} 行全被丢弃",
        "一方面有元素被置零，另一方面保留的元素按 1/(1-p) 放大：每行之和不再是 1，只有期望值"
        "还是 1。第 {zero_rows} 行的权重全部被丢弃，和为 0：在这一步训练中，查询 "
        "x({zero_rows}) 得到的上下文向量全是 0。这没有关系，因为 dropout 只在训练时使用，"
        "推理时（model.eval()）会关闭。"}},
      {"dropout/dropout_attn_weights_row_sums#zero_rows",
       {"dropout 之后的行和：不再是 1，第 {zero_rows} 行全被丢弃",
        "一方面有元素被置零，另一方面保留的元素按 1/(1-p) 放大：每行之和不再是 1，只有期望值"
        "还是 1。第 {zero_rows} 行的权重全部被丢弃，和为 0：在这一步训练中，这些查询得到的"
        "上下文向量全是 0。这没有关系，因为 dropout 只在训练时使用，推理时（model.eval()）"
        "会关闭。"}},
      {"dropout/dropout_attn_weights_row_sums#p0",
       {"p = 0 时 dropout 之后的行和：仍然是 1", "没有任何元素被丢弃，所以每行之和仍然是 1。"}},
      {"dropout/dropout_attn_weights_row_sums#p1",
       {"p = 1 时 dropout 之后的行和：全为 0", "所有元素都被丢弃，所以每行之和都是 0。"}},
      {"dropout/batch",
       {"torch.stack((inputs,) * {batch})：由 {batch} 份副本组成的批次",
        "模块按批次（batch）处理数据：把 {batch} 份 inputs 沿新的第 0 维堆叠起来，形状为 "
        "({batch}, {T}, {d_in})，即 (batch, num_tokens, d_in)。"}},
      {"dropout/causal_attention_context_vecs",
       {"CausalAttention({d_in}, {d_out}, {T}, {attn_p}{bias_arg})(batch)，随机种子 {seed1}",
        "CausalAttention 把前面的内容组合在一起：线性投影；用 keys.transpose(1, 2) 计算分数"
        "（只交换最后两维，因为第 0 维是批次）；用 -inf 做 masked_fill_；缩放 softmax；"
        "p = {attn_p} 的 dropout；最后对值向量加权求和。形状为 ({batch}, {T}, {d_out})："
        "批次中每个样本的每个词元各有一个上下文向量。"}},
  };
  t.ui = {
      {"stage.dropout", "对注意力权重做 dropout；CausalAttention 类"},
  };
  return t;
}

}  // namespace attn
