// A walk is what a stage produces: an ordered list of named steps, each holding
// one tensor. Stages only record steps; renderers (src/render/) present them.
#pragma once

#include <deque>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "config.h"
#include "tensor.h"

namespace attn {

struct Step {
  std::string name;   // the chapter's variable name: "attn_scores_2", "sa_v2.W_query.weight"
  std::string title;  // what the step is, one line; filled by localize() from src/lang/
  Tensor value;
  // How the notebook shows it: a Parameter prints "Parameter containing:" first, and
  // results of autograd ops carry "grad_fn=<...>" / "requires_grad=True" suffixes.
  bool is_parameter = false;
  std::vector<std::string> suffixes;  // e.g. {"grad_fn=<SoftmaxBackward0>"}
  // Filled by localize() (src/lang/): one to three sentences on what, why and shapes.
  std::string explanation;
  // Extra lines shown under the tensor (e.g. a parameter-count breakdown).
  std::vector<std::string> details;
  // An integer tensor (token ids, exact in float32): printed as torch prints int64.
  bool is_int64 = false;
  // A step that holds words rather than numbers (the text, its BPE pieces): the words,
  // and no tensor. JSON carries them as the step's data.
  std::vector<std::string> words;
  // If set, shown verbatim instead of the tensor (the words, or a Python list as print()
  // shows it).
  std::string printed;
};

// A check a learner would make, computed from the walk's own tensors.
struct Check {
  std::string id;          // "softmax_rows_sum_to_1": the key of its label in src/lang/
  std::string label;       // filled by localize(); the id until then
  bool passed = false;
  double max_diff = 0.0;   // the largest absolute difference found
  size_t after_step = 0;   // shown after steps[after_step - 1]
};

struct Walk {
  Walk(std::string stage_name, const Config& cfg)
      : stage(std::move(stage_name)), config(cfg) {}

  std::string stage;                // "causal"
  Config config;                    // everything that shaped the numbers, tokens included
  std::deque<Step> steps;           // a deque: add() hands out references that must stay valid
  std::vector<std::string> notes;   // one-line remarks shown once (e.g. which dropout kernel)
  std::vector<Check> checks;
  // Named values the texts of src/lang/ may use: {query}, {d_k}, {seed1}, ...
  // "variant:<step name>" = "v" picks the text "<stage>/<step>#v" when the step means
  // something different for this config (e.g. dropout with p = 0).
  std::map<std::string, std::string> vars;

  // Record a step; returns its value so stages read top to bottom:
  //   auto attn_weights = walk.add("attn_weights", softmax(attn_scores));
  // Titles and explanations are not written here: localize() (src/lang/) looks them up
  // by stage and step name and fills in walk.vars.
  const Tensor& add(std::string name, Tensor value, std::vector<std::string> suffixes = {});
  const Tensor& add_parameter(std::string name, Tensor value, bool requires_grad = true);
  // Record a check, shown after the latest step; its label comes from src/lang/ by id.
  void add_check(std::string id, bool passed, double max_diff);
};

// Put `first`'s steps, checks and notes before `walk`'s (steps localized already keep
// their texts); `walk`'s checks move along with their steps.
void prepend_steps(Walk& walk, Walk&& first);

// --only: keep the steps named in `keep`, and the checks shown after them.
void keep_only(Walk& walk, const std::set<std::string>& keep);

}  // namespace attn
