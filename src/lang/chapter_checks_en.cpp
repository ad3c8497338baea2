// English labels of the chapter's checks (src/stages/, walk.add_check ids), shared by its stages.
#include "lang/chapter.h"

namespace attn {

LangTable chapter_checks_en() {
  LangTable t;
  t.code = "en";
  t.checks = {
      {"softmax_sums_to_1", "the softmax weights sum to 1"},
      {"softmax_rows_sum_to_1", "the softmax weights sum to 1 in every row"},
      {"rows_sum_to_1", "every row sums to 1 again"},
      {"res_equals_attn_scores_2_0", "res equals attn_scores_2[0]"},
      {"all_context_vecs_equal_loop",
       "every row of all_context_vecs equals the loop version Σ_j αij x(j)"},
      {"softmax_naive_equals_torch_softmax", "softmax_naive equals torch.softmax"},
      {"softmax_stays_finite", "torch.softmax(big_scores_2) is finite and sums to 1"},
      {"attn_score_22_in_attn_scores_2", "attn_scores_2[{q}] equals attn_score_22"},
      {"sa_v1_row_equals_context_vec_2",
       "row {query} of sa_v1_output equals context_vec_2: same seed {seed1}, same weights"},
      {"exercise_3_1_outputs_equal",
       "Exercise 3.1: SelfAttention_v1 and SelfAttention_v2 give the same output"},
      {"causal_no_future_weight", "every weight above the diagonal is 0: no attention to future tokens"},
      {"masked_simple_norm_equals_inf_method", "masked_simple_norm equals the -inf method"},
      {"dropout_kept_scaled", "every entry is 0 or 1/(1-p) = {scale}"},
      {"dropout_rows_no_longer_sum_to_1",
       "after dropout, the rows no longer sum to 1, as expected: row {far_row} sums to {far_sum}"},
      {"dropout_p0_rows_still_sum_to_1", "with p = 0, every row still sums to 1"},
      {"wrapper_first_head_equals_causal_attention",
       "the wrapper's first head equals CausalAttention's output: same seed {seed1}, same weights"},
      {"head_products_equal_batched", "first_res and second_res equal the blocks of a_at_a_T"},
      {"exercise_3_3_count_by_hand",
       "Exercise 3.3: the count equals 3 × {ex_d}² + ({ex_d}² + {ex_d}) worked by hand"},
  };
  return t;
}

}  // namespace attn
