#include "check/learner.h"

#include <exception>

#include "check/gpt.h"
#include "stages/backward.h"
#include "stages/stages.h"

namespace attn {

namespace {

using RunWithCells = Walk (*)(const Config&, const Cells&);

RunWithCells runner(const std::string& stage) {
  if (stage == "trainable") return run_trainable_with;
  if (stage == "causal") return run_causal_with;
  if (stage == "dropout") return run_dropout_with;
  if (stage == "multi-head") return run_multi_head_with;
  return nullptr;
}

}  // namespace

bool chapter_loop(const TrainChoices& loop) {
  const TrainChoices chapter;
  return loop.zero_grad == chapter.zero_grad &&
         loop.softmax_before_cross_entropy == chapter.softmax_before_cross_entropy &&
         loop.shift_targets == chapter.shift_targets &&
         loop.decoupled_weight_decay == chapter.decoupled_weight_decay &&
         loop.loss_reduction_sum == chapter.loss_reduction_sum &&
         loop.zero_grad_before_step == chapter.zero_grad_before_step;
}

LearnerSteps learner_stage(const std::string& stage, const Config& cfg, const Slips& s, const TrainChoices& loop,
                           const std::set<std::string>* given) {
  if (stage == "gpt") {  // chapter 4's GPTModel with the learner's lines in its cells (check/gpt.h)
    if (!s.book() || !chapter_loop(loop)) return {};
    LearnerSteps out;
    try {
      Walk walk = gpt_check_walk(cfg, s.gpt, given);
      for (Step& step : walk.steps) out.emplace(step.name, std::move(step.value));
    } catch (const std::exception&) {
      if (s.gpt.book()) throw;
      return {};  // shapes that cannot meet: the learner's code stops with an error
    }
    return out;
  }
  const bool backward = stage == "backward";
  const RunWithCells run = runner(stage);
  const StageInfo* info = find_stage(stage);
  // Other stages run only as the chapter writes them (on another configuration, say).
  if (!info || (!run && !s.book()) || (!backward && !chapter_loop(loop))) return {};
  Config whole = cfg;
  whole.summaries_only = false;  // every value, as the dump has it
  LearnerSteps out;
  try {
    Walk walk = backward ? run_backward_with(whole, loop) : run ? run(whole, s)
                                                                : info->run(whole);
    for (Step& step : walk.steps) out.emplace(step.name, std::move(step.value));
  } catch (const std::exception&) {
    if (s.book()) throw;
    return {};  // shapes that cannot multiply: the learner's notebook stops with an error
  }
  return out;
}

}  // namespace attn
