#include "core/walk.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "core/role_name.h"
#include "core/tensor_summary.h"

namespace attn {

namespace {

constexpr float kPlusInf = std::numeric_limits<float>::infinity();

// Keep only what print() shows of a step's tensor (nothing changes for small ones).
void summarize_step(Step& step) {
  if (step.summarized || !print_summarizes(step.value.shape)) return;
  step.full_shape = step.value.shape;
  step.value = shown_part(step.value);
  step.summarized = true;
}

}  // namespace

#pragma GCC diagnostic push
#pragma GCC diagnostic error "-Wswitch"
const char* role_name(Role r) {
  switch (r) {
    case Role::Value: return "value";
    case Role::Parameter: return "parameter";
    case Role::Scores: return "scores";
    case Role::Weights: return "weights";
    case Role::DroppedWeights: return "dropped_weights";
    case Role::MaskHidden: return "mask_hidden";
    case Role::MaskKept: return "mask_kept";
    case Role::Series: return "series";
  }
  return "value";  // not reached: every role is named above
}
#pragma GCC diagnostic pop

const Tensor& Walk::add(std::string name, Tensor value, std::vector<std::string> suffixes) {
  return add(std::move(name), Role::Value, std::move(value), std::move(suffixes));
}

const Tensor& Walk::add(std::string name, Role role, Tensor value, std::vector<std::string> suffixes) {
  Step step;
  step.name = std::move(name);
  step.value = std::move(value);
  step.role = role;
  step.suffixes = std::move(suffixes);
  step.section = section;
  steps.push_back(std::move(step));
  if (config.on_step) config.on_step(stage, steps.back().name);
  return steps.back().value;
}

void Walk::part_done(const std::string& step, int64_t part, int64_t parts) const {
  if (config.on_part) config.on_part(stage, step, part, parts);
}

const Tensor& Walk::add_parameter(std::string name, Tensor value, bool requires_grad) {
  std::vector<std::string> suffixes;
  if (requires_grad) suffixes.push_back("requires_grad=True");
  return add(std::move(name), Role::Parameter, std::move(value), std::move(suffixes));
}

void Walk::add_python(std::string name, double value, std::string printed, std::string type) {
  add(std::move(name), Tensor::scalar(static_cast<float>(value)));
  steps.back().payload = PythonNumberPayload{std::move(printed), std::move(type)};
}

void Walk::add_words(std::string name, std::vector<std::string> words, std::string printed, Tensor value) {
  add(std::move(name), std::move(value));
  steps.back().payload = WordsPayload{std::move(words), std::move(printed)};
}

void Walk::record(std::string name, Tensor&& value, std::vector<std::string> suffixes) {
  record(std::move(name), Role::Value, std::move(value), std::move(suffixes));
}

void Walk::record(std::string name, const Tensor& value, std::vector<std::string> suffixes) {
  record(std::move(name), Role::Value, value, std::move(suffixes));
}

void Walk::record(std::string name, Role role, Tensor&& value, std::vector<std::string> suffixes) {
  add(std::move(name), role, std::move(value), std::move(suffixes));
  if (summaries_only) summarize_step(steps.back());
}

void Walk::record(std::string name, Role role, const Tensor& value, std::vector<std::string> suffixes) {
  if (!summaries_only || !print_summarizes(value.shape)) {
    add(std::move(name), role, value, std::move(suffixes));
    return;
  }
  add(std::move(name), role, shown_part(value), std::move(suffixes));
  steps.back().full_shape = value.shape;
  steps.back().summarized = true;
}

void Walk::add_check(std::string id, bool passed, double max_diff) {
  Check c;
  c.id = std::move(id);
  c.passed = passed;
  c.max_diff = max_diff;
  c.after_step = steps.size();
  checks.push_back(std::move(c));
}

bool holds_nonfinite(const Step& step) {
  const auto& v = step.value.data;
  const auto nonfinite = [](float x) { return std::isnan(x) || x == kPlusInf; };
  return !step.shows_nonfinite && std::any_of(v.begin(), v.end(), nonfinite);
}

void note_nonfinite(Walk& walk) {
  for (size_t i = 0; i < walk.steps.size(); ++i) {
    const Step& step = walk.steps[i];
    if (!holds_nonfinite(step)) continue;
    walk.vars["nonfinite_index"] = std::to_string(i + 1);
    walk.vars["nonfinite_step"] = step.name;
    walk.notes.push_back("note.nonfinite");
    return;
  }
}

void summarize(Walk& walk) {
  if (!walk.summaries_only) return;
  for (auto& step : walk.steps) summarize_step(step);
}

void prepend_steps(Walk& walk, Walk&& first) {
  const size_t shift = first.steps.size();
  for (auto& c : walk.checks)
    if (c.after_step > 0) c.after_step += shift;
  walk.checks.insert(walk.checks.begin(), first.checks.begin(), first.checks.end());
  walk.notes.insert(walk.notes.begin(), first.notes.begin(), first.notes.end());
  for (auto it = first.steps.rbegin(); it != first.steps.rend(); ++it) walk.steps.push_front(std::move(*it));
}

void keep_only(Walk& walk, const std::set<std::string>& keep) {
  // A check stays with the step it follows: it goes if that step goes.
  std::vector<size_t> new_index(walk.steps.size() + 1, 0);  // 1-based position after filtering
  std::deque<Step> kept;
  for (size_t i = 0; i < walk.steps.size(); ++i) {
    if (!keep.count(walk.steps[i].name)) continue;
    kept.push_back(std::move(walk.steps[i]));
    new_index[i + 1] = kept.size();
  }
  std::vector<Check> checks;
  for (auto& c : walk.checks) {
    if (c.after_step == 0 || c.after_step > walk.steps.size() || new_index[c.after_step] == 0) continue;
    c.after_step = new_index[c.after_step];
    checks.push_back(std::move(c));
  }
  walk.steps = std::move(kept);
  walk.checks = std::move(checks);
}

}  // namespace attn
