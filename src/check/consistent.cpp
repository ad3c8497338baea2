#include "check/consistent.h"

#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"

namespace attn {

namespace {

// The part of a stage that computes `step`: the notebook's cells, or one module typed as its
// own class (a learner may make a mistake in one and not in another).
std::string part_of(const std::string& stage, const std::string& step) {
  const auto starts = [&](const char* prefix) { return step.rfind(prefix, 0) == 0; };
  if (stage == "trainable") {
    if (starts("sa_v1")) return "sa_v1";
    if (starts("sa_v2")) return "sa_v2";  // its weights and its output
    if (starts("exercise_3_1_sa_v")) return step.substr(0, step.rfind('_'));
    return "cells";
  }
  if (stage == "dropout") {
    if (step == "causal_attention_context_vecs") return "CausalAttention";
    return step == "attn_weights_causal" ? "3.5.1" : "cells";
  }
  if (stage == "multi-head") {
    if (step == "wrapper_context_vecs" || step == "exercise_3_2_context_vecs") return step;
    if (step == "a" || step == "a_at_a_T" || step == "first_res" || step == "second_res") return "a";
    return "MultiHeadAttention";
  }
  return "cells";
}

// Whether the tensors of parts `a` and `b` of a stage are computed one from the other, so a
// mistake in one shows in the other: section 3.5.2's dropout cells take 3.5.1's weights, and
// exercises 3.1 and 3.2 run the classes before them again, with other arguments.
bool linked(const std::string& stage, const std::string& a, const std::string& b) {
  if (a == b) return true;
  const auto pair = [&](const char* x, const char* y) { return (a == x && b == y) || (a == y && b == x); };
  // Exercise 3.1 runs SelfAttention_v2 again (a slip in the class shows in both), and its v1
  // takes that v2's weights.
  if (stage == "trainable")
    return pair("sa_v2", "exercise_3_1_sa_v2") || pair("sa_v2", "exercise_3_1_sa_v1") ||
           pair("exercise_3_1_sa_v1", "exercise_3_1_sa_v2");
  if (stage == "dropout") return pair("3.5.1", "cells");
  if (stage == "multi-head") return pair("wrapper_context_vecs", "exercise_3_2_context_vecs");
  return false;
}

const Tensor* chapter_step(const Walk& walk, const std::string& name) {
  for (const auto& s : walk.steps)
    if (s.name == name) return &s.value;
  return nullptr;
}

// The part of a whole notebook a stage's tensor comes from, when another stage runs that part
// again ("" otherwise).
std::string shared_part(const std::string& stage, const std::string& step) {
  if (stage == "causal") return "3.5.1";
  if (stage == "dropout")
    return step == "attn_weights_causal" ? "3.5.1" : step == "causal_attention_context_vecs" ? "CausalAttention"
                                                                                             : "";
  if (stage == "multi-head" && (step == "wrapper_context_vecs" || step == "exercise_3_2_context_vecs"))
    return "CausalAttention";
  return "";
}

}  // namespace

bool consistent_elsewhere(const DiagnosisInput& in, const Variant& v) {
  const std::string part = in.others ? shared_part(in.stage, in.step) : "";
  if (part.empty()) return true;
  for (const OtherStage& other : *in.others) {
    std::vector<const std::pair<std::string, Tensor>*> shared;
    for (const auto& named : other.given)
      if (shared_part(other.stage, named.first) == part) shared.push_back(&named);
    if (shared.empty()) continue;
    LearnerSteps steps = learner_stage(other.stage, v.config, v.cells, v.loop);
    for (const auto& [learner, step] : v.dumped_as)
      if (steps.count(step)) steps[learner] = steps[step];
    for (const auto* named : shared) {
      const auto it = steps.find(named->first);
      if (it != steps.end() && compare(named->second, it->second, in.tol).grade == Grade::Differs) return false;
    }
  }
  return true;
}

bool consistent(const DiagnosisInput& in, const LearnerSteps& steps) {
  const std::string part = part_of(in.stage, in.step);
  for (const auto& [name, tensor] : in.given) {
    const auto it = steps.find(name);
    // clang-format off
    if (it == steps.end()) continue;  // the mistaken code does not make it: it cannot say
    if (compare(tensor, it->second, in.tol).grade != Grade::Differs) continue;  // the mistake explains it
    // clang-format on
    // A class typed on its own may be right where the mistake is elsewhere.
    const Tensor* chapter = chapter_step(in.walk, name);
    if (!linked(in.stage, part_of(in.stage, name), part) && chapter &&
        compare(tensor, *chapter, in.tol).grade != Grade::Differs)
      continue;
    return false;  // neither the mistake nor the chapter gives this tensor where it sits
  }
  return true;
}

}  // namespace attn
