#include "stages/stages.h"

#include <fmt/format.h>

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
  if (cfg.d_out % cfg.heads == 0) return "";
  return fmt::format("--heads: MultiHeadAttention needs --d-out divisible by --heads, got d_out {} and {} heads",
                     cfg.d_out, cfg.heads);
}

const std::vector<StageInfo>& all_stages() {
  static const std::vector<StageInfo> stages = {
      {"tokens", "2.7", summary("tokens"), run_tokens, StageGroup::Chapter, nullptr, false},
      {"dot-product", "3.3", summary("dot-product"), run_dot_product},
      {"softmax", "3.3.1", summary("softmax"), run_softmax},
      {"trainable", "3.4", summary("trainable"), run_trainable},
      {"causal", "3.5.1", summary("causal"), run_causal},
      {"dropout", "3.5.2–3.5.3", summary("dropout"), run_dropout},
      {"multi-head", "3.6", summary("multi-head"), run_multi_head, StageGroup::Chapter, multi_head_misuse},

      // ---- bonus: beyond chapter 3, in the order --stage bonus walks them ----
      // the bonus notebook and the KV cache (efficient, kv-cache, gqa):
      {"efficient", "ch03/02_bonus", summary("efficient"), run_efficient, StageGroup::Bonus, bonus_heads_misuse},
      {"kv-cache", "ch04/03_kv-cache", summary("kv-cache"), run_kv_cache, StageGroup::Bonus, bonus_heads_misuse},
      {"gqa", "ch04/04_gqa", summary("gqa"), run_gqa, StageGroup::Bonus, gqa_misuse},

      // the modern variants (swa, rope, flash, mla):
      {"swa", "ch04/06_swa", summary("swa"), run_swa, StageGroup::Bonus, bonus_heads_misuse},
      {"rope", "llama3.py", summary("rope"), run_rope, StageGroup::Bonus, rope_misuse},
      {"flash", "online softmax", summary("flash"), run_flash, StageGroup::Bonus, flash_misuse},
      {"mla", "ch04/05_mla", summary("mla"), run_mla, StageGroup::Bonus, bonus_heads_misuse},

      // ---- training: how attention learns (not part of --stage all or bonus) ----
      {"backward", "ch05 + ch03", summary("backward"), run_backward, StageGroup::Training, backward_misuse, false},

  };
  return stages;
}

bool stage_selected(const StageInfo& s, const std::string& choice) {
  if (choice == "all") return s.group == StageGroup::Chapter && s.in_all;
  if (choice == "bonus") return s.group == StageGroup::Bonus;
  return choice == s.name;
}

const char* section_text_key(const StageInfo& s) {
  if (s.group == StageGroup::Bonus) return "bonus_section";
  if (s.group == StageGroup::Training) return "training_section";
  // "sections 3.5.2–3.5.3" for a range.
  return std::string(s.section).find("–") == std::string::npos ? "section" : "sections";
}

const StageInfo* find_stage(const std::string& name) {
  for (const auto& s : all_stages())
    if (name == s.name) return &s;
  return nullptr;
}

}  // namespace attn
