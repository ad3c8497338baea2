#include "check/check.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <set>

#include "check/diagnoses.h"
#include "input/embeddings.h"
#include "stages/common.h"
#include "stages/stages.h"

namespace attn {

namespace {

// The dump's tensors that belong to `stage` (all of them unless the dump is attn-walk's
// output for several stages).
std::vector<std::pair<std::string, Tensor>> tensors_of(const Dump& dump, const std::string& stage) {
  std::vector<std::pair<std::string, Tensor>> out;
  for (size_t i = 0; i < dump.tensors.size(); ++i)
    if (dump.stages[i].empty() || dump.stages[i] == stage) out.push_back(dump.tensors[i]);
  return out;
}

bool runnable(const StageInfo& s, const Config& cfg) { return !s.misuse || s.misuse(cfg).empty(); }

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// The walk's checks that hold for the chapter's tensor, run on the learner's.
std::vector<CheckReport::OwnCheck> own_checks(const Tensor& got, const Tensor& expected) {
  std::vector<CheckReport::OwnCheck> out;
  if (got.shape != expected.shape || expected.dim() < 1 || expected.numel() == 0) return out;
  if (rows_sum_to_one(expected).passed) {
    const Comparison c = rows_sum_to_one(got);
    out.push_back({"rows_sum_to_1", c.passed, c.max_diff});
  }
  if (expected.dim() >= 2 && expected.size(-1) == expected.size(-2) && expected.size(-1) > 1 &&
      zero_above_diagonal(expected).passed) {
    const Comparison c = zero_above_diagonal(got);
    out.push_back({"zero_above_diagonal", c.passed, c.max_diff});
  }
  return out;
}

}  // namespace

std::string closest_name(const std::string& name, const std::vector<std::string>& names) {
  std::string best;
  size_t best_d = SIZE_MAX;
  for (const auto& n : names) {
    const size_t d = edit_distance(name, n);
    if (d < best_d) best_d = d, best = n;
  }
  return best;
}

std::string choose_stage(const Dump& dump, const Config& cfg, std::string* chosen_by) {
  if (!dump.stage.empty() && dump.stage != "all" && find_stage(dump.stage)) {
    *chosen_by = "dump";
    return dump.stage;
  }
  *chosen_by = "names";
  std::string best;
  std::pair<size_t, size_t> best_score{0, 0};
  for (const auto& s : all_stages()) {
    if (!runnable(s, cfg)) continue;
    const Walk walk = s.run(cfg);
    std::pair<size_t, size_t> score{0, 0};  // (names found, of which shapes agree)
    // Each given name counts once, though a stage may record a name many times (kv-cache and
    // flash repeat their steps per token or block).
    for (const auto& [name, tensor] : tensors_of(dump, s.name))
      for (const auto& step : walk.steps)
        if (step.name == name) {
          ++score.first;
          if (step.value.shape == tensor.shape) ++score.second;
          break;
        }
    if (best.empty() || score > best_score) best = s.name, best_score = score;
  }
  return best;
}

CheckReport check_dump(const Dump& dump, const Config& cfg, const std::string& stage,
                       const std::string& chosen_by, const Tolerance& tol, const std::string& source) {
  const StageInfo* info = find_stage(stage);
  const Walk walk = info->run(cfg);
  const auto given = tensors_of(dump, stage);
  if (given.empty())
    throw InputError(fmt::format("{}: no tensor of stage {} (the dump is attn-walk's output for stage {})",
                                 source, stage, dump.stage));
  std::vector<std::string> names;
  for (const auto& step : walk.steps) names.push_back(step.name);
  std::set<std::string> seen;
  for (const auto& [name, tensor] : given) {
    if (std::find(names.begin(), names.end(), name) == names.end())
      throw InputError(fmt::format(
          "{}: \"{}\" is not a step of stage {}; did you mean \"{}\"? (attn-walk --stage {} --list-steps "
          "lists them)", source, name, stage, closest_name(name, names), stage));
    if (!seen.insert(name).second)
      throw InputError(fmt::format("{}: \"{}\" is given twice", source, name));
  }

  CheckReport r;
  r.stage = stage;
  r.chosen_by = chosen_by;
  r.names_given = r.names_matched = given.size();
  r.config = cfg;
  r.tol = tol;
  r.results = grade_walk(walk, given, tol);
  for (size_t i = 0; i < r.results.size(); ++i) {
    if (r.results[i].diff.grade != Grade::Differs) continue;
    r.first = i;
    r.expected = walk.steps[i].value;
    for (const auto& [name, tensor] : given)
      if (name == r.results[i].name) r.got = tensor;
    for (Diagnosis& d : diagnose({stage, cfg, walk, given, r.results[i].name, r.got, r.expected, tol})) {
      r.diagnoses.push_back(d.id);
      r.evidence.push_back(std::move(d.vars));
    }
    r.own_checks = own_checks(r.got, r.expected);
    break;
  }
  return r;
}

}  // namespace attn
