// Naming a learner's mistake: every known mistake that applies to a stage is recomputed
// (learner.h) and compared with the learner's tensor at the first step that differs. A
// diagnosis is reported only when the mistaken code reproduces that tensor within tolerance,
// so it is computed, never guessed; when none does, there is no diagnosis.
#pragma once

#include <string>
#include <vector>

#include "check/grade.h"
#include "check/learner.h"
#include "core/config.h"
#include "core/tensor.h"

namespace attn {

struct Mistake {
  const char* id;              // "scale_missing": the key of its message in src/lang/check_*.cpp
  std::vector<Slips> variants; // the ways of writing it; any one reproducing the tensor names it
};

// Every known mistake, in the chapter's order.
const std::vector<Mistake>& known_mistakes();

// The ids of the mistakes whose code gives `got` at `step` of `stage` (within tol).
std::vector<std::string> diagnose(const std::string& stage, const Config& cfg, const std::string& step,
                                  const Tensor& got, const Tolerance& tol);

}  // namespace attn
