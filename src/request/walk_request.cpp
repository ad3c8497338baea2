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

bool stage_selected(const StagePlace& s, StageChoice choice) { return stage_selected(s, enum_name(choice)); }

}  // namespace attn
