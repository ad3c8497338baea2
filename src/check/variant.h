// What a diagnosis sees (the stage, the chapter's walk, the learner's tensors, the first step
// that differs), and one way of writing a mistake there: the recomputation's choices and
// configuration, with the evidence its message shows. Shared by the diagnoses
// (diagnoses.cpp), the measured ones (measured.cpp) and chapter 5's loop's (training.cpp).
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

// Another stage of a whole notebook's dump (check.h's NotebookStages): its chapter walk and
// the learner's tensors that belong to it.
struct OtherStage {
  std::string stage;
  Walk walk;
  std::vector<std::pair<std::string, Tensor>> given;
};

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
  // A whole notebook: the other stages graded, against which a mistake is tested too.
  const std::vector<OtherStage>* others = nullptr;
};

// One way of writing a mistake: the book's cells with the learner's lines in some of them
// (modules/cells.h), the configuration (a seed, the bias, the inputs), and the evidence its
// message shows if it reproduces the learner's tensors.
struct Variant {
  Cells cells;
  Config config;
  std::map<std::string, std::string> vars;
  TrainChoices loop = {};  // --stage backward: chapter 5's loop as the learner wrote it
  // Tensors the learner dumped under another step's name: {"attn_scores", "attn_scores_masked"}
  // for a reference kept before masked_fill_ changed it in place.
  std::map<std::string, std::string> dumped_as = {};
};

}  // namespace attn
