// Naming a learner's mistake. Every known mistake that applies to a stage is recomputed by
// the chapter's own code with the learner's lines in some of its cells (learner.h, lines.h),
// or with the configuration changed (a seed, the bias); measured mistakes first read their number off the learner's
// tensor (the divisor they used, the row they picked). A diagnosis is reported only when the
// recomputation reproduces the learner's tensor at the first step that differs AND agrees
// with every other tensor the learner gave: it is computed, never guessed, and never one the
// dump contradicts. Several mistakes that give the same numbers are all named.
#pragma once

#include <functional>
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

// A way of writing a line of the chapter: the book's cells it writes its way (check/lines.h).
using Line = std::function<void(Cells&)>;

// A row of the table of mistakes (diagnoses.cpp).
struct Mistake {
  const char* id;           // "scale_missing": the key of its message in src/lang/check_*.cpp
  const char* stages;       // the stages where it can be made, space-separated; "" every stage
  std::vector<Line> lines;  // the ways of writing it, each a variant with no evidence
  // The ways of writing it whose evidence is read off the learner's tensor, or which change
  // the configuration (a seed, the bias, the inputs).
  std::vector<Variant> (*variants)(const DiagnosisInput& in) = nullptr;
  // Tensors the learner dumps under another step's name (Variant::dumped_as).
  std::map<std::string, std::string> dumped_as = {};
};

// Every known mistake, in the chapter's order.
const std::vector<Mistake>& known_mistakes();

// The variants of `mistake` on this input: none outside its stages.
std::vector<Variant> ways_of_writing(const Mistake& mistake, const DiagnosisInput& in);

// The mistakes whose code gives the learner's tensors (see above).
std::vector<Diagnosis> diagnose(const DiagnosisInput& in);

}  // namespace attn
