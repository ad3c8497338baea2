// attn-walk check 的中文文本（src/check/、src/render/check_*.cpp）。
#include "lang/check_texts.h"

namespace attn {

LangTable check_zh() {
  LangTable t;
  t.code = "zh";
  t.ui = {
      {"check.heading", "attn-walk check：阶段 {stage}（第 {section} 节），{chosen_by}"},
      {"check.chosen_by.option", "由 --stage 指定。"},
      {"check.chosen_by.dump", "即所给 attn-walk 输出的阶段。"},
      {"check.chosen_by.names", "因为所给的 {given} 个名字中有 {matched} 个是它的步骤（可用 --stage 另选）。"},
      {"check.tolerance", "“接近”指处处 |你的值 - 期望值| <= {atol} + {rtol} * |期望值|（--atol、--rtol）。"},
      {"check.equal", "相同"},
      {"check.close", "接近"},
      {"check.differs", "不同"},
      {"check.not_given", "未提供"},
      {"check.max_diff", "最大差 {diff}，位于 {index}"},
      {"check.shape", "形状 {given}，应为 {expected}"},
      {"check.passed", "所给的 {n} 个张量都与本章一致：相同或接近。"},
      {"check.first", "第一处不同：{step}"},
      {"check.first_shape", "你的张量形状是 {given}，本章的是 {expected}。"},
      {"check.first_at", "最大差 {diff}，位于 {index}：期望 {expected}，你的是 {got}。"},
      {"check.expected_rows", "期望值（本章，与 PyTorch 的计算相同）："},
      {"check.your_rows", "你的值（* 标出不接近的值）："},
      {"check.diagnoses", "诊断："},
      {"check.no_diagnosis",
       "已知的错误都不能复现你的 {step}。请对照上面的行检查本章 {step} 的代码；"
       "attn-walk --stage {stage} --only {step} --explain 会逐步讲解。"},
      {"check.no_diagnosis_shape",
       "已知的错误都不能复现你的 {step}。请对照本章 {step} 的代码检查它的形状；"
       "attn-walk --stage {stage} --only {step} --explain 会逐步讲解。"},
      {"check.own.rows_sum_to_1", "你的 {step} 本身：每行之和为 1，与本章相同（|行和 - 1| 最大为 {diff}）"},
      {"check.own.zero_above_diagonal",
       "你的 {step} 本身：对角线以上为 0，后面的词元没有权重，与本章相同（那里的 |值| 最大为 {diff}）"},
      {"check.same_numbers",
       "{others} 也给出完全相同的数：你给的张量分不出是哪一个原因，请在代码里逐一检查。"},
      {"check.aside", "（{text}）"},  // words in brackets after a value
      {"check.size.tokens", "{size} 是词元个数"},
      {"check.size.d_in", "每个输入的宽度 d_in"},
      {"check.size.d_out_all_heads", "d_out，所有头合在一起；每个头的 keys 宽度是 head_dim = {d_k}"},
      {"check.size.heads", "头的个数"},
      {"check.size.precedence", "Python 把 attn_scores / keys.shape[-1]**1/2 读作 attn_scores / keys.shape[-1] / 2"},
      {"check.size.half", "keys.shape[-1]**1/2 是 keys.shape[-1] / 2，不是平方根"},
      {"check.size.negative_power", "keys.shape[-1]**-0.5 是 1/sqrt(d_k)：除以它等于乘"},
      {"check.mistake.picked_wrong_row",
       "你的 {step} 是 inputs[{row}]，即 x({x})“{token}”；本章的查询 x({chapter_x}) 是 inputs[{chapter_row}]"
       "（Python 从 0 开始计数），你给出的每个张量都与这个查询一致。"},
      {"check.mistake.input_typed_wrong",
       "你的 inputs 有 {count} 个值与书中不同；差得最多的是第 {row} 行（x({x})“{token}”）第 {column} 列："
       "你的是 {got}，书中是 {expected}（相差 {diff}）。你给出的每个张量都等于用你的 inputs 算出的结果。"},
      {"check.mistake.wrong_divisor",
       "你的 {step} 等于把分数除以 {value} = {expression}（即 {code}{what}）的结果（从你的权重测得：{measured}）。"
       "本章除以 sqrt(d_k) = sqrt({d_k}) = {chapter_value}：attn_scores / keys.shape[-1]**0.5。"},
      {"check.mistake.scaled_after_softmax",
       "你的 {step} 等于 torch.softmax(attn_scores, dim=-1) / {value}（{expression}，{code}{what}）：除法放在了 "
       "softmax 之后，所以每行之和是 {row_sum}，不是 1。请先除分数：torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)。"},
      {"check.mistake.sum_wrong_dim",
       "row_sums 对列求和（dim=0），而不是对行：请写 masked_simple.sum(dim=-1, keepdim=True)，即每个查询自己的权重。"},
      {"check.mistake.mask_filled_with_zero",
       "被遮住的分数填成了 0 而不是 -inf：exp(0) = 1 不是 0，softmax 之后后面的词元仍有权重。"
       "请写 attn_scores.masked_fill_(mask.bool(), -torch.inf)。"},
      {"check.mistake.mask_after_softmax",
       "你的 {step} 等于先对未遮盖的分数做 softmax、再把掩码填入权重（对权重做 masked_fill(mask.bool(), {fill})）"
       "的结果：各行之和不再是 1。请在 softmax 之前用 -torch.inf 遮盖分数。"},
      {"check.mistake.cat_wrong_dim",
       "各个头沿 dim={dim} 拼接了：torch.cat([head(x) for head in self.heads], dim=-1) 才是把它们并排放，"
       "形状 (b, num_tokens, num_heads * d_out)。"},
      {"check.mistake.wrong_seed",
       "你的张量等于 torch.manual_seed({used}) 的结果，而本章在这里用的种子是 {chapter}：本章在大多数模块之前用 123，"
       "在 SelfAttention_v2 之前用 789（--seed 会同时替换两者）。"},
      {"check.mistake.bias_left_on",
       "你的张量等于带 bias=True 的 nn.Linear（nn.Linear 的默认值）的结果：本章用 bias=qkv_bias（False）构建这些层。"
       "请传入 bias=qkv_bias，或者用 --qkv-bias 来检查，这样你给出的每个张量都会一致。"},
      {"check.mistake.query_key_swapped",
       "W_query 与 W_key 用反了：queries 应来自 W_query，keys 来自 W_key，注意力分数是 queries @ keys.T"
       "（类中是 keys.transpose(...)），不是 keys @ queries.T。练习 3.1 中应把 sa_v2.W_query.weight.T "
       "复制给 sa_v1.W_query，把 sa_v2.W_key.weight.T 复制给 sa_v1.W_key。"},
      {"check.mistake.scale_missing",
       "分数没有除以 sqrt(d_k)：应写 torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)。"},
      {"check.mistake.scale_by_d_k",
       "分数除以了 d_k 而不是它的平方根：应写 attn_scores / keys.shape[-1]**0.5，而不是 attn_scores / keys.shape[-1]。"},
      {"check.mistake.softmax_wrong_dim",
       "softmax 作用在了错误的维度上，于是每列而不是每行之和为 1：应使用 dim=-1（每个查询的一行权重），"
       "而不是 dim=0 或 dim=-2。"},
      {"check.mistake.normalized_wrong_tensor",
       "重新归一化的张量不对：应把 masked_simple（掩码后的权重）除以它自己的行和，"
       "row_sums = masked_simple.sum(dim=-1, keepdim=True)，而不是 mask_simple 或未掩码的 attn_weights。"},
      {"check.mistake.keepdim_missing",
       "row_sums 缺少 keepdim：应写 masked_simple.sum(dim=-1, keepdim=True)；形状为 (T,) 的向量会按列相除，而不是按行。"},
      {"check.mistake.mask_wrong_triangle",
       "掩码的三角取反了：保留用 torch.tril(torch.ones(T, T))，遮住用 torch.triu(torch.ones(T, T), diagonal=1)；"
       "对角线（词元看自己）应保持可见。"},
      {"check.mistake.masked_fill_result_discarded",
       "掩码没有作用到分数上：masked_fill 返回新张量，应赋值（attn_scores = attn_scores.masked_fill(...)）"
       "或使用原地版本 masked_fill_(...)。"},
      {"check.mistake.attn_scores_changed_in_place",
       "你的 attn_scores 已经带有 -inf 掩码：masked_fill_ 是原地修改，发生在你保存它之后。"
       "注意力本身没错；要导出掩码之前的分数，请保存 attn_scores.clone()。"},
      {"check.mistake.dropout_scaled_by_p",
       "保留的值乘了 1/p 而不是 1/(1-p)：p = {p} 时，dropout 保留 1-p 比例的值并乘以 1/(1-p)，使期望值不变。"},
      {"check.mistake.view_instead_of_transpose",
       "只用 view 拆分了头：应写 keys.view(b, num_tokens, num_heads, head_dim).transpose(1, 2)"
       "（queries 和 values 同理）；view(b, num_heads, num_tokens, head_dim) 会把词元和头混在一起。"},
      {"check.mistake.context_not_transposed",
       "合并各头之前没有转置回来：应先写 (attn_weights @ values).transpose(1, 2)，"
       "再 .contiguous().view(b, num_tokens, d_out)。"},
      {"check.mistake.view_result_discarded",
       "合并的结果被丢弃了：.contiguous().view(...) 返回新张量，应写 "
       "context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)。"},
      {"check.mistake.out_proj_missing",
       "缺少 out_proj：应返回 self.out_proj(context_vec)，而不是合并后的各头。"},
      {"check.mistake.weights_not_transposed",
       "练习 3.1：nn.Linear 的权重形状是 (d_out, d_in)，所以要复制它的转置："
       "sa_v1.W_query = nn.Parameter(sa_v2.W_query.weight.T)，W_key 和 W_value 同理。"},
      {"check.mistake.same_head_twice",
       "第一个头用了两次：应写 second_head = a[0, 1, :, :]，而不是 a[0, 0, :, :]。"},
      {"check.mistake.seed_not_reset",
       "{step} 来自一个之前没有调用 torch.manual_seed(...) 的模块（或 dropout 调用），于是它的权重"
       "（或 dropout 掩码）接着上一个模块的随机数流：在它之前用本章的种子调用 torch.manual_seed"
       "（{seed1}；SelfAttention_v2 之前是 {seed2}）。"},
  };
  return t;
}

}  // namespace attn
