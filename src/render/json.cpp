#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "render/details.h"
#include "render/json_config.h"
#include "render/render.h"
#include "core/stage_place.h"

namespace attn {

namespace {

// One float as JSON: the shortest decimal that reads back as the same double
// (what Python's json.dumps prints for tensor.tolist()); non-finite values as strings.
void append_number(std::string& out, float v, bool int64) {
  if (int64) fmt::format_to(std::back_inserter(out), "{}", static_cast<int64_t>(v));
  else if (std::isnan(v)) out += "\"nan\"";
  else if (std::isinf(v)) out += v > 0 ? "\"inf\"" : "\"-inf\"";
  else {
    const size_t start = out.size();
    fmt::format_to(std::back_inserter(out), "{}", static_cast<double>(v));
    // Python writes whole floats as "2.0" and "-0.0"; a bare "2" or "-0" would read back as
    // an integer, and -0.0 would lose its sign.
    if (out.find_first_of(".en", start) == std::string::npos) out += ".0";
  }
}

// Nested lists that match the shape. Written by hand rather than through a JSON DOM,
// so a (2, 12, 1024, 1024) tensor streams out without a node per number.
void append_data(std::string& out, const Tensor& t, size_t dim, int64_t& pos, bool int64) {
  if (dim == t.shape.size()) {
    append_number(out, t.data[static_cast<size_t>(pos++)], int64);
    return;
  }
  out += '[';
  for (int64_t i = 0; i < t.shape[dim]; ++i) {
    if (i) out += ", ";
    append_data(out, t, dim + 1, pos, int64);
  }
  out += ']';
}

void append_steps(std::string& out, const Walk& walk, bool with_stage, bool& first) {
  for (const auto& step : walk.steps) {
    out += first ? "\n  " : ",\n  ";
    first = false;
    nlohmann::json meta = {{"name", step.name},
                           {"title", step.title},
                           {"shape", step.words.empty() ? step.value.shape : Shape{static_cast<int64_t>(step.words.size())}},
                           {"parameter", step.is_parameter},
                           {"suffixes", step.suffixes},
                           {"printed", printed_step(step)}};
    if (with_stage) meta["stage"] = walk.stage;
    if (!step.explanation.empty()) meta["explanation"] = step.explanation;
    if (const auto details = detail_lines(step); !details.empty()) meta["details"] = details;
    if (!step.head_groups.empty()) meta["head_groups"] = step.head_groups;  // head h reads group head_groups[h]
    if (step.is_int64) meta["int64"] = true;
    if (step.series) meta["series"] = true;
    if (!step.words.empty()) meta["data"] = step.words;  // the text, or its pieces
    std::string m = meta.dump();
    m.pop_back();
    if (step.words.empty()) {
      out += m + ", \"data\": ";
      int64_t pos = 0;
      append_data(out, step.value, 0, pos, step.is_int64);
    } else {
      out += m;
    }
    out += "}";
  }
}

nlohmann::json checks_json(const std::vector<Walk>& walks) {
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& w : walks)
    for (const auto& c : w.checks)
      checks.push_back({{"id", c.id},
                        {"stage", w.stage},
                        {"after_step", c.after_step >= 1 && c.after_step <= w.steps.size()
                                           ? w.steps[c.after_step - 1].name
                                           : std::string()},
                        {"label", c.label},
                        {"passed", c.passed},
                        {"max_diff", c.max_diff}});
  return checks;
}

}  // namespace

nlohmann::json config_json(const Config& c) {
  return {{"input", c.input_name},
          {"num_tokens", c.num_tokens()},
          {"d_in", c.d_in()},
          {"query", c.query},
          {"seed1", c.seed1},
          {"seed2", c.seed2},
          {"d_out", c.d_out},
          {"heads", c.heads},
          {"dropout", c.dropout},
          {"attn_dropout", c.attn_dropout},
          {"batch", c.batch},
          {"qkv_bias", c.qkv_bias},
          {"init", to_string(c.init)},
          {"dropout_rng", to_string(c.dropout_rng)},
          {"blas_kernel", c.blas_kernel_used},
          {"blas_threads", c.blas_threads},
          {"softmax_dim", c.causal_softmax.dim},
          {"torch_threads", c.causal_softmax.torch_threads},
          {"bonus", {{"d_out", c.bonus.d_out},
                     {"heads", c.bonus.heads},
                     {"kv_groups", c.bonus.kv_groups},
                     {"window", c.bonus.window},
                     {"rope_base", c.bonus.rope_base},
                     {"block", c.bonus.block}}},
          {"train", {{"steps", c.train.steps},
                     {"lr", c.train.lr},
                     {"weight_decay", c.train.weight_decay},
                     {"optimizer", to_string(c.train.optimizer)}}}};
}

std::string render_json(const std::vector<Walk>& walks) {
  const Walk& first_walk = walks.front();
  const bool several = walks.size() > 1;
  std::vector<std::string> notes;
  for (const auto& w : walks)  // once each: the bonus stages share a note
    for (const auto& n : w.notes)
      if (std::find(notes.begin(), notes.end(), n) == notes.end()) notes.push_back(n);
  const StagePlace* first_info = find_place(first_walk.stage);
  const bool bonus = first_info && first_info->group == StageGroup::Bonus;
  nlohmann::json head = {{"tool", "attn-walk"},
                         {"version", ATTN_WALK_VERSION},
                         {"stage", several ? std::string(bonus ? "bonus" : "all") : first_walk.stage},
                         {"config", config_json(first_walk.config)},
                         {"tokens", first_walk.config.tokens},
                         {"notes", notes},
                         {"checks", checks_json(walks)}};
  if (!first_walk.config.token_ids.empty()) {  // --text
    head["text"] = first_walk.config.text;
    head["pieces"] = first_walk.config.tokens;
    head["token_ids"] = first_walk.config.token_ids;
  }
  std::string out = head.dump();
  out.pop_back();  // reopen the object to append the steps
  out += ", \"steps\": [";
  bool first = true;
  for (const auto& w : walks) append_steps(out, w, several, first);
  out += "\n]}\n";
  return out;
}

}  // namespace attn
