#include "core/stage_place.h"

namespace attn {

const std::vector<StagePlace>& stage_places() {
  static const std::vector<StagePlace> places = {
      {"tokens", "2.7", StageGroup::Chapter, false},
      {"dot-product", "3.3"},
      {"softmax", "3.3.1"},
      {"trainable", "3.4"},
      {"causal", "3.5.1"},
      {"dropout", "3.5.2–3.5.3"},
      {"multi-head", "3.6"},

      // ---- bonus: beyond chapter 3, in the order --stage bonus walks them ----
      // the bonus notebook and the KV cache (efficient, kv-cache, gqa):
      {"efficient", "ch03/02_bonus", StageGroup::Bonus},
      {"kv-cache", "ch04/03_kv-cache", StageGroup::Bonus},
      {"gqa", "ch04/04_gqa", StageGroup::Bonus},
      // the modern variants (swa, rope, flash, mla):
      {"swa", "ch04/06_swa", StageGroup::Bonus},
      {"rope", "llama3.py", StageGroup::Bonus},
      {"flash", "online softmax", StageGroup::Bonus},
      {"mla", "ch04/05_mla", StageGroup::Bonus},

      // ---- training: how attention learns (not part of --stage all or bonus) ----
      {"backward", "ch05 + ch03", StageGroup::Training, false},

      // ---- chapter 4: GPTModel on trained weights (--weights; walked only by its own name) ----
      {"gpt", "4.6", StageGroup::Chapter, false},
  };
  return places;
}

const StagePlace* find_place(const std::string& name) {
  for (const auto& p : stage_places())
    if (name == p.name) return &p;
  return nullptr;
}

bool stage_selected(const StagePlace& s, const std::string& choice) {
  if (choice == "all") return s.group == StageGroup::Chapter && s.in_all;
  if (choice == "bonus") return s.group == StageGroup::Bonus;
  return choice == s.name;
}

const char* section_text_key(const StagePlace& s) {
  if (s.group == StageGroup::Bonus) return "bonus_section";
  if (s.group == StageGroup::Training) return "training_section";
  // "sections 3.5.2–3.5.3" for a range.
  return std::string(s.section).find("–") == std::string::npos ? "section" : "sections";
}

const std::vector<EnumName<StageChoice>>& enum_names(StageChoice) {
  using S = StageChoice;
  static const std::vector<EnumName<StageChoice>> names = {
      // clang-format off
      {"tokens", S::Tokens},       {"dot-product", S::DotProduct}, {"softmax", S::Softmax}, {"trainable", S::Trainable},
      {"causal", S::Causal},       {"dropout", S::Dropout},        {"multi-head", S::MultiHead},
      {"efficient", S::Efficient}, {"kv-cache", S::KvCache},       {"gqa", S::Gqa},         {"swa", S::Swa},
      {"rope", S::Rope},           {"flash", S::Flash},            {"mla", S::Mla},
      {"backward", S::Backward},   {"gpt", S::Gpt},
      {"all", S::All},             {"bonus", S::Bonus}};
  // clang-format on
  return names;
}

bool parse_stage_choice(const std::string& name, StageChoice* choice) {
  for (const auto& n : enum_names(StageChoice{}))
    if (name == n.name) {
      *choice = n.value;
      return true;
    }
  return false;
}

}  // namespace attn
