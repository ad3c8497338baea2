// The names of the request's closed sets (walk_request.h).
#include "request/walk_request.h"

namespace attn {

const std::vector<EnumName<Format>>& enum_names(Format) {
  static const std::vector<EnumName<Format>> names = {
      {"text", Format::Text}, {"json", Format::Json}, {"json-compact", Format::JsonCompact}, {"html", Format::Html}};
  return names;
}

const std::vector<EnumName<HeatmapScale>>& enum_names(HeatmapScale) {
  static const std::vector<EnumName<HeatmapScale>> names = {{"fixed", HeatmapScale::Fixed},
                                                            {"matrix", HeatmapScale::Matrix}};
  return names;
}

const std::vector<EnumName<ColorMode>>& enum_names(ColorMode) {
  static const std::vector<EnumName<ColorMode>> names = {
      {"auto", ColorMode::Auto}, {"always", ColorMode::Always}, {"never", ColorMode::Never}};
  return names;
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

bool stage_selected(const StagePlace& s, StageChoice choice) { return stage_selected(s, enum_name(choice)); }

}  // namespace attn
