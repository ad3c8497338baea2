#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <variant>
#include <nlohmann/json.hpp>

#include "render/details.h"
#include "render/json_config.h"
#include "render/render.h"
#include "core/role_name.h"
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

// --format json-compact: a step with a dimension of GPT-2's vocabulary (--text's tok_emb and
// out_head tables, their gradients, the logits) keeps only the entries at the text's ids along
// it, and counts and digests the rest (docs/json-schema.md, "json-compact").
constexpr int64_t kVocabRows = 50257;  // text::vocab_size(), which render does not include

uint64_t fnv1a64_add(uint64_t h, float v) {
  unsigned char bytes[4];
  std::memcpy(bytes, &v, 4);  // little-endian on every machine this builds for
  for (const unsigned char b : bytes) h = (h ^ b) * 0x100000001b3ULL;
  return h;
}

// The vocabulary's axis of a step (0 or its last), or -1.
int vocab_axis(const Step& step) {
  if (std::holds_alternative<WordsPayload>(step.payload) || step.summarized || step.value.dim() == 0) return -1;
  if (step.value.shape.front() == kVocabRows) return 0;
  if (step.value.shape.back() == kVocabRows) return static_cast<int>(step.value.dim()) - 1;
  return -1;
}

// The step's entries at `ids` along `axis` (a tensor of that shape with ids.size() there),
// and the count, digest (FNV-1a 64 of their float32 bytes, little-endian, in row-major
// order) and whether all are zero of the others.
Tensor compact_part(const Tensor& t, int axis, const std::vector<int64_t>& ids, nlohmann::json& rest) {
  Shape shape = t.shape;
  shape[static_cast<size_t>(axis)] = static_cast<int64_t>(ids.size());
  Tensor kept = Tensor::zeros(shape);
  std::vector<int64_t> slot(static_cast<size_t>(kVocabRows), -1);  // id -> its place in ids
  for (size_t i = 0; i < ids.size(); ++i) slot[static_cast<size_t>(ids[i])] = static_cast<int64_t>(i);
  // Row-major: the vocabulary's axis splits the data into (outer, V, inner).
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= t.shape[static_cast<size_t>(d)];
  for (size_t d = static_cast<size_t>(axis) + 1; d < t.shape.size(); ++d) inner *= t.shape[d];
  uint64_t h = 0xcbf29ce484222325ULL;
  int64_t count = 0;
  bool all_zero = true;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t v = 0; v < kVocabRows; ++v) {
      const float* src = t.data.data() + (o * kVocabRows + v) * inner;
      if (const int64_t s = slot[static_cast<size_t>(v)]; s >= 0) {
        std::copy(src, src + inner, kept.data.begin() + (o * static_cast<int64_t>(ids.size()) + s) * inner);
        continue;
      }
      for (int64_t k = 0; k < inner; ++k) {
        h = fnv1a64_add(h, src[k]);
        all_zero = all_zero && src[k] == 0.0f;
      }
      count += inner;
    }
  rest = {{"count", count}, {"fnv1a64", fmt::format("{:016x}", h)}, {"all_zero", all_zero}};
  return kept;
}

void append_steps(std::string& out, const Walk& walk, bool with_stage, bool& first, bool compact) {
  // The text's distinct ids, ascending: the entries json-compact keeps.
  std::vector<int64_t> ids = walk.config.token_ids;
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  for (const auto& step : walk.steps) {
    out += first ? "\n  " : ",\n  ";
    first = false;
    const auto* words = std::get_if<WordsPayload>(&step.payload);
    nlohmann::json meta = {{"name", step.name},
                           {"title", step.title},
                           {"shape", words ? Shape{static_cast<int64_t>(words->words.size())} : step.value.shape},
                           {"parameter", step.role == Role::Parameter},
                           {"role", role_name(step.role)},
                           {"suffixes", step.suffixes},
                           {"printed", printed_step(step)}};
    if (with_stage) meta["stage"] = walk.stage;
    if (!step.explanation.empty()) meta["explanation"] = step.explanation;
    if (const auto details = detail_lines(step); !details.empty()) meta["details"] = details;
    if (!step.head_groups.empty()) meta["head_groups"] = step.head_groups;  // head h reads group head_groups[h]
    if (step.is_int64) meta["int64"] = true;
    if (step.role == Role::Series) meta["series"] = true;
    if (words) meta["data"] = words->words;  // the text, or its pieces
    const int axis = compact && !ids.empty() ? vocab_axis(step) : -1;
    Tensor kept;
    if (axis >= 0) {
      nlohmann::json rest;
      kept = compact_part(step.value, axis, ids, rest);
      meta["compact"] = {{"axis", axis}, {"ids", ids}, {"rest", rest}};
    }
    std::string m = meta.dump();
    m.pop_back();
    if (!words) {
      out += m + ", \"data\": ";
      int64_t pos = 0;
      append_data(out, axis >= 0 ? kept : step.value, 0, pos, step.is_int64);
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

nlohmann::json config_json(const ConfigRecord& record) {
  nlohmann::json config = nlohmann::json::object();
  for (const auto& [key, value] : record) {
    // "train.lr" is config["train"]["lr"]
    nlohmann::json* at = &config;
    size_t start = 0;
    for (size_t dot; (dot = key.find('.', start)) != std::string::npos; start = dot + 1)
      at = &(*at)[key.substr(start, dot - start)];
    (*at)[key.substr(start)] = std::visit([](const auto& v) { return nlohmann::json(v); }, value);
  }
  return config;
}

std::string render_json(const std::vector<Walk>& walks, bool compact) {
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
                         {"config", config_json(first_walk.config_record)},
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
  for (const auto& w : walks) append_steps(out, w, several, first, compact);
  out += "\n]}\n";
  return out;
}

}  // namespace attn
