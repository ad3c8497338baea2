#include "stages/stages.h"

#include <fmt/format.h>

#include <iterator>
#include <stdexcept>
#include <string>

#include "lang/lang.h"
#include "stages/bonus_common.h"

namespace attn {

namespace {

// The one-line summary --list-stages prints: the English text of "stage.<name>" in the
// stage's own text file (src/lang/<stage>_en.cpp), so every learner-facing text stays in src/lang/.
const char* summary(const char* stage) {
  return lang_en().ui.at(std::string("stage.") + stage).c_str();
}

}  // namespace

// Here, not in multi_head.cpp, which holds the chapter's steps alone.
std::string multi_head_misuse(const Config& cfg) {
  if (cfg.gpt.params) return gpt_misuse(cfg);  // --weights: the model's sizes, --layer, the text's ids
  if (cfg.d_out % cfg.heads == 0) return "";
  return fmt::format("--heads: MultiHeadAttention needs --d-out divisible by --heads, got d_out {} and {} heads",
                     cfg.d_out, cfg.heads);
}

const std::vector<StageInfo>& all_stages() {
  // The run function of each stage, in the places' order; misuse: see StageInfo.
  struct Code {
    const char* name;
    Walk (*run)(const Config&);
    std::string (*misuse)(const Config&) = nullptr;
  };
  static const Code code[] = {
      {"tokens", run_tokens},
      {"dot-product", run_dot_product},
      {"softmax", run_softmax},
      {"trainable", run_trainable},
      {"causal", run_causal},
      {"dropout", run_dropout},
      {"multi-head", run_multi_head, multi_head_misuse},
      {"efficient", run_efficient, bonus_heads_misuse},
      {"kv-cache", run_kv_cache, bonus_heads_misuse},
      {"gqa", run_gqa, gqa_misuse},
      {"swa", run_swa, bonus_heads_misuse},
      {"rope", run_rope, rope_misuse},
      {"flash", run_flash, flash_misuse},
      {"mla", run_mla, bonus_heads_misuse},
      {"backward", run_backward, backward_misuse},
      {"gpt", run_gpt, gpt_misuse},
  };
  static const std::vector<StageInfo> stages = [] {
    std::vector<StageInfo> out;
    for (const StagePlace& place : stage_places())
      for (const Code& c : code)
        if (std::string(c.name) == place.name) out.push_back({place, summary(place.name), c.run, c.misuse});
    if (out.size() != stage_places().size() || out.size() != std::size(code))
      throw std::logic_error("stages.cpp: every place of core/stage_place.cpp needs its run function");
    return out;
  }();
  return stages;
}

const StageInfo* find_stage(const std::string& name) {
  for (const auto& s : all_stages())
    if (name == s.name) return &s;
  return nullptr;
}

}  // namespace attn
