#include "web/page_data.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <set>

#include "cli/cli.h"
#include "input/embeddings.h"
#include "stages/stages.h"

namespace attn {

namespace {

using nlohmann::json;

// Options that choose how or where to write, not what the walk computes: not on the page.
const std::set<std::string> kNotOnPage = {"help", "version", "input", "random-input", "format", "output",
                                          "list-stages", "list-steps", "only", "explain", "heatmap",
                                          "color", "step", "stats"};

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

// The options a walk was made with, by the CLI's long names; only those that differ from
// the defaults, as the page's URL fragment writes them.
json state_of(const std::vector<Walk>& walks, Lang lang) {
  json s = json::object();
  if (walks.empty()) return s;
  const Config& c = walks[0].config;
  const Config d;
  s["stage"] = walks.size() > 1 ? "all" : walks[0].stage;
  if (c.seed1 != d.seed1 || c.seed2 != d.seed2) s["seed"] = std::to_string(c.seed1);
  if (c.query != d.query) s["query"] = std::to_string(c.query);
  if (c.d_out != d.d_out) s["d-out"] = std::to_string(c.d_out);
  if (c.heads != d.heads) s["heads"] = std::to_string(c.heads);
  if (c.dropout != d.dropout) s["dropout"] = fmt::format("{}", c.dropout);
  if (c.attn_dropout != d.attn_dropout) s["attn-dropout"] = fmt::format("{}", c.attn_dropout);
  if (c.batch != d.batch) s["batch"] = std::to_string(c.batch);
  if (c.qkv_bias) s["qkv-bias"] = "1";
  if (c.init != d.init) s["init"] = to_string(c.init);
  if (c.dropout_rng != d.dropout_rng) s["dropout-rng"] = to_string(c.dropout_rng);
  if (c.causal_softmax.dim != d.causal_softmax.dim) s["softmax-dim"] = std::to_string(c.causal_softmax.dim);
  if (c.causal_softmax.torch_threads != d.causal_softmax.torch_threads)
    s["torch-threads"] = std::to_string(c.causal_softmax.torch_threads);
  // The bonus stages' knobs (their --d-out and --heads are the chapter's, above).
  const BonusConfig &b = c.bonus, &bd = d.bonus;
  if (b.kv_groups != bd.kv_groups) s["kv-groups"] = std::to_string(b.kv_groups);
  if (b.window != bd.window) s["window"] = std::to_string(b.window);
  if (b.rope_base != bd.rope_base) s["rope-base"] = fmt::format("{}", b.rope_base);
  if (b.block != bd.block) s["block"] = std::to_string(b.block);
  if (b.latent_dim != bd.latent_dim) s["latent-dim"] = std::to_string(b.latent_dim);
  if (lang != Lang::En) s["lang"] = lang_table(lang).code;
  return s;
}

}  // namespace

std::string page_data_json(const std::vector<Walk>& walks, Lang lang, bool engine) {
  json options = json::array();
  for (const auto& o : json::parse(options_json()))
    if (!kNotOnPage.count(o["name"].get<std::string>())) options.push_back(o);
  json stages = json::array();
  for (const auto& s : all_stages()) stages.push_back({{"name", s.name}, {"section", s.section}});
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
               {"state", state_of(walks, lang)},
               {"input", nullptr}};
  // A CLI page restores its own input in the controls, when it is small enough to edit.
  if (!walks.empty() && walks[0].config.input_name != "<built-in>" &&
      walks[0].config.inputs.numel() <= 4096)
    data["input"] = input_json(walks[0].config.tokens, walks[0].config.inputs);
  // Tokens may hold invalid UTF-8 (the HTML cleans them the same way: U+FFFD).
  return data.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace attn
