#include "stages/stages.h"

#include "lang/lang.h"

namespace attn {

namespace {

// The one-line summary --list-stages prints: the English text of "stage.<name>" in
// src/lang/en.cpp, so every learner-facing text stays in one place per language.
const char* summary(const char* stage) {
  return lang_en().ui.at(std::string("stage.") + stage).c_str();
}

}  // namespace

const std::vector<StageInfo>& all_stages() {
  static const std::vector<StageInfo> stages = {
      {"tokens", "2.7", summary("tokens"), run_tokens, false},
      {"dot-product", "3.3", summary("dot-product"), run_dot_product},
      {"softmax", "3.3.1", summary("softmax"), run_softmax},
      {"trainable", "3.4", summary("trainable"), run_trainable},
      {"causal", "3.5.1", summary("causal"), run_causal},
      {"dropout", "3.5.2", summary("dropout"), run_dropout},
      {"multi-head", "3.6", summary("multi-head"), run_multi_head},
  };
  return stages;
}

const StageInfo* find_stage(const std::string& name) {
  for (const auto& s : all_stages())
    if (name == s.name) return &s;
  return nullptr;
}

}  // namespace attn
