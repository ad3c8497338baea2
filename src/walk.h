// A walk is what a stage produces: an ordered list of named steps, each holding
// one tensor. Stages only record steps; renderers (src/render/) present them.
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "config.h"
#include "tensor.h"

namespace attn {

struct Step {
  std::string name;   // the chapter's variable name: "attn_scores_2", "sa_v2.W_query.weight"
  std::string title;  // what the step is, one line: "dot products of x(2) with every input"
  Tensor value;
  // How the notebook shows it: a Parameter prints "Parameter containing:" first, and
  // results of autograd ops carry "grad_fn=<...>" / "requires_grad=True" suffixes.
  bool is_parameter = false;
  std::vector<std::string> suffixes;  // e.g. {"grad_fn=<SoftmaxBackward0>"}
};

struct Walk {
  std::string stage;                // "causal"
  Config config;                    // everything that shaped the numbers
  std::vector<std::string> tokens;  // row labels
  std::deque<Step> steps;           // a deque: add() hands out references that must stay valid
  std::vector<std::string> notes;   // one-line remarks shown once (e.g. which dropout kernel)

  // Record a step; returns its value so stages read top to bottom:
  //   auto attn_weights = walk.add("attn_weights", "...", softmax(attn_scores));
  const Tensor& add(std::string name, std::string title, Tensor value,
                    std::vector<std::string> suffixes = {});
  const Tensor& add_parameter(std::string name, std::string title, Tensor value,
                              bool requires_grad = true);
};

}  // namespace attn
