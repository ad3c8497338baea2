#include "walk.h"

#include <utility>

namespace attn {

const Tensor& Walk::add(std::string name, std::string title, Tensor value,
                        std::vector<std::string> suffixes) {
  Step step;
  step.name = std::move(name);
  step.title = std::move(title);
  step.value = std::move(value);
  step.suffixes = std::move(suffixes);
  steps.push_back(std::move(step));
  return steps.back().value;
}

const Tensor& Walk::add_parameter(std::string name, std::string title, Tensor value,
                                  bool requires_grad) {
  std::vector<std::string> suffixes;
  if (requires_grad) suffixes.push_back("requires_grad=True");
  add(std::move(name), std::move(title), std::move(value), std::move(suffixes));
  steps.back().is_parameter = true;
  return steps.back().value;
}

void keep_only(Walk& walk, const std::set<std::string>& keep) {
  std::deque<Step> kept;
  std::vector<size_t> kept_before(walk.steps.size() + 1, 0);  // kept steps among the first i
  for (size_t i = 0; i < walk.steps.size(); ++i) {
    kept_before[i + 1] = kept_before[i];
    if (keep.count(walk.steps[i].name)) {
      kept.push_back(std::move(walk.steps[i]));
      ++kept_before[i + 1];
    }
  }
  for (auto& c : walk.checks)
    if (c.after_step <= walk.steps.size()) c.after_step = kept_before[c.after_step];
  walk.steps = std::move(kept);
}

}  // namespace attn
