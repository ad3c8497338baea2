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

#include "check/variant.h"

namespace attn {

// A named mistake with its evidence: the placeholders of its message (src/lang/check_*.cpp,
// key "check.mistake.<id>"), computed from the learner's tensor.
struct Diagnosis {
  std::string id;
  std::map<std::string, std::string> vars;
};
inline bool operator==(const Diagnosis& d, const std::string& id) { return d.id == id; }

struct Mistake {
  const char* id;  // "scale_missing": the key of its message in src/lang/check_*.cpp
  std::vector<Variant> (*variants)(const DiagnosisInput& in);  // the ways of writing it here
};

// Every known mistake, in the chapter's order.
const std::vector<Mistake>& known_mistakes();

// The mistakes whose code gives the learner's tensors (see above).
std::vector<Diagnosis> diagnose(const DiagnosisInput& in);

}  // namespace attn
