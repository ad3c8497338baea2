// attn-walk check: grade a learner's dump against the walk, find the first step that
// differs, and name the known mistakes that reproduce it. Computation only; the report is
// presented by src/render/check_text.cpp and check_json.cpp.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "check/diagnoses.h"
#include "check/dump.h"
#include "check/grade.h"
#include "core/config.h"
#include "core/walk.h"

namespace attn {

struct CheckReport {
  std::string stage;           // the stage graded
  std::string chosen_by;       // "option" (--stage), "dump" (attn-walk's output), or "names"
  size_t names_given = 0;      // tensors in the dump for this stage
  size_t names_matched = 0;    // how many of them name this stage's steps (all, once checked)
  Config config;
  Tolerance tol;
  std::vector<StepGrade> results;  // every step of the stage, in its order
  std::optional<size_t> first;     // index in results of the first step that differs
  Tensor expected, got;            // that step's tensors
  std::vector<std::string> diagnoses;  // ids of the mistakes that reproduce `got`
  std::vector<std::map<std::string, std::string>> evidence;  // of each: its message's placeholders
  // The tool's own checks on the learner's tensor at the first difference, those the
  // chapter's tensor passes there: its rows sum to 1, it is zero above the diagonal.
  struct OwnCheck {
    std::string id;  // "rows_sum_to_1", "zero_above_diagonal": key "check.own.<id>" in src/lang/
    bool passed = false;
    double max_diff = 0.0;
  };
  std::vector<OwnCheck> own_checks;
  // --stage backward: the learner's .grad tensors are not --grad-step's (this, from 1) but the
  // last step's (config.train.grad_step, as a .grad printed after the loop holds), and were
  // graded against those; 0 when they are --grad-step's.
  int64_t grad_step_from = 0;
  // The first difference is a gradient, no known mistake gives it, and it is neither step
  // --grad-step's nor the last's: the learner is asked which step's it is (--grad-step).
  bool ask_grad_step = false;
  // The walk's options the learner gave (" --steps 5 --lr 0.05"), kept in the command the
  // report suggests; set by the command line.
  std::string walk_options;

  bool passed() const { return !first.has_value(); }
};

// The stage whose steps include the most names of the dump (ties: the most whose shapes
// also agree, then the chapter's order); attn-walk's own output names its stage. Walks are
// run on cfg to learn the steps. Returns the stage name and sets `chosen_by`.
std::string choose_stage(const Dump& dump, const Config& cfg, std::string* chosen_by);

// Grade `dump` against `stage`'s walk. Throws InputError for a name that is not a step of
// the stage (naming the closest step).
CheckReport check_dump(const Dump& dump, const Config& cfg, const std::string& stage,
                       const std::string& chosen_by, const Tolerance& tol, const std::string& source);

// The step name closest to `name` (edit distance), for "did you mean" messages.
std::string closest_name(const std::string& name, const std::vector<std::string>& names);

}  // namespace attn
