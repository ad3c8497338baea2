#include "render/check_notebook.h"

#include <nlohmann/json.hpp>

#include <map>

#include "core/stage_place.h"
#include "render/render.h"

namespace attn {

namespace {

std::string notebook_text(Lang lang, const std::string& key, const std::map<std::string, std::string>& vars) {
  return fill_placeholders(ui_text(lang, key), vars);
}

std::string stage_list(const std::vector<CheckReport>& reports) {
  std::string out;
  for (size_t i = 0; i < reports.size(); ++i) out += (i ? ", " : "") + reports[i].stage;
  return out;
}

// "✗ causal (section 3.5.1): first difference masked" / "✓ trainable (section 3.4): ...".
std::string verdict_line(const CheckReport& r, Lang lang) {
  const StagePlace* place = find_place(r.stage);
  std::map<std::string, std::string> vars = {{"stage", r.stage}, {"section", place ? place->section : ""}};
  if (r.passed()) return "✓ " + notebook_text(lang, "check.notebook.stage_passed", vars);
  vars["step"] = r.results[*r.first].name;
  std::string causes;
  for (size_t i = 0; i < r.diagnoses.size(); ++i) causes += (i ? ", " : "") + r.diagnoses[i];
  vars["causes"] = causes.empty() ? notebook_text(lang, "check.notebook.no_cause", {}) : causes;
  return "✗ " + notebook_text(lang, "check.notebook.stage_differs", vars);
}

std::string heading(const std::vector<CheckReport>& reports, Lang lang) {
  return notebook_text(lang, "check.notebook.heading",
                       {{"n", std::to_string(reports.size())}, {"stages", stage_list(reports)}});
}

}  // namespace

std::string stage_rule(const std::string& stage) {
  std::string rule = "── " + stage + " ";
  for (size_t width = stage.size() + 4; width < 72; ++width) rule += "─";
  return rule;
}

size_t leading_report(const std::vector<CheckReport>& reports) {
  for (size_t i = 0; i < reports.size(); ++i)
    if (!reports[i].passed()) return i;
  return reports.empty() ? 0 : reports.size() - 1;
}

std::string notebook_check_text(const std::vector<CheckReport>& reports, Lang lang,
                                std::string (*render)(const CheckReport&, Lang)) {
  std::string out = heading(reports, lang) + "\n";
  for (const auto& r : reports) out += "  " + verdict_line(r, lang) + "\n";
  // Each stage's report under a rule naming the stage, so that a reader (and a notebook's
  // sub-report, python/attn_walk) finds where one stage's report starts.
  for (const auto& r : reports) out += "\n" + stage_rule(r.stage) + "\n" + render(r, lang);
  return out;
}

std::string notebook_check_json(const std::vector<CheckReport>& reports, Lang lang,
                                std::string (*render)(const CheckReport&, Lang)) {
  std::vector<nlohmann::ordered_json> docs;
  for (const auto& r : reports) docs.push_back(nlohmann::ordered_json::parse(render(r, lang)));
  nlohmann::ordered_json doc = docs[leading_report(reports)];
  nlohmann::ordered_json graded = nlohmann::ordered_json::array();
  for (const auto& d : docs) {
    nlohmann::ordered_json ids = nlohmann::ordered_json::array();
    for (const auto& diagnosis : d["diagnoses"]) ids.push_back(diagnosis["id"]);
    graded.push_back({{"stage", d["stage"]},
                      {"first_difference", d["first_difference"].is_null() ? nlohmann::ordered_json()
                                                                           : d["first_difference"]["name"]},
                      {"diagnoses", ids}});
  }
  doc["stages_graded"] = graded;
  doc["stage_reports"] = docs;
  return doc.dump(2) + "\n";
}

std::string notebook_check_html(const std::vector<CheckReport>& reports, Lang lang,
                                std::string (*render)(const CheckReport&, Lang)) {
  std::string stages;
  for (const auto& r : reports) stages += (stages.empty() ? "" : " ") + r.stage;
  std::string out = "<div class=\"attn-walk-check-notebook\" data-stages=\"" + html_escape(stages) +
                    "\" data-leading-stage=\"" + html_escape(reports[leading_report(reports)].stage) + "\">\n";
  out += "<p class=\"stages-graded\">" + html_escape(heading(reports, lang)) + "</p>\n<ul class=\"stages-graded\">\n";
  for (const auto& r : reports)
    out += "<li data-stage=\"" + html_escape(r.stage) + "\" class=\"" + (r.passed() ? "passed" : "differs") + "\">" +
           html_escape(verdict_line(r, lang)) + "</li>\n";
  out += "</ul>\n";
  for (const auto& r : reports) out += render(r, lang);
  return out + "</div>\n";
}

}  // namespace attn
