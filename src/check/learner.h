// The chapter's code as a learner types it, with the slips learners make.
//
// There is one computation of the chapter: a learner's slip is their line in one of the
// book's cells (modules/cells.h; check/lines.h writes them: W_key where W_query belongs, no
// division by sqrt(d_k), the wrong triangle masked, ...), and learner_stage() runs the stage
// itself with it. With no slips it computes the walk's own numbers, so a learner's tensor that one
// of these reproduces differs from the chapter by exactly those slips. Diagnoses
// (diagnoses.h) are built on this.
#pragma once

#include <map>
#include <set>
#include <string>

#include "core/config.h"
#include "core/tensor.h"
#include "modules/train.h"
#include "modules/cells.h"

namespace attn {

using Slips = Cells;
using LearnerSteps = std::map<std::string, Tensor>;

// The stage's tensors by step name (the first of a name), computed with the cells `s`
// (trainable, causal, dropout, multi-head; the other stages only with the book's, on `cfg`),
// and, for --stage backward, chapter 5's loop written as `loop` says (modules/train.h).
// --stage gpt: also the vocabulary-sized (or GPT-2-sized) parameters that `given` names
// (check/gpt.h). Empty if the learner's code stops with an error.
LearnerSteps learner_stage(const std::string& stage, const Config& cfg, const Slips& s,
                           const TrainChoices& loop = {}, const std::set<std::string>* given = nullptr);

// Every choice of the loop the chapter's.
bool chapter_loop(const TrainChoices& loop);

}  // namespace attn
