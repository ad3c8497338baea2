// attn-walk check on a whole notebook's dump (check/check.h's NotebookStages): one report per
// stage the notebook reaches, put together in one document of the format asked for.
#pragma once

#include <string>
#include <vector>

#include "check/check.h"
#include "lang/lang.h"

namespace attn {

// The report a whole notebook's document leads with: the first stage (in the chapter's order)
// with a difference, else the last stage graded.
size_t leading_report(const std::vector<CheckReport>& reports);

// "── causal ────...": the line before a stage's report in the text (72 columns).
std::string stage_rule(const std::string& stage);

// Text: which stages were graded and each one's verdict, then each stage's report, each under
// its stage_rule.
std::string notebook_check_text(const std::vector<CheckReport>& reports, Lang lang,
                                std::string (*render)(const CheckReport&, Lang));
// JSON: the leading report's document (so that "stage", "first_difference" and "diagnoses"
// read as for one stage), with "stages_graded" (each stage's name, first difference and
// diagnoses) and "stage_reports" (each stage's whole document) added. docs/check.md.
std::string notebook_check_json(const std::vector<CheckReport>& reports, Lang lang,
                                std::string (*render)(const CheckReport&, Lang));
// HTML: a fragment holding the summary and each stage's fragment.
std::string notebook_check_html(const std::vector<CheckReport>& reports, Lang lang,
                                std::string (*render)(const CheckReport&, Lang));

}  // namespace attn
