// Naming a learner's mistake. Every known mistake that applies to a stage is recomputed by
// the chapter's own code with one choice flipped (learner.h), or with the configuration
// changed (a seed, the bias); measured mistakes first read their number off the learner's
// tensor (the divisor they used, the row they picked). A diagnosis is reported only when the
// recomputation reproduces the learner's tensor at the first step that differs AND agrees
// with every other tensor the learner gave: it is computed, never guessed, and never one the
// dump contradicts. Several mistakes that give the same numbers are all named.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "check/grade.h"
#include "check/learner.h"
#include "core/config.h"
#include "core/tensor.h"
#include "core/walk.h"

namespace attn {

// A named mistake with its evidence: the placeholders of its message (src/lang/check_*.cpp,
// key "check.mistake.<id>"), computed from the learner's tensor.
struct Diagnosis {
  std::string id;
  std::map<std::string, std::string> vars;
};
inline bool operator==(const Diagnosis& d, const std::string& id) { return d.id == id; }

// What a diagnosis sees: the stage, the chapter's walk, the learner's tensors, and the first
// step that differs.
struct DiagnosisInput {
  const std::string& stage;
  const Config& cfg;
  const Walk& walk;                                          // the chapter's
  const std::vector<std::pair<std::string, Tensor>>& given;  // the learner's
  const std::string& step;                                   // the first that differs
  const Tensor& got;                                         // the learner's tensor there
  const Tensor& expected;                                    // the chapter's
  const Tolerance& tol;
};

// One way of writing a mistake: the chapter's choices and configuration with some changed,
// and the evidence its message shows if it reproduces the learner's tensors.
struct Variant {
  CellChoices choices;
  Config config;
  std::map<std::string, std::string> vars;
  TrainChoices loop = {};  // --stage backward: chapter 5's loop as the learner wrote it
};

struct Mistake {
  const char* id;  // "scale_missing": the key of its message in src/lang/check_*.cpp
  std::vector<Variant> (*variants)(const DiagnosisInput& in);  // the ways of writing it here
};

// Every known mistake, in the chapter's order.
const std::vector<Mistake>& known_mistakes();

// The mistakes whose code gives the learner's tensors (see above).
std::vector<Diagnosis> diagnose(const DiagnosisInput& in);

}  // namespace attn
