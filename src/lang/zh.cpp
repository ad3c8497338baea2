// 简体中文：学习者读到的全部文字。键与占位符见 lang.h；缺少的键会回退到英文（en.cpp）。
// 术语：词元(token)、嵌入向量、查询(query)、键(key)、值(value)、注意力分数、注意力权重、
// 上下文向量、缩放点积注意力、因果掩码、多头注意力、丢弃(dropout)、批次(batch)。
// 公式、张量名和代码保持与本章代码一致。
#include "lang/lang.h"
#include "lang/parts.h"

namespace attn {

// The chapter's texts; lang_zh() adds the parts of the features beyond it (parts.cpp).
static LangTable chapter_zh() {
  return LangTable{
      "zh",
      "简体中文",
      {
          // ---- dot-product：3.3.1–3.3.2 节，不含可训练权重的注意力 ----
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

          // ---- softmax：3.3.1 节，分数的归一化 ----
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

          // ---- trainable：3.4 节，缩放点积注意力 ----
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

          // ---- causal：3.5.1 节，遮住未来的词元 ----
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

          // ---- dropout：3.5.2–3.5.3 节 ----
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

          // ---- multi-head：3.6 节，多头注意力 ----
          {"multi-head/batch",
           {"torch.stack((inputs,) * {batch})：由 {batch} 份副本组成的批次",
            "3.5.3 节的批次，形状为 ({batch}, {T}, {d_in})。"}},
          {"multi-head/wrapper_context_vecs",
           {"MultiHeadAttentionWrapper({d_in}, {d_out}, {T}, {attn_p}, num_heads={heads}{bias_arg})"
            "(batch)，随机种子 {seed1}：{heads} 个头 × d_out {d_out}",
            "先用最简单的方式实现多头注意力：{heads} 个相互独立的 CausalAttention 头，各有各的权重，"
            "作用在同一个输入上；torch.cat(..., dim=-1) 把它们的输出并排拼接。形状为 "
            "({batch}, {T}, {heads} × {d_out} = {wrapper_width})。"}},
          {"multi-head/a",
           {"形状为 (b=1, num_heads=2, num_tokens=3, head_dim=4) 的张量",
            "本章用来演示批量矩阵乘法的小例子：1 个批次样本、2 个头、3 个词元，每个头的每个词元"
            "有 4 个数。"}},
          {"multi-head/a_at_a_T",
           {"a @ a.transpose(2, 3)：每个头各做一次矩阵乘法",
            "对 4 维张量，@ 只对最后两维做矩阵乘法，前面的维度（批次、头）都当作批次处理。"
            "a.transpose(2, 3) 交换 num_tokens 和 head_dim，于是每个头各自做一次 (3, 4) @ (4, 3) "
            "的乘法：形状为 (1, 2, 3, 3)。"}},
          {"multi-head/first_res",
           {"first_head @ first_head.T，与上面的第一块相同",
            "单独取出第一个头 a[0, 0, :, :]，形状为 (3, 4)：得到的 (3, 3) 矩阵与 a_at_a_T 的"
            "第一块相同。"}},
          {"multi-head/second_res",
           {"second_head @ second_head.T，与第二块相同",
            "再看第二个头 a[0, 1, :, :]：与第二块相同。MultiHeadAttention 正是靠这一点，用一次"
            "乘法算出所有的头。"}},
          {"multi-head/keys",
           {"MultiHeadAttention({d_in}, {d_out}, {T}, {attn_p}, num_heads={heads}{bias_arg}) 的 "
            "W_key(x)，随机种子 {seed1}",
            "MultiHeadAttention 只用一组投影就完成所有头的工作：W_query、W_key、W_value 各是一个 "
            "nn.Linear({d_in}, {d_out})。这是整个批次的键，形状为 ({batch}, {T}, {d_out})。"}},
          {"multi-head/queries", {"W_query(x)", "查询，形状为 ({batch}, {T}, {d_out})。"}},
          {"multi-head/values", {"W_value(x)", "值，形状为 ({batch}, {T}, {d_out})。"}},
          {"multi-head/keys_viewed",
           {"keys.view(b, num_tokens, {heads}, {head_dim})：把 d_out 拆成 {heads} 个 {head_dim} "
            "维的头",
            "view 把最后一维 d_out = {d_out} 看作 num_heads × head_dim = {heads} × {head_dim}，"
            "不移动任何数据：({batch}, {T}, {d_out}) 变为 ({batch}, {T}, {heads}, {head_dim})。"
            "每个头分到其中的 {head_dim} 个数。"}},
          {"multi-head/queries_viewed",
           {"queries.view(b, num_tokens, {heads}, {head_dim})：把 d_out 拆成 {heads} 个 "
            "{head_dim} 维的头",
            "查询也照此拆分：({batch}, {T}, {heads}, {head_dim})。"}},
          {"multi-head/values_viewed",
           {"values.view(b, num_tokens, {heads}, {head_dim})：把 d_out 拆成 {heads} 个 "
            "{head_dim} 维的头",
            "值也一样：({batch}, {T}, {heads}, {head_dim})。"}},
          {"multi-head/keys_transposed",
           {"keys.transpose(1, 2)：头成为批次维度 (b, num_heads, num_tokens, head_dim)",
            "transpose(1, 2) 交换 num_tokens 和 num_heads：({batch}, {T}, {heads}, {head_dim}) "
            "变为 ({batch}, {heads}, {T}, {head_dim})。现在最后两维是单个头的（词元，特征），"
            "@ 就能像 a_at_a_T 那样同时处理所有的头。"}},
          {"multi-head/queries_transposed",
           {"queries.transpose(1, 2)：头成为批次维度 (b, num_heads, num_tokens, head_dim)",
            "查询也一样：({batch}, {heads}, {T}, {head_dim})。"}},
          {"multi-head/values_transposed",
           {"values.transpose(1, 2)：头成为批次维度 (b, num_heads, num_tokens, head_dim)",
            "值也一样：({batch}, {heads}, {T}, {head_dim})。"}},
          {"multi-head/attn_scores",
           {"queries @ keys.transpose(2, 3)：每个头的注意力分数",
            "每个头的 ({T}, {head_dim}) 查询乘以它的 ({head_dim}, {T}) 键：形状为 ({batch}, "
            "{heads}, {T}, {T})，批次中每个样本的每个头各有一个分数矩阵。"}},
          {"multi-head/attn_scores_masked",
           {"attn_scores.masked_fill_(mask_bool, -torch.inf)",
            "因果掩码原地（末尾的下划线表示原地操作）作用于每个头，而且是在 softmax 之前：未来"
            "位置变为 -inf。掩码缓冲区的形状是 (context_length, context_length)，输入较短时截取 "
            "[:num_tokens, :num_tokens]。"}},
          {"multi-head/attn_weights",
           {"softmax(attn_scores / sqrt(head_dim), dim=-1)",
            "对每个头做缩放 softmax。这里 d_k = head_dim = {head_dim}，所以分数除以 "
            "sqrt({head_dim}) = {sqrt_d_k}。每个头的每一行之和都为 1；形状为 ({batch}, {heads}, "
            "{T}, {T})。"}},
          {"multi-head/attn_weights#dropout",
           {"dropout(softmax(attn_scores / sqrt(head_dim)))",
            "对每个头做缩放 softmax（d_k = head_dim = {head_dim}，除以 sqrt({head_dim}) = "
            "{sqrt_d_k}），再做 p = {attn_p} 的 dropout：保留的权重乘以 1/(1-p)，所以每行之和"
            "不再是 1。形状为 ({batch}, {heads}, {T}, {T})。"}},
          {"multi-head/context_vec",
           {"(attn_weights @ values).transpose(1, 2)：回到 (b, num_tokens, num_heads, head_dim)",
            "每个头对自己的值向量加权求和，得到 ({batch}, {heads}, {T}, {head_dim})；"
            "transpose(1, 2) 再把头的维度移回词元之后：({batch}, {T}, {heads}, {head_dim})。"}},
          {"multi-head/context_vec_merged",
           {"context_vec.contiguous().view(b, num_tokens, d_out)：各头并排",
            "transpose 之后，数据在内存中不再按行连续存放，而 view 要求连续存放，所以要先调用 "
            ".contiguous()（复制一份）。然后 view 把各头合并：({batch}, {T}, {heads}, {head_dim}) "
            "变为 ({batch}, {T}, {d_out})，各头的输出并排放在一起，效果和包装类中的 torch.cat "
            "一样。"}},
          {"multi-head/out_proj.weight",
           {"out_proj：nn.Linear(d_out, d_out)，总是带偏置",
            "最后一个线性层把各头的输出混合起来，这是包装类做不到的。它的权重形状为 "
            "({d_out}, {d_out})，在 W_query、W_key、W_value 之后抽取。"}},
          {"multi-head/out_proj.bias",
           {"out_proj.bias",
            "它的偏置，形状为 ({d_out},)：无论 qkv_bias 取什么值，out_proj 都保留 nn.Linear "
            "默认的 bias=True。"}},
          {"multi-head/mha_context_vecs",
           {"out_proj(context_vec_merged)：模块的输出",
            "MultiHeadAttention 的上下文向量，形状为 ({batch}, {T}, {d_out})。在包装类中，每个头"
            "输出 d_out = {d_out} 个数，合计 {wrapper_width} 个；这里的 d_out 则是总维度，"
            "被拆分成 {heads} 个 {head_dim} 维的头。"}},
          {"multi-head/exercise_3_2_context_vecs",
           {"练习 3.2：MultiHeadAttentionWrapper({d_in}, 1, {T}, {attn_p}, num_heads=2{bias_arg})"
            "(batch)，随机种子 {seed1}",
            "练习 3.2：要用 2 个头得到 2 维的上下文向量，只需让每个头的 d_out = 1；torch.cat 把"
            "两个 1 维的输出拼接起来。形状为 ({batch}, {T}, 2)。"}},
          {"multi-head/exercise_3_3_num_params",
           {"练习 3.3：GPT-2 规模的 MultiHeadAttention({ex_d}, {ex_d}, {ex_context}, 0.0, "
            "num_heads={ex_heads}) 的参数量",
            "练习 3.3：最小的 GPT-2 模型使用 {ex_d} 维的嵌入向量、{ex_heads} 个头，上下文长度为 "
            "{ex_context} 个词元。sum(p.numel() for p in mha.parameters()) 得到 {ex_total}："
            "四个 {ex_d} × {ex_d} 的矩阵，加上 out_proj 的偏置。上下文长度只决定掩码的大小，"
            "而掩码是缓冲区（buffer），不是参数。"}},
      },
      {
          {"softmax_sums_to_1", "softmax 权重之和为 1"},
          {"softmax_rows_sum_to_1", "softmax 权重每一行之和都为 1"},
          {"rows_sum_to_1", "每一行之和重新为 1"},
          {"res_equals_attn_scores_2_0", "res 等于 attn_scores_2[0]"},
          {"all_context_vecs_equal_loop", "all_context_vecs 的每一行都等于循环版本 Σ_j αij x(j)"},
          {"softmax_naive_equals_torch_softmax", "softmax_naive 与 torch.softmax 的结果相同"},
          {"softmax_stays_finite", "torch.softmax(big_scores_2) 全是有限值，且总和为 1"},
          {"attn_score_22_in_attn_scores_2", "attn_scores_2[{q}] 等于 attn_score_22"},
          {"sa_v1_row_equals_context_vec_2",
           "sa_v1_output 的第 {query} 行等于 context_vec_2：随机种子同为 {seed1}，权重相同"},
          {"exercise_3_1_outputs_equal", "练习 3.1：SelfAttention_v1 与 SelfAttention_v2 的输出相同"},
          {"causal_no_future_weight", "对角线以上的权重全为 0：不会关注未来的词元"},
          {"masked_simple_norm_equals_inf_method", "masked_simple_norm 与 -inf 方法的结果相同"},
          {"dropout_kept_scaled", "每个元素要么是 0，要么是 1/(1-p) = {scale}"},
          {"dropout_rows_no_longer_sum_to_1",
           "dropout 之后，每行之和不再是 1，符合预期：第 {far_row} 行的和为 {far_sum}"},
          {"dropout_p0_rows_still_sum_to_1", "p = 0 时，每行之和仍然是 1"},
          {"wrapper_first_head_equals_causal_attention",
           "包装类的第一个头等于 CausalAttention 的输出：随机种子同为 {seed1}，权重相同"},
          {"head_products_equal_batched", "first_res 和 second_res 等于 a_at_a_T 中对应的块"},
          {"exercise_3_3_count_by_hand",
           "练习 3.3：参数量等于手算的 3 × {ex_d}² + ({ex_d}² + {ex_d})"},
      },
      {
          {"section", "第 {chapter} 章 {section} 节"},
          {"input", "输入"},
          {"note", "注"},
          {"max_diff", "最大差值"},
          // Heatmap and HTML page words (src/render/heatmap_*.cpp, html.cpp).
          {"heatmap.title", "{} 的热力图：行是查询 (i)，列是键 (j)"},
          {"heatmap.scale", "色标"},
          {"heatmap.zero", "恰好为 0"},
          {"heatmap.masked", "-inf（已遮蔽）"},
          {"heatmap.invalid", "nan 或 +inf"},
          {"heatmap.batch", "批次 {}"},
          {"heatmap.batch_head", "批次 {}，头 {}"},
          {"heatmap.sampled", "{} 个词元：从第一个到最后一个词元，均匀地选出 {} 行和 {} 列来画；每个格子都是真实的元素"},
          {"heatmap.repeated_one", "批次 {} 与批次 0 完全相同：批次由相同输入的副本堆叠而成，所以只画一次"},
          {"heatmap.repeated_many", "批次 {} 与批次 0 完全相同：批次由相同输入的副本堆叠而成，所以只画一次"},
          {"heatmap.left_out", "另有 {} 个矩阵块未画出"},
          {"heatmap.colon", "："},
          {"heatmap.rows", "行：查询 (i)"},
          {"heatmap.cols", "列：键 (j)"},
          {"page.contents", "目录"},
          {"page.steps", "{} 个步骤"},
          {"page.all_stages", "全部阶段"},
          {"page.settings", "设置"},
          {"page.generated", "由 attn-walk {} 生成。张量按 PyTorch 的打印格式显示。"},
          {"page.chapter", "《从零构建大语言模型》第 3 章"},
          {"step_prompt", "-- 回车：下一步，q：退出 -- "},
          {"stage.dot-product", "用点积计算注意力分数、softmax 权重和上下文向量"},
          {"stage.softmax", "分数的归一化：除以总和、朴素的 exp，以及数值稳定的 softmax"},
          {"stage.trainable", "W_query、W_key、W_value；缩放点积注意力；SelfAttention_v1 与 v2；练习 3.1"},
          {"stage.causal", "遮住未来的词元：tril 方法与 -inf 方法"},
          {"stage.dropout", "对注意力权重做 dropout；CausalAttention 类"},
          {"stage.multi-head",
           "MultiHeadAttentionWrapper 与 MultiHeadAttention 的每个中间结果；练习 3.2 和 3.3"},
          {"note.dropout_kernel.default",
           "dropout 掩码：采用 PyTorch 默认的 CPU 实现，与书中打印的结果一致（macOS、ARM、AMD，"
           "PyTorch 2.7+）"},
          {"note.dropout_kernel.mkl",
           "dropout 掩码：采用 MKL 实现（Intel x86 上 PyTorch 1.13–2.6 的 pip/conda 版本），"
           "因此与书中的结果不同"},
          {"word.total", "合计"},
      },
  };
}

const LangTable& lang_zh() {
  static const LangTable t = with_parts(chapter_zh());
  return t;
}

}  // namespace attn
