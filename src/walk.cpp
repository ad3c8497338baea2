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

}  // namespace attn
