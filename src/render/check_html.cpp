// attn-walk check --format html: the CheckReport as a self-contained fragment (check_html.h).
// The words are the text report's (src/lang/check_*.cpp) and a few headings of its own
// (check_html_*.cpp); the numbers are formatted as the text report formats them.
#include "render/check_html.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/stage_place.h"
#include "render/check.h"
#include "render/render.h"

namespace attn {

namespace {

// The fragment's own style, scoped to its class so that it changes nothing around it.
constexpr const char* kCheckHtmlStyle =
    ".attn-walk-check{font-family:system-ui,sans-serif;line-height:1.4;max-width:60em}"
    ".attn-walk-check table{border-collapse:collapse;margin:.4em 0}"
    ".attn-walk-check td,.attn-walk-check th{padding:.1em .6em;text-align:left}"
    ".attn-walk-check td.num{text-align:right}"
    ".attn-walk-check tr.differs td,.attn-walk-check td.off{color:#b00020}"
    ".attn-walk-check tr.not-given td{opacity:.55}"
    ".attn-walk-check .verdict{font-weight:bold}"
    ".attn-walk-check .verdict.ok{color:#1b7a33}"
    ".attn-walk-check .verdict.differs{color:#b00020}"
    ".attn-walk-check ul.own-checks{list-style:none;padding-left:1em}"
    ".attn-walk-check code,.attn-walk-check td.num{font-family:monospace;font-size:1.05em}";

const char* check_html_mark(Grade g) {
  switch (g) {
    case Grade::Equal: return "✓";
    case Grade::Close: return "≈";
    case Grade::Differs: return "✗";
    default: return "·";
  }
}

// The class of a step's row, and the key of its grade's word.
const char* check_html_class(Grade g) {
  switch (g) {
    case Grade::Equal: return "equal";
    case Grade::Close: return "close";
    case Grade::Differs: return "differs";
    default: return "not-given";
  }
}

std::string check_html_diff(double d) { return std::isinf(d) ? "inf" : fmt::format("{:.3g}", d); }

// The rows around the largest difference, from `t` (rows_around_difference), as table rows.
// Cells of `t` not within tolerance of `other` get class "off" and a '*' when `mark_off` is set.
std::string check_html_rows(const Tensor& t, const Tensor& other, const std::vector<int64_t>& idx,
                            const Tolerance& tol, bool mark_off) {
  std::string out;
  for (const ShownRow& row : rows_around_difference(t, idx)) {
    out += "<tr><th>" + html_escape(row.label) + "</th>";
    for (const size_t i : row.cells) {
      const bool off = mark_off && compare(Tensor({}, {t.data[i]}), Tensor({}, {other.data[i]}), tol).grade == Grade::Differs;
      out += std::string("<td class=\"num") + (off ? " off" : "") + "\">" + report_value(t.data[i]) +
             (off ? "*" : "") + "</td>";
    }
    out += "</tr>\n";
  }
  return out;
}

}  // namespace

std::string render_check_html(const CheckReport& r, Lang lang) {
  const auto t = [&](const std::string& key, const std::map<std::string, std::string>& vars = {}) {
    return html_escape(fill_placeholders(ui_text(lang, key), vars));
  };
  const std::string code = lang_table(lang).code;
  std::string out = "<div class=\"attn-walk-check\" lang=\"" + html_escape(code) + "\" data-stage=\"" +
                    html_escape(r.stage) + "\">\n<style>" + kCheckHtmlStyle + "</style>\n";
  const StagePlace* place = find_place(r.stage);
  const std::string chosen_by = fill_placeholders(
      ui_text(lang, "check.chosen_by." + r.chosen_by),
      {{"matched", std::to_string(r.names_matched)}, {"given", std::to_string(r.names_given)}});
  out += "<p class=\"heading\">" +
         t("check.heading", {{"stage", r.stage}, {"section", place ? place->section : ""}, {"chosen_by", chosen_by}}) +
         "<br>" + t("check.tolerance", {{"rtol", fmt::format("{:g}", r.tol.rtol)}, {"atol", fmt::format("{:g}", r.tol.atol)}}) +
         (r.stage == "backward" ? "<br><span class=\"training\">" + html_escape(training_setup(r, lang)) + "</span>" : "") +
         "</p>\n";

  // The verdict first: what a learner looks for.
  size_t given = 0;
  for (const auto& s : r.results) given += s.diff.grade != Grade::NotGiven;
  if (r.first)
    out += "<p class=\"verdict differs\" data-first-step=\"" + html_escape(r.results[*r.first].name) + "\">✗ " +
           t("check.first", {{"step", r.results[*r.first].name}}) + "</p>\n";
  else
    out += "<p class=\"verdict ok\">✓ " + t("check.passed", {{"n", std::to_string(given)}}) + "</p>\n";

  out += "<table class=\"steps\">\n<tr><th></th><th>" + t("check_html.step") + "</th><th>" + t("check_html.grade") +
         "</th><th>" + t("check_html.difference") + "</th></tr>\n";
  for (const auto& s : r.results) {
    std::string detail;
    if (s.diff.shape_differs)
      detail = t("check.shape", {{"given", shape_str(s.given_shape)}, {"expected", shape_str(s.expected_shape)}});
    else if (s.diff.grade == Grade::Close || s.diff.grade == Grade::Differs)
      detail = t("check.max_diff", {{"diff", check_html_diff(s.diff.max_abs_diff)},
                                    {"index", report_index(unravel(s.diff.index, s.expected_shape))}});
    out += fmt::format("<tr class=\"{}\" data-step=\"{}\"><td class=\"mark\">{}</td><td><code>{}</code></td><td>{}</td><td>{}</td></tr>\n",
                       check_html_class(s.diff.grade), html_escape(s.name), check_html_mark(s.diff.grade),
                       html_escape(s.name), t(std::string("check.") + (s.diff.grade == Grade::NotGiven ? "not_given" : to_string(s.diff.grade))),
                       detail);
  }
  out += "</table>\n";
  if (!r.first) return out + "</div>\n";

  const StepGrade& s = r.results[*r.first];
  out += "<div class=\"first-difference\">\n";
  if (s.diff.shape_differs) {
    out += "<p>" + t("check.first_shape", {{"given", shape_str(s.given_shape)}, {"expected", shape_str(s.expected_shape)}}) + "</p>\n";
  } else {
    const auto idx = unravel(s.diff.index, s.expected_shape);
    const size_t i = static_cast<size_t>(s.diff.index);
    // clang-format off
    out += "<p>" + t("check.first_at", {{"index", report_index(idx)}, {"diff", check_html_diff(s.diff.max_abs_diff)},
                                         {"expected", report_value(r.expected.data[i])}, {"got", report_value(r.got.data[i])}}) +
           "</p>\n";
    // clang-format on
    out += "<p>" + t("check.expected_rows") + "</p>\n<table class=\"rows expected\">\n" +
           check_html_rows(r.expected, r.got, idx, r.tol, false) + "</table>\n";
    out += "<p>" + t("check.your_rows") + "</p>\n<table class=\"rows yours\">\n" +
           check_html_rows(r.got, r.expected, idx, r.tol, true) + "</table>\n";
  }
  if (!r.own_checks.empty()) {
    out += "<p>" + t("check_html.own_checks") + "</p>\n<ul class=\"own-checks\">\n";
    for (const auto& c : r.own_checks)
      out += std::string("<li class=\"") + (c.passed ? "passed" : "failed") + "\">" +
             check_html_mark(c.passed ? Grade::Equal : Grade::Differs) + " " +
             t("check.own." + c.id, {{"step", s.name}, {"diff", check_html_diff(c.max_diff)}}) + "</li>\n";
    out += "</ul>\n";
  }
  out += "</div>\n<div class=\"diagnoses\">\n<p><b>" + t("check.diagnoses") + "</b></p>\n";
  if (r.diagnoses.empty())
    out += "<p class=\"no-diagnosis\">" +
           t(s.diff.shape_differs ? "check.no_diagnosis_shape" : "check.no_diagnosis", {{"step", s.name}, {"stage", r.stage}, {"options", suggested_options(r)}}) +
           "</p>\n";
  else
    out += "<ul>\n";
  for (size_t i = 0; i < r.diagnoses.size(); ++i)
    out += "<li class=\"cause\" data-cause=\"" + html_escape(r.diagnoses[i]) + "\"><code>" + html_escape(r.diagnoses[i]) +
           "</code>: " + html_escape(mistake_message(r, i, lang)) + "</li>\n";
  if (!r.diagnoses.empty()) out += "</ul>\n";
  return out + "</div>\n</div>\n";
}

}  // namespace attn
