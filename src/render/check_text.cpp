#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "render/check.h"
#include "core/stage_place.h"

namespace attn {

std::string report_index(const std::vector<int64_t>& idx) {
  std::string out = "[";
  for (size_t i = 0; i < idx.size(); ++i) out += (i ? ", " : "") + std::to_string(idx[i]);
  return out + "]";
}

std::string report_value(float v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";  // 1.0 as Python writes it
  return s;
}

std::vector<ShownRow> rows_around_difference(const Tensor& t, const std::vector<int64_t>& idx) {
  const int64_t d = t.dim();
  const int64_t n = d == 0 ? 1 : t.size(-1);
  const int64_t col = d == 0 ? 0 : idx.back();
  const int64_t c0 = n <= 10 ? 0 : std::max<int64_t>(0, std::min(col - 4, n - 9));
  const int64_t c1 = std::min(n, c0 + (n <= 10 ? n : 9));
  const int64_t nrows = d >= 2 ? t.size(-2) : 1, row = d >= 2 ? idx[d - 2] : 0;
  int64_t base = 0;  // flat offset of the matrix holding the index
  for (int64_t k = 0; k + 2 < d; ++k) base = base * t.shape[k] + idx[k];
  base *= nrows * n;
  std::vector<ShownRow> rows;
  for (int64_t r = std::max<int64_t>(0, row - 1); r <= std::min(nrows - 1, row + 1); ++r) {
    ShownRow shown;
    if (d >= 2) {
      std::vector<int64_t> label(idx.begin(), idx.end());
      label[d - 2] = r;
      label.pop_back();
      shown.label = report_index(label);
      shown.label.insert(shown.label.size() - 1,
                         ", " + (c0 == 0 && c1 == n ? std::string(":") : fmt::format("{}:{}", c0, c1)));
    } else if (d == 1) {
      shown.label = c0 == 0 && c1 == n ? "[:]" : fmt::format("[{}:{}]", c0, c1);
    }
    for (int64_t c = c0; c < c1; ++c) shown.cells.push_back(static_cast<size_t>(base + r * n + c));
    rows.push_back(std::move(shown));
  }
  return rows;
}

namespace {

std::string diff_str(double d) { return std::isinf(d) ? "inf" : fmt::format("{:.3g}", d); }

std::string mark(Grade g) {
  switch (g) {
    case Grade::Equal: return "✓";
    case Grade::Close: return "≈";
    case Grade::Differs: return "✗";
    default: return "·";
  }
}

std::string grade_key(Grade g) {
  switch (g) {
    case Grade::Equal: return "check.equal";
    case Grade::Close: return "check.close";
    case Grade::Differs: return "check.differs";
    default: return "check.not_given";
  }
}

// The rows around the largest difference, from one tensor (rows_around_difference). Cells of
// `t` that are not within tolerance of `other` get a '*' when `star` is set.
std::string rows_around(const Tensor& t, const Tensor& other, const std::vector<int64_t>& idx,
                        const Tolerance& tol, bool star) {
  std::string out;
  for (const ShownRow& row : rows_around_difference(t, idx)) {
    out += fmt::format("    {:<14}", row.label);
    for (const size_t i : row.cells) {
      const bool off = star && compare(Tensor({}, {t.data[i]}), Tensor({}, {other.data[i]}), tol).grade == Grade::Differs;
      out += fmt::format(" {:>13}", report_value(t.data[i]) + (off ? "*" : " "));
    }
    out.erase(out.find_last_not_of(' ') + 1);
    out += "\n";
  }
  return out;
}

}  // namespace

std::string mistake_message(const CheckReport& r, size_t i, Lang lang) {
  const std::string step = r.first ? r.results[*r.first].name : "";
  std::map<std::string, std::string> vars = {{"step", step},
                                             {"p", fmt::format("{}", r.config.dropout)},
                                             {"seed1", std::to_string(r.config.seed1)},
                                             {"seed2", std::to_string(r.config.seed2)}};
  if (i < r.evidence.size())
    for (const auto& [k, v] : r.evidence[i]) vars[k] = v;
  // Evidence in words (the key of its text, "check.over.batch"), in this language.
  for (auto& [k, v] : vars)
    if (k != "what" && v.rfind("check.", 0) == 0) v = fill_placeholders(ui_text(lang, v), vars);
  // "what": the key of a size's name, "check.size.tokens", in brackets after the value.
  if (const auto it = vars.find("what"); it != vars.end())
    it->second = it->second.empty() ? ""
                                    : fill_placeholders(ui_text(lang, "check.aside"),
                                                        {{"text", fill_placeholders(ui_text(lang, it->second), vars)}});
  std::string message = fill_placeholders(ui_text(lang, "check.mistake." + r.diagnoses.at(i)), vars);
  // Another cause gives the very same numbers: say so, and name it.
  if (const auto it = vars.find("same_numbers_as"); it != vars.end() && !it->second.empty())
    message += fill_placeholders(ui_text(lang, "check.same_numbers"), {{"others", it->second}});
  return message;
}

std::string grad_step_note(const CheckReport& r, Lang lang);

std::string suggested_options(const CheckReport& r) {
  std::string out = r.walk_options;
  if (r.grad_step_from && out.find("--grad-step") == std::string::npos)
    out += " --grad-step " + std::to_string(r.config.train.grad_step);
  return out;
}

std::string training_setup(const CheckReport& r, Lang lang) {
  if (r.stage != "backward") return "";
  const TrainConfig& tc = r.config.train;
  return fill_placeholders(ui_text(lang, "check.training"),
                           {{"optimizer", tc.optimizer == OptimizerKind::AdamW ? "AdamW" : "SGD"},
                            {"lr", fmt::format("{}", tc.lr)},
                            {"weight_decay", fmt::format("{}", tc.weight_decay)},
                            {"steps", std::to_string(tc.steps)},
                            {"batch", std::to_string(r.config.batch)},
                            {"seed", std::to_string(r.config.seed1)},
                            {"grad_step", std::to_string(tc.grad_step)}}) +
         grad_step_note(r, lang);
}

std::string grad_step_note(const CheckReport& r, Lang lang) {
  const std::map<std::string, std::string> vars = {{"from", std::to_string(r.grad_step_from ? r.grad_step_from : r.config.train.grad_step)},
                                                   {"to", std::to_string(r.config.train.grad_step)},
                                                   {"steps", std::to_string(r.config.train.steps)},
                                                   {"step", r.first ? r.results[*r.first].name : ""}};
  if (r.grad_step_from) return " " + fill_placeholders(ui_text(lang, "check.grad_step_moved"), vars);
  if (r.ask_grad_step) return " " + fill_placeholders(ui_text(lang, "check.grad_step_ask"), vars);
  return "";
}

std::string render_check_text(const CheckReport& r, Lang lang) {
  const auto t = [&](const std::string& key, const std::map<std::string, std::string>& vars = {}) {
    return fill_placeholders(ui_text(lang, key), vars);
  };
  std::string out;
  const StagePlace* info = find_place(r.stage);
  // The language places the reason after the heading (zh: after "，" with no space).
  const std::string chosen_by = t("check.chosen_by." + r.chosen_by,
                                  {{"matched", std::to_string(r.names_matched)}, {"given", std::to_string(r.names_given)}});
  out += t("check.heading", {{"stage", r.stage}, {"section", info ? info->section : ""}, {"chosen_by", chosen_by}}) + "\n";
  out += t("check.tolerance", {{"rtol", fmt::format("{:g}", r.tol.rtol)}, {"atol", fmt::format("{:g}", r.tol.atol)}}) + "\n";
  if (const std::string setup = training_setup(r, lang); !setup.empty()) out += setup + "\n";
  out += "\n";

  size_t width = 0;
  for (const auto& s : r.results) width = std::max(width, s.name.size());
  for (const auto& s : r.results) {
    std::string line = fmt::format("{} {:<{}}  {}", mark(s.diff.grade), s.name, width, t(grade_key(s.diff.grade)));
    if (s.diff.shape_differs)
      line += " (" + t("check.shape", {{"given", shape_str(s.given_shape)}, {"expected", shape_str(s.expected_shape)}}) + ")";
    else if (s.diff.grade == Grade::Close || s.diff.grade == Grade::Differs)
      // clang-format off
      line += " (" + t("check.max_diff", {{"diff", diff_str(s.diff.max_abs_diff)},
                                         {"index", report_index(unravel(s.diff.index, s.expected_shape))}}) + ")";
    // clang-format on
    out += line + "\n";
  }

  if (!r.first) {
    size_t n = 0;
    for (const auto& s : r.results) n += s.diff.grade != Grade::NotGiven;
    out += "\n" + t("check.passed", {{"n", std::to_string(n)}}) + "\n";
    return out;
  }
  const StepGrade& s = r.results[*r.first];
  out += "\n" + t("check.first", {{"step", s.name}}) + "\n";
  if (s.diff.shape_differs) {
    out += "  " + t("check.first_shape", {{"given", shape_str(s.given_shape)}, {"expected", shape_str(s.expected_shape)}}) + "\n";
  } else {
    const auto idx = unravel(s.diff.index, s.expected_shape);
    const size_t i = static_cast<size_t>(s.diff.index);
    // clang-format off
    out += "  " + t("check.first_at", {{"index", report_index(idx)}, {"diff", diff_str(s.diff.max_abs_diff)},
                                      {"expected", report_value(r.expected.data[i])}, {"got", report_value(r.got.data[i])}}) + "\n";
    // clang-format on
    out += "  " + t("check.expected_rows") + "\n" + rows_around(r.expected, r.got, idx, r.tol, false);
    out += "  " + t("check.your_rows") + "\n" + rows_around(r.got, r.expected, idx, r.tol, true);
  }
  // The walk's own checks, on the learner's tensor: which of the chapter's properties it lost.
  for (const auto& c : r.own_checks)
    out += "  " + mark(c.passed ? Grade::Equal : Grade::Differs) + " " +
           t("check.own." + c.id, {{"step", s.name}, {"diff", diff_str(c.max_diff)}}) + "\n";
  out += "\n" + t("check.diagnoses") + "\n";
  // No rows are shown for a shape that differs: then the shape is what to compare.
  if (r.diagnoses.empty())
    // clang-format off
    out += "  " + t(s.diff.shape_differs ? "check.no_diagnosis_shape" : "check.no_diagnosis",
                    {{"step", s.name}, {"stage", r.stage}, {"options", suggested_options(r)}}) + "\n";
  // clang-format on
  for (size_t i = 0; i < r.diagnoses.size(); ++i)
    out += "  " + r.diagnoses[i] + ": " + mistake_message(r, i, lang) + "\n";
  return out;
}

}  // namespace attn
