// Chinese labels of the chapter's checks (src/stages/, walk.add_check ids), shared by its stages.
#include "lang/chapter.h"

namespace attn {

LangTable chapter_checks_zh() {
  LangTable t;
  t.code = "zh";
  t.checks = {
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
  };
  return t;
}

}  // namespace attn
