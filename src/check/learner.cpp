#include "check/learner.h"

#include "stages/stages.h"

namespace attn {

namespace {

using RunWithChoices = Walk (*)(const Config&, const CellChoices&);

RunWithChoices runner(const std::string& stage) {
  if (stage == "trainable") return run_trainable_with;
  if (stage == "causal") return run_causal_with;
  if (stage == "dropout") return run_dropout_with;
  if (stage == "multi-head") return run_multi_head_with;
  return nullptr;
}

}  // namespace

LearnerSteps learner_stage(const std::string& stage, const Config& cfg, const Slips& s) {
  const RunWithChoices run = runner(stage);
  const StageInfo* info = find_stage(stage);
  // Other stages run only as the chapter writes them (on another configuration, say).
  if (!info || (!run && !s.chapter())) return {};
  Config whole = cfg;
  whole.summaries_only = false;  // every value, as the dump has it
  LearnerSteps out;
  for (Step& step : (run ? run(whole, s) : info->run(whole)).steps) out.emplace(step.name, std::move(step.value));
  return out;
}

}  // namespace attn
