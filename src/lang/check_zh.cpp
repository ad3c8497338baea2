// attn-walk check 的中文文本（src/check/、src/render/check_*.cpp）。
#include "lang/check_texts.h"

namespace attn {

LangTable check_zh() {
  LangTable t;
  t.code = "zh";
  t.ui = {
      {"check.heading", "attn-walk check：阶段 {stage}（第 {section} 节），"},
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
