#include <cmath>
#include <nlohmann/json.hpp>

#include "render/check.h"
#include "render/json_config.h"

namespace attn {

namespace {

// A float as JSON, with inf/-inf/nan as strings (the walk's JSON convention).
nlohmann::ordered_json number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

}  // namespace

std::string render_check_json(const CheckReport& r, Lang lang, const ConfigRecord& config) {
  const Config& c = r.config;
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  for (const auto& s : r.results) {
    nlohmann::ordered_json e = {{"name", s.name}, {"status", to_string(s.diff.grade)}, {"max_abs_diff", nullptr}};
    if (s.diff.grade != Grade::NotGiven && !s.diff.shape_differs) e["max_abs_diff"] = number(s.diff.max_abs_diff);
    if (s.diff.shape_differs) {
      e["shape"] = s.given_shape;
      e["expected_shape"] = s.expected_shape;
    }
    results.push_back(e);
  }
  nlohmann::ordered_json first = nullptr;
  if (r.first) {
    const StepGrade& s = r.results[*r.first];
    first = {{"name", s.name}, {"max_abs_diff", nullptr}, {"index", nullptr}, {"expected", nullptr}, {"got", nullptr}};
    if (s.diff.shape_differs) {
      first["shape"] = s.given_shape;
      first["expected_shape"] = s.expected_shape;
    } else {
      const size_t i = static_cast<size_t>(s.diff.index);
      first["max_abs_diff"] = number(s.diff.max_abs_diff);
      first["index"] = unravel(s.diff.index, s.expected_shape);
      first["expected"] = number(r.expected.data[i]);
      first["got"] = number(r.got.data[i]);
    }
  }
  nlohmann::ordered_json diagnoses = nlohmann::ordered_json::array();
  for (size_t i = 0; i < r.diagnoses.size(); ++i)
    diagnoses.push_back({{"id", r.diagnoses[i]},
                         {"step", r.results[*r.first].name},
                         {"message", mistake_message(r, i, lang)},
                         {"evidence", i < r.evidence.size() ? r.evidence[i] : std::map<std::string, std::string>{}}});
  if (r.first) {
    nlohmann::ordered_json own = nlohmann::ordered_json::array();
    for (const auto& c : r.own_checks)
      own.push_back({{"id", c.id}, {"passed", c.passed}, {"max_diff", number(c.max_diff)}});
    first["own_checks"] = own;
  }
  const nlohmann::ordered_json doc = {
      {"tool", "attn-walk"},
      {"version", ATTN_WALK_VERSION},
      {"command", "check"},
      {"stage", r.stage},
      {"stage_chosen_by", r.chosen_by},
      // The walk's config object (json, sorted keys) carried into this ordered document.
      {"config", nlohmann::ordered_json::parse(config_json(config).dump())},
      {"tolerance", {{"rtol", r.tol.rtol}, {"atol", r.tol.atol}}},
      // --stage backward: the loop graded against (null for the other stages).
      {"training", r.stage != "backward" ? nlohmann::ordered_json()
                                         : nlohmann::ordered_json{
                                               {"optimizer", to_string(c.train.optimizer)},
                                               {"lr", c.train.lr},
                                               {"weight_decay", c.train.weight_decay},
                                               {"steps", c.train.steps},
                                               {"batch", c.batch},
                                               {"seed", c.seed1},
                                               {"grad_step", c.train.grad_step},
                                               {"grad_step_from", r.grad_step_from ? nlohmann::ordered_json(r.grad_step_from) : nlohmann::ordered_json()},
                                               {"ask_grad_step", r.ask_grad_step},
                                               {"text", training_setup(r, lang)}}},
      {"results", results},
      {"first_difference", first},
      {"diagnoses", diagnoses}};
  return doc.dump(2) + "\n";
}

}  // namespace attn
