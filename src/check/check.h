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
#include "core/stage_place.h"
#include "core/walk.h"

namespace attn {

struct CheckReport {
  std::string stage;         // the stage graded
  std::string chosen_by;     // "option" (--stage), "dump" (attn-walk's output), or "names"
  size_t names_given = 0;    // tensors in the dump for this stage
  size_t names_matched = 0;  // how many of them name this stage's steps (all, once checked)
  Config config;
  Tolerance tol;
  std::vector<StepGrade> results;                            // every step of the stage, in its order
  std::optional<size_t> first;                               // index in results of the first step that differs
  Tensor expected, got;                                      // that step's tensors
  std::vector<std::string> diagnoses;                        // ids of the mistakes that reproduce `got`
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
  // A whole notebook's dump (notebook_stages): every stage graded, in the chapter's order
  // (empty when one stage is graded).
  std::vector<std::string> stages_graded;

  bool passed() const { return !first.has_value(); }
};

// The stage whose steps include the most names of the dump (ties: the most whose shapes
// also agree, then the chapter's order); attn-walk's own output names its stage. Walks are
// run on cfg to learn the steps. Returns the stage and sets `chosen_by`.
StageChoice choose_stage(const Dump& dump, const Config& cfg, std::string* chosen_by);

// A whole notebook's dump: names of several of the chapter's stages (section 3.3 to 3.6), as a
// learner who dumps everything they computed gives them. Each name counts for the stage whose
// value it holds: a name that is a step of one chapter stage only is that stage's; a name
// that is a step of several (`keys`, `attn_scores`, `attn_weights`, `batch`, ... which the
// notebook binds again in later sections) is matched against each of those stages' chapter
// values: the stages it is equal or close to; else the last of those whose shape it has (the
// notebook's later binding; of the stages the dump reaches by names of their own, if any), with
// the stages whose chapter value is that one's; else the last of them. attn-walk's own output
// names each tensor's stage. A stage is graded when it holds a name no other stage holds.
struct NotebookStages {
  std::vector<StageChoice> stages;  // the stages graded, in the chapter's order
  std::vector<Dump> dumps;          // stages[i]'s tensors
};
// Empty (no stages) when the dump is one stage's: attn-walk's output for one stage, every name
// a step of the stage choose_stage picks, a name that is no chapter stage's, or one stage reached.
NotebookStages notebook_stages(const Dump& dump, const Config& cfg);

// Grade `dump` against `stage`'s walk. Throws InputError for a name that is not a step of
// the stage (naming the closest step).
// With `whole` (a whole notebook's stages), the diagnoses are tested against the whole dump:
// a mistake made in a part of the notebook that another stage runs again (section 3.5.1's
// weights, the CausalAttention class the wrapper uses) must give that stage's tensors too.
CheckReport check_dump(const Dump& dump, const Config& cfg, const std::string& stage,
                       const std::string& chosen_by, const Tolerance& tol, const std::string& source,
                       const NotebookStages* whole = nullptr);

// The step name closest to `name` (edit distance), for "did you mean" messages.
std::string closest_name(const std::string& name, const std::vector<std::string>& names);

}  // namespace attn
