// English words of attn-walk check --format html (src/render/check_html.cpp) that the text
// report has no use for: the tables' headings.
#include "lang/lang.h"

namespace attn {

LangTable check_html_en() {
  LangTable t;
  t.code = "en";
  t.ui = {
      {"check_html.step", "step"},
      {"check_html.grade", "grade"},
      {"check_html.difference", "largest difference"},
      {"check_html.own_checks", "The chapter's checks, on your tensor"},
  };
  return t;
}

}  // namespace attn
