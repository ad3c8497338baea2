#include "check/consistent.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "check/grade.h"
#include "core/tensor.h"
#include "modules/cells.h"

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

// The parts of a whole notebook that several stages use, by the stage's tensors they give.
//
// sa_v2's parameters (section 3.4.2's sa_v2.W_query.weight, ...): section 3.5.1 computes its
// queries and keys with sa_v2's own W_query and W_key.
bool holds_sa_v2_parameters(const std::string& stage, const std::string& step) {
  return stage == "trainable" && step.rfind("sa_v2.", 0) == 0;
}
// The learner's SelfAttention_v2 class: sa_v2 (its parameters and output) and exercise 3.1's
// (its v2, and its v1, which takes that v2's weights).
bool uses_self_attention_v2(const std::string& stage, const std::string& step) {
  if (stage != "trainable") return false;
  const std::string part = part_of(stage, step);
  return part == "sa_v2" || part == "exercise_3_1_sa_v2" || part == "exercise_3_1_sa_v1";
}
// Section 3.5.1's cells: the causal stage, and section 3.5.2's causal weights and their dropout.
bool from_section_3_5_1(const std::string& stage, const std::string& step) {
  return stage == "causal" || (stage == "dropout" && (step == "attn_weights_causal" || step == "dropout_attn_weights" ||
                                                      step == "dropout_attn_weights_row_sums"));
}
// The CausalAttention class: section 3.5.3's, run again by section 3.6.1's wrapper and exercise 3.2.
bool from_causal_attention(const std::string& stage, const std::string& step) {
  return (stage == "dropout" && step == "causal_attention_context_vecs") ||
         (stage == "multi-head" && (step == "wrapper_context_vecs" || step == "exercise_3_2_context_vecs"));
}

// Whether the mistake `v` changes sa_v2's parameters (W_key declared first, the bias left on, a
// seed): then every use of them shows it, 3.5.1's queries and keys as well as sa_v2's output.
bool changes_sa_v2_parameters(const Config& cfg, const Variant& v) {
  const LearnerSteps mistaken = learner_stage("trainable", v.config, v.cells, v.loop);
  const LearnerSteps chapter = learner_stage("trainable", cfg, book_cells());
  const auto differ = [](const LearnerSteps& a, const LearnerSteps& b) {
    for (const auto& [name, tensor] : a) {
      if (!holds_sa_v2_parameters("trainable", name)) continue;
      const auto it = b.find(name);
      if (it == b.end() || compare(tensor, it->second, Tolerance{0.0, 0.0}).grade != Grade::Equal) return true;
    }
    return false;
  };
  return differ(mistaken, chapter) || differ(chapter, mistaken);
}

}  // namespace

bool consistent_elsewhere(const DiagnosisInput& in, const Variant& v) {
  if (!in.others) return true;
  const bool at_3_5_1 = from_section_3_5_1(in.stage, in.step);
  const bool at_class = uses_self_attention_v2(in.stage, in.step);
  const bool at_causal_attention = from_causal_attention(in.stage, in.step);
  if (!at_3_5_1 && !at_class && !at_causal_attention) return true;
  std::optional<bool> changes;  // changes_sa_v2_parameters, computed once if asked
  const auto changes_sa_v2 = [&] {
    if (!changes) changes = changes_sa_v2_parameters(in.cfg, v);
    return *changes;
  };
  // Another stage's tensor that the same part of the notebook computes, so that the mistake
  // must give it too.
  const auto shared = [&](const std::string& stage, const std::string& step) {
    if (at_causal_attention && from_causal_attention(stage, step)) return true;
    // 3.5.1 reads sa_v2's parameters: whatever 3.5.1's mistake, they are what it leaves them.
    if (at_3_5_1 && (from_section_3_5_1(stage, step) || holds_sa_v2_parameters(stage, step))) return true;
    // A mistake in sa_v2's parameters shows wherever they are used: sa_v2 and its class's other
    // uses (exercise 3.1), and section 3.5.1.
    return (at_3_5_1 || at_class) && (uses_self_attention_v2(stage, step) || from_section_3_5_1(stage, step)) &&
           changes_sa_v2();
  };
  for (const OtherStage& other : *in.others) {
    std::vector<const std::pair<std::string, Tensor>*> given;
    for (const auto& named : other.given)
      if (shared(other.stage, named.first)) given.push_back(&named);
    if (given.empty()) continue;
    LearnerSteps steps = learner_stage(other.stage, v.config, v.cells, v.loop);
    for (const auto& [learner, step] : v.dumped_as)
      if (steps.count(step)) steps[learner] = steps[step];
    for (const auto* named : given) {
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
