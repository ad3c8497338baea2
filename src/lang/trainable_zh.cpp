// Chinese texts of the trainable stage (src/stages/trainable.cpp):
// 3.4 节，缩放点积注意力
#include "lang/chapter.h"

#include <map>
#include <string>

namespace attn {

namespace {

// 3.4.1: the weight matrices and one query, step by step.
std::map<std::string, StepText> step_by_step_texts_zh() {
  return {
      {"trainable/x_2",
       {"查询词元 {xq} = inputs[{q}]",
        "3.4 节先用可训练权重计算一个词元的上下文向量。x_2 是这个词元的嵌入向量，形状为 "
        "({d_in},)。"}},
      {"trainable/W_query",
       {"把输入投影为查询：nn.Parameter(torch.{init}({d_in}, {d_out}), requires_grad=False)，"
        "随机种子 {seed1}",
        "查询权重矩阵 W_q 的形状为 ({d_in}, {d_out})，它把每个 {d_in} 维的嵌入向量映射成 "
        "{d_out} 维的查询向量。现在它是随机的（torch.manual_seed({seed1})），训练时才会被学习；"
        "requires_grad=False 只是为了让输出简洁一些。"}},
      {"trainable/W_key",
       {"把输入投影为键：nn.Parameter(torch.{init}({d_in}, {d_out}), requires_grad=False)，"
        "随机种子 {seed1}",
        "W_k 把每个嵌入向量映射成键（key），也就是查询要与之比较的向量。它紧接着 W_query "
        "从同一个随机数生成器中抽取。"}},
      {"trainable/W_value",
       {"把输入投影为值：nn.Parameter(torch.{init}({d_in}, {d_out}), requires_grad=False)，"
        "随机种子 {seed1}",
        "W_v 把每个嵌入向量映射成值（value），也就是真正被加权混入上下文向量的内容。用三个"
        "独立的矩阵，模型就能分别学习“匹配”（查询与键）和“内容”（值）两种角色。"}},
      {"trainable/query_2",
       {"x_2 @ W_query",
        "{xq} 的查询向量：q({query}) = x({query}) W_q。({d_in},) 的向量乘以 ({d_in}, {d_out}) "
        "的矩阵，得到 ({d_out},)。"}},
      {"trainable/key_2",
       {"x_2 @ W_key", "它的键向量 k({query}) = x({query}) W_k，形状为 ({d_out},)。"}},
      {"trainable/value_2",
       {"x_2 @ W_value", "它的值向量 v({query}) = x({query}) W_v，形状为 ({d_out},)。"}},
      {"trainable/keys",
       {"inputs @ W_key：每个词元一个键",
        "查询要和每个词元比较，所以每个词元都需要一个键：({T}, {d_in}) @ ({d_in}, {d_out}) "
        "得到 ({T}, {d_out})，每行一个键。"}},
      {"trainable/values",
       {"inputs @ W_value：每个词元一个值", "同样，每个词元一个值向量，形状为 ({T}, {d_out})。"}},
      {"trainable/attn_score_22",
       {"query_2 · keys[{q}]：{xq} 对自身的注意力分数",
        "一个未归一化的注意力分数：ω{query}{query} = q({query}) · k({query})。现在查询比较的"
        "是投影后的键，而不是 3.3 节中的原始嵌入向量。"}},
      {"trainable/attn_scores_2",
       {"query_2 @ keys.T：与所有键的注意力分数",
        "一次算出所有的 ω{query}i = q({query}) · k(i)：({d_out},) @ ({d_out}, {T}) 得到 "
        "({T},)。"}},
      {"trainable/attn_weights_2",
       {"softmax(attn_scores_2 / sqrt(d_k))，d_k = {d_k}",
        "缩放点积注意力：α{query}i = softmax(ω{query}i / sqrt(d_k))，其中 d_k = {d_k} 是键向量"
        "的维度。除以 sqrt(d_k) = {sqrt_d_k} 能避免分数随 d_k 增大而变大，防止 softmax 饱和成"
        "近似 one-hot、梯度极小的向量。"}},
      {"trainable/context_vec_2",
       {"attn_weights_2 @ values",
        "z({query}) = Σ α{query}i v(i)：现在加权求和的对象是值向量，而不是输入。({T},) @ "
        "({T}, {d_out}) 得到 ({d_out},)：上下文向量的维度是 d_out = {d_out}。"}},
  };
}

// 3.4.2: SelfAttention_v1 and v2 as classes; exercise 3.1.
std::map<std::string, StepText> class_texts_zh() {
  return {
      {"trainable/sa_v1_output",
       {"SelfAttention_v1({d_in}, {d_out})(inputs)，随机种子 {seed1}：第 {query} 行就是 "
        "context_vec_2",
        "SelfAttention_v1 把上面的步骤封装成一个 nn.Module，一次处理所有词元："
        "softmax(Q Kᵀ / sqrt(d_k)) V，其中 Q = inputs @ W_query，K、V 同理。随机种子相同、"
        "权重相同，所以 ({T}, {d_out}) 输出的第 {query} 行就是 context_vec_2。"}},
      {"trainable/sa_v2.W_query.weight",
       {"SelfAttention_v2（随机种子 {seed2}）：nn.Linear 的 W_query.weight，按 (d_out, d_in) 存储",
        "SelfAttention_v2 用 nn.Linear 层代替裸参数：初始化更好（在 ±1/sqrt(d_in) 范围内均匀"
        "分布），还可以选择加偏置。nn.Linear 把权重转置存储，形状为 ({d_out}, {d_in})，"
        "计算的是 x @ weight.T。"}},
      {"trainable/sa_v2.W_query.bias",
       {"SelfAttention_v2（随机种子 {seed2}）：nn.Linear 的 W_query.bias",
        "qkv_bias=True 时，每个 nn.Linear 还要加上偏置：queries = x @ weight.T + bias。"
        "形状为 ({d_out},)，紧接着它的权重抽取。"}},
      {"trainable/sa_v2.W_key.weight",
       {"SelfAttention_v2（随机种子 {seed2}）：nn.Linear 的 W_key.weight，按 (d_out, d_in) 存储",
        "键的投影，在 W_query 之后从同一个生成器中抽取，形状为 ({d_out}, {d_in})。"}},
      {"trainable/sa_v2.W_key.bias",
       {"SelfAttention_v2（随机种子 {seed2}）：nn.Linear 的 W_key.bias",
        "键的偏置，形状为 ({d_out},)。"}},
      {"trainable/sa_v2.W_value.weight",
       {"SelfAttention_v2（随机种子 {seed2}）：nn.Linear 的 W_value.weight，按 (d_out, d_in) 存储",
        "值的投影，形状为 ({d_out}, {d_in})。"}},
      {"trainable/sa_v2.W_value.bias",
       {"SelfAttention_v2（随机种子 {seed2}）：nn.Linear 的 W_value.bias",
        "值的偏置，形状为 ({d_out},)。"}},
      {"trainable/sa_v2_output",
       {"SelfAttention_v2({d_in}, {d_out}{bias_arg})(inputs)",
        "计算过程与 SelfAttention_v1 相同，形状也是 ({T}, {d_out})，但数值不同：权重来自另一个"
        "随机种子（{seed2}）和另一种初始化方式。下面的练习 3.1 会说明，两者共享权重后输出完全"
        "一致。"}},
      {"trainable/exercise_3_1_sa_v1_output",
       {"练习 3.1：使用 v2 权重的 SelfAttention_v1（拷入 W_*.weight.T）",
        "练习 3.1：在 torch.manual_seed({seed1}) 之后分别创建两个类的实例，然后令 "
        "sa_v1.W_query = nn.Parameter(sa_v2.W_query.weight.T)，W_key 和 W_value 照此处理。"
        "之所以要 .T，是因为 nn.Linear 按 (d_out, d_in) 存储权重，而 v1 乘的是 (d_in, d_out) "
        "的矩阵。"}},
      {"trainable/exercise_3_1_sa_v2_output",
       {"练习 3.1：SelfAttention_v2({d_in}, {d_out})(inputs)，随机种子 {seed1}",
        "答案：SelfAttention_v2 的输出与上面的 v1 完全相同。两者计算的都是 inputs @ W，"
        "一个用 Parameter，一个在 nn.Linear 内部；两个类的区别只在于权重的存储方式和初始化方式。"}},
  };
}

}  // namespace

LangTable trainable_zh() {
  LangTable t;
  t.code = "zh";
  t.steps = step_by_step_texts_zh();
  t.steps.merge(class_texts_zh());
  t.ui = {
      {"stage.trainable", "W_query、W_key、W_value；缩放点积注意力；SelfAttention_v1 与 v2；练习 3.1"},
  };
  return t;
}

}  // namespace attn
