#include "check/diagnoses.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <set>

#include "check/consistent.h"
#include "check/gpt_diagnoses.h"
#include "check/lines.h"
#include "check/measured.h"
#include "check/training.h"

namespace attn {

namespace {

// The mistakes whose ways of writing carry evidence, or depend on the walk: one function each.

// A module built without torch.manual_seed(...) before it: one variant per module.
std::vector<Variant> seed_not_reset(const DiagnosisInput& in) {
  std::vector<Variant> out;
  for (const char* module : {"sa_v1", "sa_v2", "exercise_3_1_v2", "dropout_attn_weights",
                             "causal_attention", "wrapper", "mha", "exercise_3_2"}) {
    out.push_back({{}, in.cfg, {}});
    lines::seed_not_reset(out.back().cells, module, in.cfg);
  }
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
      Variant v{{}, in.cfg, {{"used", std::to_string(used)}, {"chapter", std::to_string(chapter)}}};
      (first ? v.config.seed1 : v.config.seed2) = used;
      out.push_back(v);
    }
  return out;
}

// nn.Linear(d_in, d_out) with its default bias=True, where the chapter passes bias=qkv_bias.
// The class's line, so exercise 3.1's SelfAttention_v2 (built without qkv_bias) has it too,
// even where --qkv-bias gives sa_v2 its bias.
std::vector<Variant> bias_left_on(const DiagnosisInput& in) {
  Variant v{{}, in.cfg, {}};
  lines::bias_kept(v.cells);
  return {v};
}

// The mask filled into the weights after the softmax (with 0 or -inf), not into the scores.
std::vector<Variant> mask_after_softmax(const DiagnosisInput& in) {
  std::vector<Variant> out;
  for (const float fill : {0.0f, -std::numeric_limits<float>::infinity()}) {
    out.push_back({{}, in.cfg, {{"fill", fill == 0.0f ? "0" : "-torch.inf"}}});
    lines::masked_after_softmax(out.back().cells, fill);
  }
  return out;
}

// torch.cat([head(x) for head in self.heads], dim=0 or dim=1).
std::vector<Variant> cat_wrong_dim(const DiagnosisInput& in) {
  std::vector<Variant> out;
  for (const int64_t dim : {0, 1}) {
    out.push_back({{}, in.cfg, {{"dim", std::to_string(dim)}}});
    lines::cat_along(out.back().cells, dim);
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
    // clang-format off
    out.push_back({{}, in.cfg,
                   {{"order", fmt::format("{}, {}, {}", names[order[0]], names[order[1]], names[order[2]])},
                    {"first", names[order[0]]},
                    {"draws", std::to_string(draws)}}});
    // clang-format on
    lines::declared(out.back().cells, order);
  }
  return out;
}

// attn_scores = queries.T @ keys: (d_k, d_k) where (T, T) belongs.
std::vector<Variant> queries_transposed_in_scores(const DiagnosisInput& in) {
  const std::string d_k = std::to_string(in.cfg.d_out), T = std::to_string(in.cfg.num_tokens());
  Variant v{{}, in.cfg, {{"got_shape", shape_str(in.got.shape)}, {"d_k", d_k}, {"T", T}}};
  lines::queries_transposed(v.cells);
  return {v};
}

// attn_weights.T @ values: each token's values shared out by a column of the weights.
std::vector<Variant> attn_weights_transposed(const DiagnosisInput& in) {
  Variant v{{}, in.cfg, {}};
  lines::weights_transposed(v.cells);
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
  std::vector<Variant> out = {{{}, in.cfg, {{"dim", "-2"}, {"over", "check.over.queries"}}}};
  lines::softmax_over_queries(out.back().cells);
  if (in.stage == "dropout" || in.stage == "multi-head")
    for (const int64_t dim : {0, 1}) {
      // clang-format off
      out.push_back({{}, in.cfg,
                     {{"dim", std::to_string(dim)},
                      {"over", dim == 0 ? "check.over.batch" : "check.over.heads"},
                      {"batch", std::to_string(in.cfg.batch)},
                      {"share", fmt::format("{:.4g}", 1.0 / static_cast<double>(in.cfg.batch))}}});
      // clang-format on
      lines::softmax_over_dim(out.back().cells, dim);
    }
  return out;
}

// Dropout applied where it does not belong, with the chapter's draws: on the scores before
// or after the mask (then the softmax), or on the unmasked weights of section 3.5.1.
std::vector<Variant> dropout_misplaced(const DiagnosisInput& in) {
  std::vector<Variant> out;
  const auto place = [&](const char* where, const Line& line) {
    out.push_back({{}, in.cfg, {{"where", where}}});
    line(out.back().cells);
  };
  place("check.dropout_at.scores_before_mask", [](Cells& c) { lines::dropout_on_scores(c, false); });
  place("check.dropout_at.scores_after_mask", [](Cells& c) { lines::dropout_on_scores(c, true); });
  // MultiHeadAttention masks its scores: only the scores are another place there.
  if (in.stage != "multi-head") {
    place("check.dropout_at.unmasked_weights", [](Cells& c) { lines::dropout_on_unmasked_weights(c, false); });
    place("check.dropout_at.before_renormalising", [](Cells& c) { lines::dropout_on_unmasked_weights(c, true); });
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

// x_2 = inputs[2] where the chapter's 2nd token is inputs[1]: the row they took, and its token.
std::vector<Variant> input_row_picked_wrong(const DiagnosisInput& in) {
  const int64_t token = in.cfg.query, T = in.cfg.num_tokens();
  if (token >= T) return {};  // inputs[T] does not exist: PyTorch stops with an IndexError
  const auto name = [&](int64_t row) { return static_cast<size_t>(row) < in.cfg.tokens.size() ? in.cfg.tokens[row] : ""; };
  // clang-format off
  Variant v{{}, in.cfg,
            {{"row", std::to_string(token)},
             {"token", name(token)},
             {"x", std::to_string(token + 1)},
             {"chapter_row", std::to_string(token - 1)},
             {"chapter_token", name(token - 1)},
             {"chapter_x", std::to_string(token)}}};
  // clang-format on
  lines::row_counted_from_0(v.cells);
  return {v};
}

// Every stage of chapter 3 (and the bonus stages, and chapter 5's loop); chapter 4's GPTModel
// (--stage gpt) has rows of its own.
constexpr const char* kAnyStage = "";

}  // namespace

// Every known mistake, in the chapter's order: its id (the key of its message,
// "check.mistake.<id>" in src/lang/check_*.cpp), the stages where it can be made, and the ways
// of writing it: the learner's lines (check/lines.h), or a function that gives them with the
// evidence their message shows.
const std::vector<Mistake>& known_mistakes() {
  using namespace lines;  // NOLINT: the table reads as the learners' lines
  static const std::vector<Mistake> mistakes = {
      {"picked_wrong_row", "dot-product softmax trainable", {}, picked_wrong_row},
      {"input_typed_wrong", kAnyStage, {}, input_typed_wrong},
      {"input_inferred", kAnyStage, {}, input_inferred},
      {"query_key_swapped", kAnyStage, {queries_from_W_key, keys_times_queries, exercise_copies_swapped}},
      {"scale_missing", kAnyStage, {softmax_unscaled}},
      {"scale_by_d_k", kAnyStage, {[](Cells& c) { softmax_divided(c, Size::Dk, 1.0, 1.0, false); }}},
      {"wrong_divisor", kAnyStage, {}, wrong_divisor},
      {"scaled_after_softmax", kAnyStage, {}, scaled_after_softmax},
      {"softmax_wrong_dim", kAnyStage, {}, softmax_wrong_dim},
      {"normalized_wrong_tensor", kAnyStage, {renormalized_mask_simple, renormalized_attn_weights}},
      {"keepdim_missing", kAnyStage, {row_sums_without_keepdim}},
      {"sum_wrong_dim", kAnyStage, {column_sums}},
      // clang-format off
      {"mask_wrong_triangle", kAnyStage,
       {mask_past, mask_diagonal_too, hidden_mask_past, hidden_mask_diagonal_too, kept_mask_past,
        kept_mask_diagonal_too}},
      // clang-format on
      {"masked_fill_result_discarded", kAnyStage, {masked_fill_discarded}},
      {"mask_filled_with_zero", kAnyStage, {[](Cells& c) { masked_with(c, 0.0f); }}},
      {"mask_after_softmax", kAnyStage, {}, mask_after_softmax},
      {"attn_scores_changed_in_place", kAnyStage, {}, nullptr, {{"attn_scores", "attn_scores_masked"}}},
      {"dropout_scaled_by_p", kAnyStage, {dropout_scaled_by_p}},
      {"cat_wrong_dim", kAnyStage, {}, cat_wrong_dim},
      {"view_instead_of_transpose", kAnyStage, {heads_by_view}},
      {"context_not_transposed", kAnyStage, {context_not_transposed}},
      {"view_result_discarded", kAnyStage, {merge_discarded}},
      {"out_proj_missing", kAnyStage, {out_proj_missing}},
      {"weights_not_transposed", kAnyStage, {exercise_copies_not_transposed}},
      {"same_head_twice", kAnyStage, {same_head_twice}},
      {"seed_not_reset", kAnyStage, {}, seed_not_reset},
      {"wrong_seed", kAnyStage, {}, wrong_seed},
      {"bias_left_on", kAnyStage, {}, bias_left_on},
      {"layers_declared_out_of_order", kAnyStage, {}, layers_declared_out_of_order},
      {"queries_transposed_in_scores", "causal", {}, queries_transposed_in_scores},
      {"attn_weights_transposed", kAnyStage, {}, attn_weights_transposed},
      {"dropout_misplaced", "dropout multi-head", {}, dropout_misplaced},
      {"input_row_picked_wrong", "trainable", {}, input_row_picked_wrong},
      {"grad_not_zeroed", kAnyStage, {}, grad_not_zeroed},
      {"softmax_before_cross_entropy", kAnyStage, {}, softmax_before_cross_entropy},
      {"targets_not_shifted", kAnyStage, {}, targets_not_shifted},
      {"adam_instead_of_adamw", kAnyStage, {}, adam_instead_of_adamw},
      {"loss_summed", kAnyStage, {}, loss_summed},
      {"grad_zeroed_before_step", kAnyStage, {}, grad_zeroed_before_step},
      {"optimizer_step_forgotten", kAnyStage, {}, optimizer_step_forgotten},
      {"dropout_off_in_training", kAnyStage, {}, dropout_off_in_training},
      // Chapter 4's GPTModel (check/gpt_lines.h), and chapter 5's loading of GPT-2's weights.
      {"layer_norm_var_unbiased", "gpt", {}, gpt_slips::layer_norm_var_unbiased},
      {"layer_norm_wrong_dim", "gpt", {}, gpt_slips::layer_norm_wrong_dim},
      {"shortcut_missing", "gpt", {}, gpt_slips::shortcut_missing},
      {"gelu_exact", "gpt", {}, gpt_slips::gelu_exact},
      {"conv1d_not_transposed", "gpt", {}, gpt_slips::conv1d_not_transposed},
  };
  return mistakes;
}

std::vector<Variant> ways_of_writing(const Mistake& mistake, const DiagnosisInput& in) {
  if (*mistake.stages) {  // a space-separated list of stages
    const std::string stages = std::string(" ") + mistake.stages + " ";
    if (stages.find(" " + in.stage + " ") == std::string::npos) return {};
  } else if (in.stage == "gpt") {
    return {};  // a row of chapter 3's
  }
  std::vector<Variant> out = mistake.variants ? mistake.variants(in) : std::vector<Variant>{};
  for (const Line& line : mistake.lines) {
    out.push_back({{}, in.cfg, {}});
    line(out.back().cells);
  }
  if (!mistake.dumped_as.empty() && out.empty()) out.push_back({{}, in.cfg, {}});
  for (Variant& v : out)
    for (const auto& [learner, step] : mistake.dumped_as) v.dumped_as[learner] = step;
  return out;
}

std::vector<Diagnosis> diagnose(const DiagnosisInput& in) {
  std::vector<Diagnosis> found;
  std::set<std::string> given;  // --stage gpt: the large parameters are recomputed only if given
  for (const auto& [name, tensor] : in.given) given.insert(name);
  for (const auto& mistake : known_mistakes())
    for (const Variant& v : ways_of_writing(mistake, in)) {
      LearnerSteps steps = learner_stage(in.stage, v.config, v.cells, v.loop, &given);
      for (const auto& [learner, step] : v.dumped_as)  // the learner's name for another step's tensor
        if (steps.count(step)) steps[learner] = steps[step];
      const auto it = steps.find(in.step);
      // Only a variant that changes this step can name it: the learner's tensor differs.
      if (it == steps.end() || compare(in.got, it->second, in.tol).grade == Grade::Differs) continue;
      if (!consistent(in, steps) || !consistent_elsewhere(in, v)) continue;
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
