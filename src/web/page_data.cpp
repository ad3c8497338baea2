#include "web/page_data.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>

#include "input/embeddings.h"
#include "lang/lang.h"
#include "request/option_table.h"
#include "stages/stages.h"
#include "web/walk_values.h"

namespace attn {

namespace {

using nlohmann::json;

// Embeddings as the JSON input form. Each float as its shortest decimal, which reads back
// as the same float32.
json input_json(const std::vector<std::string>& tokens, const Tensor& inputs) {
  json rows = json::array();
  const int64_t T = inputs.size(0), D = inputs.size(1);
  for (int64_t i = 0; i < T; ++i) {
    json row = json::array();
    for (int64_t j = 0; j < D; ++j)
      row.push_back(json::parse(fmt::format("{}", inputs.data[static_cast<size_t>(i * D + j)])));
    rows.push_back(row);
  }
  return {{"tokens", tokens}, {"embeddings", rows}};
}

// The --stage that walks these: one stage's name, or the group of several ("all", "bonus").
std::string stage_of(const std::vector<Walk>& walks) {
  if (walks.size() == 1) return walks[0].stage;
  for (const char* group : {"all", "bonus"}) {
    const bool all_in = std::all_of(walks.begin(), walks.end(), [&](const Walk& w) {
      const StageInfo* info = find_stage(w.stage);
      return info && stage_selected(*info, group);
    });
    if (all_in) return group;
  }
  return "all";
}

// The options a walk was made with, by the CLI's long names; only those that differ from
// the defaults, as the page's URL fragment writes them. Each option's Config or RenderOptions
// field is read back by its row of the option table; the stage is the walks' own.
json state_of(const std::vector<Walk>& walks, const RenderOptions& ro) {
  json s = json::object();
  if (walks.empty()) return s;
  const Config& c = walks[0].config;
  const Config config_defaults;
  const RenderOptions render_defaults;
  s["stage"] = stage_of(walks);
  for (const OptionRow& row : option_table()) {
    if (row.from_config && row.from_config(c) != row.from_config(config_defaults))
      s[row.long_name()] = row.from_config(c);
    if (row.from_render && row.from_render(ro) != row.from_render(render_defaults))
      s[row.long_name()] = row.from_render(ro);
  }
  return s;
}

}  // namespace

std::string page_data_json(const std::vector<Walk>& walks, const RenderOptions& ro, bool engine) {
  json options = json::array();
  for (const auto& o : json::parse(options_json()))  // help, version and not_on_page() rows stay off
    if (o.value("on_page", false)) options.push_back(o);
  json stages = json::array();
  for (const auto& s : all_stages()) {
    json stage = {{"name", s.name}, {"section", s.section}};
    // --stage gpt walks a trained model: the page offers it once the learner has opened a
    // weights file (its picker, src/render/page/weights.js), and warms it up with none.
    if (std::string(s.name) == "gpt") stage["needs"] = "weights";
    stages.push_back(stage);
  }
  json texts = json::object();
  for (const LangTable* t : languages()) {
    json words = json::object();
    for (const auto& [key, text] : t->ui)
      if (key.rfind("web.", 0) == 0) words[key] = text;
    texts[t->code] = words;
  }
  const Embeddings journey = builtin_journey();
  json data = {{"options", options},
               {"stages", stages},
               {"langs", lang_codes()},
               {"texts", texts},
               {"default_input", input_json(journey.tokens, journey.inputs)},
               {"engine", engine},
               {"state", state_of(walks, ro)},
               {"values", walk_values(walks)},  // the values the walk used, for the boxes (issue 42)
               {"input", nullptr}};
  // A CLI page restores its own input in the controls, when it is small enough to edit; a
  // text is in the state (--text), and the page makes its embeddings again.
  if (!walks.empty() && walks[0].config.input_name != "<built-in>" && walks[0].config.text.empty() &&
      walks[0].config.inputs.numel() <= 4096)
    data["input"] = input_json(walks[0].config.tokens, walks[0].config.inputs);
  // Tokens may hold invalid UTF-8 (the HTML cleans them the same way: U+FFFD).
  return data.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace attn
