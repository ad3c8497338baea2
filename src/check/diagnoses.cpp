#include "check/diagnoses.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "check/consistent.h"
#include "check/measured.h"
#include "check/training.h"

namespace attn {

namespace {

// Each mistake as the ways of writing it; one function per mistake, in the chapter's words.

// The chapter's code with one slip made, on the walk's configuration.
template <typename F>
Variant slip(const DiagnosisInput& in, F make) {
  Variant v{CellChoices{}, in.cfg, {}};
  make(v.choices);
  return v;
}

// W_query and W_key swapped (queries = x @ W_key), the scores as keys @ queries.T, or in
// exercise 3.1 sa_v1.W_query = nn.Parameter(sa_v2.W_key.weight.T).
std::vector<Variant> query_key_swapped(const DiagnosisInput& in) {
  return {slip(in, [](Slips& s) { s.query_key_swapped = true; }),
          slip(in, [](Slips& s) { s.scores_transposed = true; }),
          slip(in, [](Slips& s) { s.ex31_query_key_swapped = true; })};
}

// torch.softmax(attn_scores, dim=-1): no division by keys.shape[-1] ** 0.5.
std::vector<Variant> scale_missing(const DiagnosisInput& in) {
  return {slip(in, [](Slips& s) { s.divisor_power = 0.0; })};
}

// attn_scores / keys.shape[-1]: by d_k instead of its square root.
std::vector<Variant> scale_by_d_k(const DiagnosisInput& in) {
  return {slip(in, [](Slips& s) { s.divisor_power = 1.0; })};
}

// mask_simple / mask_simple.sum(...) or attn_weights / attn_weights.sum(...) where
// masked_simple belongs.
std::vector<Variant> normalized_wrong_tensor(const DiagnosisInput& in) {
  return {slip(in, [](Slips& s) { s.renormalized = Slips::Renormalized::MaskSimple; }),
          slip(in, [](Slips& s) { s.renormalized = Slips::Renormalized::AttnWeights; })};
}

// row_sums = masked_simple.sum(dim=-1) without keepdim=True: the division broadcasts
// along the rows and divides column j by the sum of row j.
std::vector<Variant> keepdim_missing(const DiagnosisInput& in) {
  return {slip(in, [](Slips& s) { s.keepdim = false; })};
}

// torch.triu where torch.tril belongs (and the other way round), or the diagonal hidden
// too (tril(..., diagonal=-1), triu(..., diagonal=0)).
std::vector<Variant> mask_wrong_triangle(const DiagnosisInput& in) {
  return {slip(in, [](Slips& s) { s.triangle = Choices::Triangle::Past; }),
          slip(in, [](Slips& s) { s.triangle = Choices::Triangle::FutureAndDiagonal; })};
}

// attn_scores.masked_fill(...) (no underscore) whose result is not assigned: no mask at all.
std::vector<Variant> masked_fill_result_discarded(const DiagnosisInput& in) {
  return {slip(in, [](Slips& s) { s.masked_fill_kept = false; })};
}

// attn_scores kept for the dump (self.attn_scores = attn_scores) before masked_fill_, which
// then wrote the -inf mask into the very tensor kept.
std::vector<Variant> attn_scores_changed_in_place(const DiagnosisInput& in) {
  return {slip(in, [](Slips& s) { s.scores_kept_before_mask = false; })};
}

// Dropout by hand, kept values times 1/p instead of 1/(1-p).
std::vector<Variant> dropout_scaled_by_p(const DiagnosisInput& in) {
  return {slip(in, [](Slips& s) { s.dropout_scaled_by_p = true; })};
}

// keys.view(b, num_heads, num_tokens, head_dim) instead of view(b, num_tokens, num_heads,
// head_dim).transpose(1, 2).
std::vector<Variant> view_instead_of_transpose(const DiagnosisInput& in) {
  return {slip(in, [](Slips& s) { s.heads_by_transpose = false; })};
}

// (attn_weights @ values) merged without .transpose(1, 2): heads and tokens interleave.
std::vector<Variant> context_not_transposed(const DiagnosisInput& in) {
  return {slip(in, [](Slips& s) { s.context_transposed = false; })};
}

// context_vec.contiguous().view(b, num_tokens, d_out) on a line of its own: the result is dropped.
std::vector<Variant> view_result_discarded(const DiagnosisInput& in) {
  return {slip(in, [](Slips& s) { s.merge_kept = false; })};
}

// return context_vec without self.out_proj(...).
std::vector<Variant> out_proj_missing(const DiagnosisInput& in) {
  return {slip(in, [](Slips& s) { s.out_proj_applied = false; })};
}

// Exercise 3.1: nn.Parameter(sa_v2.W_query.weight) without .T.
std::vector<Variant> weights_not_transposed(const DiagnosisInput& in) {
  return {slip(in, [](Slips& s) { s.ex31_transposed = false; })};
}

// second_head = a[0, 0, :, :]: the first head twice.
std::vector<Variant> same_head_twice(const DiagnosisInput& in) {
  return {slip(in, [](Slips& s) { s.second_head = 0; })};
}

// A module built without torch.manual_seed(...) before it: one variant per module.
std::vector<Variant> seed_not_reset(const DiagnosisInput& in) {
  std::vector<Variant> out;
  for (const char* module : {"sa_v1", "sa_v2", "exercise_3_1_v2", "dropout_attn_weights",
                             "causal_attention", "wrapper", "mha", "exercise_3_2"})
    out.push_back(slip(in, [&](Slips& s) { s.no_reseed_before = module; }));
  return out;
}

// torch.manual_seed with the chapter's other seed (123 where 789 belongs, or the other way),
// or the book's seeds where --seed gave others.
std::vector<Variant> wrong_seed(const DiagnosisInput& in) {
  std::vector<Variant> out;
  for (const uint64_t used : {in.cfg.seed1, in.cfg.seed2, uint64_t{123}, uint64_t{789}})
    for (const bool first : {true, false}) {
      const uint64_t chapter = first ? in.cfg.seed1 : in.cfg.seed2;
      if (used == chapter) continue;
      Variant v{CellChoices{}, in.cfg, {{"used", std::to_string(used)}, {"chapter", std::to_string(chapter)}}};
      (first ? v.config.seed1 : v.config.seed2) = used;
      out.push_back(v);
    }
  return out;
}

// nn.Linear(d_in, d_out) with its default bias=True, where the chapter passes bias=qkv_bias.
std::vector<Variant> bias_left_on(const DiagnosisInput& in) {
  if (in.cfg.qkv_bias) return {};
  Variant v{CellChoices{}, in.cfg, {}};
  v.config.qkv_bias = true;
  return {v};
}

// masked_fill_(mask.bool(), 0): the hidden scores become 0, not -inf.
std::vector<Variant> mask_filled_with_zero(const DiagnosisInput& in) {
  return {slip(in, [](Slips& s) { s.fill = 0.0f; })};
}

// The mask filled into the weights after the softmax (with 0 or -inf), not into the scores.
std::vector<Variant> mask_after_softmax(const DiagnosisInput& in) {
  std::vector<Variant> out;
  for (const float fill : {0.0f, -std::numeric_limits<float>::infinity()}) {
    Variant v = slip(in, [&](Slips& s) {
      s.mask_after_softmax = true;
      s.fill = fill;
    });
    v.vars["fill"] = fill == 0.0f ? "0" : "-torch.inf";
    out.push_back(v);
  }
  return out;
}

// row_sums = masked_simple.sum(dim=0, keepdim=True): the columns' sums, (1, T).
std::vector<Variant> sum_wrong_dim(const DiagnosisInput& in) {
  return {slip(in, [](Slips& s) { s.row_sums_dim = 0; })};
}

// torch.cat([head(x) for head in self.heads], dim=0 or dim=1).
std::vector<Variant> cat_wrong_dim(const DiagnosisInput& in) {
  std::vector<Variant> out;
  for (const int64_t dim : {0, 1}) {
    Variant v = slip(in, [&](Slips& s) { s.cat_dim = dim; });
    v.vars["dim"] = std::to_string(dim);
    out.push_back(v);
  }
  return out;
}

// The layers declared in another order than W_query, W_key, W_value: each draws, in the
// order of declaration, the values the chapter's layer in that place draws.
std::vector<Variant> layers_declared_out_of_order(const DiagnosisInput& in) {
  static const char* const names[] = {"W_query", "W_key", "W_value"};
  const int64_t d_in = in.cfg.d_in(), d_out = in.cfg.d_out;
  // One layer's draws: nn.Linear's weight (and bias); the cells' torch.rand(d_in, d_out).
  const int64_t draws = d_in * d_out + (in.cfg.qkv_bias && in.stage != "trainable" ? d_out : 0);
  std::array<int, 3> order = {0, 1, 2};
  std::vector<Variant> out;
  while (std::next_permutation(order.begin(), order.end())) {
    Variant v = slip(in, [&](Slips& s) { s.declared = order; });
    v.vars = {{"order", fmt::format("{}, {}, {}", names[order[0]], names[order[1]], names[order[2]])},
              {"first", names[order[0]]},
              {"draws", std::to_string(draws)}};
    out.push_back(v);
  }
  return out;
}

// attn_scores = queries.T @ keys: (d_k, d_k) where (T, T) belongs.
std::vector<Variant> queries_transposed_in_scores(const DiagnosisInput& in) {
  if (in.stage != "causal") return {};
  Variant v = slip(in, [](Slips& s) { s.queries_transposed = true; });
  const std::string d_k = std::to_string(in.cfg.d_out), T = std::to_string(in.cfg.num_tokens());
  v.vars = {{"got_shape", shape_str(in.got.shape)}, {"d_k", d_k}, {"T", T}};
  return {v};
}

// attn_weights.T @ values: each token's values shared out by a column of the weights.
std::vector<Variant> attn_weights_transposed(const DiagnosisInput& in) {
  Variant v = slip(in, [](Slips& s) { s.context_weights_transposed = true; });
  // Evidence: the row of the learner's tensor farthest from the chapter's (its token).
  if (in.got.shape == in.expected.shape && in.got.dim() >= 2) {
    const int64_t n = in.got.size(-1), T = in.got.size(-2);
    int64_t worst = 0;
    double worst_diff = -1.0;
    for (int64_t k = 0; k < in.got.numel(); ++k) {
      const double d = std::fabs(static_cast<double>(in.got.data[k]) - in.expected.data[k]);
      if (d > worst_diff) worst_diff = d, worst = (k / n) % T;
    }
    v.vars = {{"x", std::to_string(worst + 1)}, {"T", std::to_string(T)}};
  }
  return {v};
}

// torch.softmax(attn_scores, dim=0) of batched scores: over the batch (or, in
// MultiHeadAttention, dim=1: over the heads); also dim=-2, the queries.
std::vector<Variant> softmax_wrong_dim(const DiagnosisInput& in) {
  std::vector<Variant> out = {slip(in, [](Slips& s) { s.softmax_over_queries = true; })};
  out.back().vars = {{"dim", "-2"}, {"over", "check.over.queries"}};
  if (in.stage == "dropout" || in.stage == "multi-head")
    for (const int64_t dim : {0, 1}) {
      out.push_back(slip(in, [&](Slips& s) { s.softmax_dim = dim; }));
      out.back().vars = {{"dim", std::to_string(dim)},
                         {"over", dim == 0 ? "check.over.batch" : "check.over.heads"},
                         {"batch", std::to_string(in.cfg.batch)},
                         {"share", fmt::format("{:.4g}", 1.0 / static_cast<double>(in.cfg.batch))}};
    }
  return out;
}

// Dropout applied where it does not belong, with the chapter's draws: on the scores before
// or after the mask (then the softmax), or on the unmasked weights of section 3.5.1.
std::vector<Variant> dropout_misplaced(const DiagnosisInput& in) {
  if (in.stage != "dropout" && in.stage != "multi-head") return {};
  using At = Choices::DropoutAt;
  std::vector<Variant> out;
  for (const auto& place : {std::pair<At, const char*>{At::ScoresBeforeMask, "check.dropout_at.scores_before_mask"},
                             {At::ScoresAfterMask, "check.dropout_at.scores_after_mask"},
                             {At::UnmaskedWeights, "check.dropout_at.unmasked_weights"},
                             {At::BeforeRenormalising, "check.dropout_at.before_renormalising"}}) {
    const At at = place.first;  // (a lambda may not capture a structured binding in C++17)
    const char* where = place.second;
    // MultiHeadAttention masks its scores: only the scores are another place there.
    if (in.stage == "multi-head" && at != At::ScoresBeforeMask && at != At::ScoresAfterMask) continue;
    out.push_back(slip(in, [&](Slips& s) { s.dropout_at = at; }));
    out.back().vars["where"] = where;
  }
  // Evidence read off the learner's tensor: its nan values (a -inf score dropped is
  // -inf * 0 = nan) and its row sums (1 again when dropout came before the softmax or the
  // renormalisation).
  int64_t nans = 0;
  for (const float x : in.got.data) nans += std::isnan(x);
  double far = 0.0;
  const int64_t n = in.got.dim() == 0 ? 1 : in.got.size(-1);
  for (int64_t row = 0; n > 0 && row < in.got.numel() / n; ++row) {
    double sum = 0.0;
    bool nan = false;
    for (int64_t k = row * n; k < (row + 1) * n; ++k) nan |= std::isnan(in.got.data[k]), sum += in.got.data[k];
    if (!nan) far = std::max(far, std::fabs(sum - 1.0));
  }
  for (Variant& v : out) {
    v.vars["nans"] = std::to_string(nans);
    v.vars["row_sum_off"] = fmt::format("{:.3g}", far);
  }
  return out;
}

}  // namespace

const std::vector<Mistake>& known_mistakes() {
  static const std::vector<Mistake> mistakes = {
      {"picked_wrong_row", picked_wrong_row},
      {"input_typed_wrong", input_typed_wrong},
      {"input_inferred", input_inferred},
      {"query_key_swapped", query_key_swapped},
      {"scale_missing", scale_missing},
      {"scale_by_d_k", scale_by_d_k},
      {"wrong_divisor", wrong_divisor},
      {"scaled_after_softmax", scaled_after_softmax},
      {"softmax_wrong_dim", softmax_wrong_dim},
      {"normalized_wrong_tensor", normalized_wrong_tensor},
      {"keepdim_missing", keepdim_missing},
      {"sum_wrong_dim", sum_wrong_dim},
      {"mask_wrong_triangle", mask_wrong_triangle},
      {"masked_fill_result_discarded", masked_fill_result_discarded},
      {"mask_filled_with_zero", mask_filled_with_zero},
      {"mask_after_softmax", mask_after_softmax},
      {"attn_scores_changed_in_place", attn_scores_changed_in_place},
      {"dropout_scaled_by_p", dropout_scaled_by_p},
      {"cat_wrong_dim", cat_wrong_dim},
      {"view_instead_of_transpose", view_instead_of_transpose},
      {"context_not_transposed", context_not_transposed},
      {"view_result_discarded", view_result_discarded},
      {"out_proj_missing", out_proj_missing},
      {"weights_not_transposed", weights_not_transposed},
      {"same_head_twice", same_head_twice},
      {"seed_not_reset", seed_not_reset},
      {"wrong_seed", wrong_seed},
      {"bias_left_on", bias_left_on},
      {"layers_declared_out_of_order", layers_declared_out_of_order},
      {"queries_transposed_in_scores", queries_transposed_in_scores},
      {"attn_weights_transposed", attn_weights_transposed},
      {"dropout_misplaced", dropout_misplaced},
      {"grad_not_zeroed", grad_not_zeroed},
      {"softmax_before_cross_entropy", softmax_before_cross_entropy},
      {"targets_not_shifted", targets_not_shifted},
      {"adam_instead_of_adamw", adam_instead_of_adamw},
      {"loss_summed", loss_summed},
      {"optimizer_step_forgotten", optimizer_step_forgotten},
      {"dropout_off_in_training", dropout_off_in_training},
  };
  return mistakes;
}

std::vector<Diagnosis> diagnose(const DiagnosisInput& in) {
  std::vector<Diagnosis> found;
  for (const auto& mistake : known_mistakes())
    for (const Variant& v : mistake.variants(in)) {
      const LearnerSteps steps = learner_stage(in.stage, v.config, v.choices, v.loop);
      const auto it = steps.find(in.step);
      // Only a variant that changes this step can name it: the learner's tensor differs.
      if (it == steps.end() || compare(in.got, it->second, in.tol).grade == Grade::Differs) continue;
      if (!consistent(in, steps)) continue;
      found.push_back({mistake.id, v.vars});
      break;
    }
  // Causes that give the same numbers: the tensors given cannot tell them apart, and each
  // message says so, naming the others.
  if (found.size() > 1)
    for (Diagnosis& d : found) {
      std::string others;
      for (const Diagnosis& o : found)
        if (o.id != d.id) others += (others.empty() ? "" : ", ") + o.id;
      d.vars["same_numbers_as"] = others;
    }
  return found;
}

}  // namespace attn
