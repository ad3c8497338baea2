#include "check/diagnoses.h"

namespace attn {

namespace {

// Each mistake as the slips that write it; one function per mistake, in the chapter's words.

// The chapter's code with one slip made.
template <typename F>
Slips slip(F make) {
  Slips s;
  make(s);
  return s;
}

// W_query and W_key swapped (queries = x @ W_key), the scores as keys @ queries.T, or in
// exercise 3.1 sa_v1.W_query = nn.Parameter(sa_v2.W_key.weight.T).
std::vector<Slips> query_key_swapped() {
  return {slip([](Slips& s) { s.query_key_swapped = true; }),
          slip([](Slips& s) { s.scores_transposed = true; }),
          slip([](Slips& s) { s.ex31_query_key_swapped = true; })};
}

// torch.softmax(attn_scores, dim=-1): no division by keys.shape[-1] ** 0.5.
std::vector<Slips> scale_missing() {
  return {slip([](Slips& s) { s.divisor = Choices::Divisor::None; })};
}

// attn_scores / keys.shape[-1]: by d_k instead of its square root.
std::vector<Slips> scale_by_d_k() {
  return {slip([](Slips& s) { s.divisor = Choices::Divisor::Dk; })};
}

// torch.softmax(..., dim=0) (or dim=-2): each column sums to 1 instead of each row.
std::vector<Slips> softmax_wrong_dim() {
  return {slip([](Slips& s) { s.softmax_over_queries = true; })};
}

// mask_simple / mask_simple.sum(...) or attn_weights / attn_weights.sum(...) where
// masked_simple belongs.
std::vector<Slips> normalized_wrong_tensor() {
  return {slip([](Slips& s) { s.renormalized = Slips::Renormalized::MaskSimple; }),
          slip([](Slips& s) { s.renormalized = Slips::Renormalized::AttnWeights; })};
}

// row_sums = masked_simple.sum(dim=-1) without keepdim=True: the division broadcasts
// along the rows and divides column j by the sum of row j.
std::vector<Slips> keepdim_missing() {
  return {slip([](Slips& s) { s.keepdim = false; })};
}

// torch.triu where torch.tril belongs (and the other way round), or the diagonal hidden
// too (tril(..., diagonal=-1), triu(..., diagonal=0)).
std::vector<Slips> mask_wrong_triangle() {
  return {slip([](Slips& s) { s.triangle = Choices::Triangle::Past; }),
          slip([](Slips& s) { s.triangle = Choices::Triangle::FutureAndDiagonal; })};
}

// attn_scores.masked_fill(...) (no underscore) whose result is not assigned: no mask at all.
std::vector<Slips> masked_fill_result_discarded() {
  return {slip([](Slips& s) { s.masked_fill_kept = false; })};
}

// attn_scores kept for the dump (self.attn_scores = attn_scores) before masked_fill_, which
// then wrote the -inf mask into the very tensor kept.
std::vector<Slips> attn_scores_changed_in_place() {
  return {slip([](Slips& s) { s.scores_kept_before_mask = false; })};
}

// Dropout by hand, kept values times 1/p instead of 1/(1-p).
std::vector<Slips> dropout_scaled_by_p() {
  return {slip([](Slips& s) { s.dropout_scaled_by_p = true; })};
}

// keys.view(b, num_heads, num_tokens, head_dim) instead of view(b, num_tokens, num_heads,
// head_dim).transpose(1, 2).
std::vector<Slips> view_instead_of_transpose() {
  return {slip([](Slips& s) { s.heads_by_transpose = false; })};
}

// (attn_weights @ values) merged without .transpose(1, 2): heads and tokens interleave.
std::vector<Slips> context_not_transposed() {
  return {slip([](Slips& s) { s.context_transposed = false; })};
}

// context_vec.contiguous().view(b, num_tokens, d_out) on a line of its own: the result is dropped.
std::vector<Slips> view_result_discarded() {
  return {slip([](Slips& s) { s.merge_kept = false; })};
}

// return context_vec without self.out_proj(...).
std::vector<Slips> out_proj_missing() {
  return {slip([](Slips& s) { s.out_proj_applied = false; })};
}

// Exercise 3.1: nn.Parameter(sa_v2.W_query.weight) without .T.
std::vector<Slips> weights_not_transposed() {
  return {slip([](Slips& s) { s.ex31_transposed = false; })};
}

// second_head = a[0, 0, :, :]: the first head twice.
std::vector<Slips> same_head_twice() {
  return {slip([](Slips& s) { s.second_head = 0; })};
}

// A module built without torch.manual_seed(...) before it: one variant per module.
std::vector<Slips> seed_not_reset() {
  std::vector<Slips> out;
  for (const char* module : {"sa_v1", "sa_v2", "exercise_3_1_v2", "dropout_attn_weights",
                             "causal_attention", "wrapper", "mha", "exercise_3_2"})
    out.push_back(slip([&](Slips& s) { s.no_reseed_before = module; }));
  return out;
}

}  // namespace

const std::vector<Mistake>& known_mistakes() {
  static const std::vector<Mistake> mistakes = {
      {"query_key_swapped", query_key_swapped()},
      {"scale_missing", scale_missing()},
      {"scale_by_d_k", scale_by_d_k()},
      {"softmax_wrong_dim", softmax_wrong_dim()},
      {"normalized_wrong_tensor", normalized_wrong_tensor()},
      {"keepdim_missing", keepdim_missing()},
      {"mask_wrong_triangle", mask_wrong_triangle()},
      {"masked_fill_result_discarded", masked_fill_result_discarded()},
      {"attn_scores_changed_in_place", attn_scores_changed_in_place()},
      {"dropout_scaled_by_p", dropout_scaled_by_p()},
      {"view_instead_of_transpose", view_instead_of_transpose()},
      {"context_not_transposed", context_not_transposed()},
      {"view_result_discarded", view_result_discarded()},
      {"out_proj_missing", out_proj_missing()},
      {"weights_not_transposed", weights_not_transposed()},
      {"same_head_twice", same_head_twice()},
      {"seed_not_reset", seed_not_reset()},
  };
  return mistakes;
}

std::vector<std::string> diagnose(const std::string& stage, const Config& cfg, const std::string& step,
                                  const Tensor& got, const Tolerance& tol) {
  std::vector<std::string> ids;
  for (const auto& mistake : known_mistakes())
    for (const auto& slips : mistake.variants) {
      const LearnerSteps steps = learner_stage(stage, cfg, slips);
      const auto it = steps.find(step);
      // Only a variant that changes this step can name it: the learner's tensor differs.
      if (it == steps.end() || compare(got, it->second, tol).grade == Grade::Differs) continue;
      ids.push_back(mistake.id);
      break;
    }
  return ids;
}

}  // namespace attn
