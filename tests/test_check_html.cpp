// attn-walk check --format html (src/render/check_html.cpp): the fragment a notebook shows.
// Its content is the report's (the first step that differs, the cause, the marks), in en and
// zh, every text escaped, and nothing loaded from outside it. The dumps are PyTorch's
// (tests/golden/check/, make_check_goldens.py).
#include <gtest/gtest.h>

#include <regex>

#include "check/check.h"
#include "render/check.h"
#include "render/check_html.h"
#include "render/render.h"
#include "test_check_util.h"

namespace attn {
namespace {

CheckReport html_report_of(const std::string& golden) {
  const std::string path = test::kCheckDir + "book/" + golden;
  const Dump dump = parse_dump(test::read_all(path), path);
  return check_dump(dump, test::book_config(), "causal", "option", Tolerance{}, path);
}

size_t html_count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + what.size())) ++n;
  return n;
}

// Nothing in the fragment fetches anything: no src, href, url(), @import, no scheme.
void expect_self_contained(const std::string& html) {
  for (const char* outside : {"src=", "href=", "url(", "@import", "http:", "https:", "<script", "<link", "<iframe"})
    EXPECT_EQ(html.find(outside), std::string::npos) << outside << " in\n"
                                                     << html;
}

TEST(CheckHtml, TheFirstDifferenceItsCauseAndTheMarks) {
  const CheckReport r = html_report_of("causal_mask_wrong_triangle.json");
  ASSERT_FALSE(r.passed());
  ASSERT_EQ(r.results[*r.first].name, "mask_simple");
  const std::string html = render_check_html(r, Lang::En);
  EXPECT_EQ(html.rfind("<div class=\"attn-walk-check\" lang=\"en\" data-stage=\"causal\">", 0), 0u) << html;
  EXPECT_NE(html.find("<p class=\"verdict differs\" data-first-step=\"mask_simple\">✗ First difference: mask_simple</p>"),
            std::string::npos)
      << html;
  // One row per step of the stage, each with its mark; four equal, seven differ, as the text says.
  EXPECT_EQ(html_count(html, "<tr class=\"equal\""), 4u);
  EXPECT_EQ(html_count(html, "<tr class=\"differs\""), 7u);
  EXPECT_NE(html.find("<tr class=\"differs\" data-step=\"mask_simple\"><td class=\"mark\">✗</td><td><code>mask_simple</code>"
                      "</td><td>differs</td><td>largest difference 1 at [0, 1]</td></tr>"),
            std::string::npos)
      << html;
  // The rows around [0, 1] from both tensors: the learner's values that are not close marked.
  EXPECT_NE(html.find("largest difference 1 at [0, 1]: expected 0.0, yours 1.0."), std::string::npos);
  EXPECT_NE(html.find("<table class=\"rows yours\">\n<tr><th>[0, :]</th><td class=\"num\">1.0</td><td class=\"num off\">1.0*</td>"),
            std::string::npos)
      << html;
  EXPECT_EQ(html_count(html.substr(html.find("rows expected"), html.find("rows yours") - html.find("rows expected")), " off"), 0u);
  // The cause, with its message (what the text report says of it).
  EXPECT_NE(html.find("<li class=\"cause\" data-cause=\"mask_wrong_triangle\"><code>mask_wrong_triangle</code>: " +
                      html_escape(mistake_message(r, 0, Lang::En)) + "</li>"),
            std::string::npos)
      << html;
  // The walk's own check on the learner's tensor, failed.
  EXPECT_NE(html.find("<li class=\"failed\">✗ your mask_simple itself"), std::string::npos) << html;
  expect_self_contained(html);
  EXPECT_EQ(html_count(html, "<div"), html_count(html, "</div>"));
  EXPECT_EQ(html_count(html, "<table"), html_count(html, "</table>"));
}

TEST(CheckHtml, InChinese) {
  const CheckReport r = html_report_of("causal_mask_filled_with_zero.json");
  ASSERT_FALSE(r.passed());
  ASSERT_TRUE(test::contains(r.diagnoses, "mask_filled_with_zero"));
  const std::string en = render_check_html(r, Lang::En), zh = render_check_html(r, Lang::Zh);
  EXPECT_NE(zh.find("lang=\"zh\""), std::string::npos);
  EXPECT_NE(zh.find("第一处不同：" + r.results[*r.first].name), std::string::npos) << zh;
  EXPECT_NE(zh.find("<th>步骤</th><th>结果</th><th>最大差</th>"), std::string::npos) << zh;
  EXPECT_NE(zh.find("诊断："), std::string::npos);
  EXPECT_NE(zh.find(html_escape(mistake_message(r, 0, Lang::Zh))), std::string::npos);
  EXPECT_EQ(zh.find("First difference"), std::string::npos);
  EXPECT_NE(en.find("<th>step</th><th>grade</th><th>largest difference</th>"), std::string::npos) << en;
  EXPECT_NE(en.find("data-cause=\"mask_filled_with_zero\""), std::string::npos);
  EXPECT_NE(zh.find("data-cause=\"mask_filled_with_zero\""), std::string::npos);
  expect_self_contained(zh);
}

TEST(CheckHtml, PassedSaysEveryStepMatches) {
  const CheckReport r = html_report_of("causal_correct_noisy.json");
  ASSERT_TRUE(r.passed());
  const std::string html = render_check_html(r, Lang::En);
  size_t given = 0;
  for (const auto& s : r.results) given += s.diff.grade != Grade::NotGiven;
  EXPECT_NE(html.find("<p class=\"verdict ok\">✓ All " + std::to_string(given) + " tensors given match the chapter"),
            std::string::npos)
      << html;
  EXPECT_EQ(html.find("<tr class=\"differs\""), std::string::npos);
  EXPECT_EQ(html.find("verdict differs"), std::string::npos);
  EXPECT_EQ(html.find("class=\"diagnoses\""), std::string::npos);
  // Its last-bit noise is close, and marked so: not every tensor is equal.
  EXPECT_NE(html.find("<tr class=\"close\""), std::string::npos) << html;
  EXPECT_EQ(html_count(html, "<div"), html_count(html, "</div>"));
}

TEST(CheckHtml, EveryTextIsEscaped) {
  CheckReport r = html_report_of("causal_mask_wrong_triangle.json");
  // The tolerance's "<=" is the report's own text: it must arrive as text, not as a tag.
  std::string html = render_check_html(r, Lang::En);
  EXPECT_NE(html.find("|yours - expected| &lt;= 1e-06"), std::string::npos) << html;
  // A name that is markup, and a stage that closes the attribute, are shown, never run.
  r.results[*r.first].name = "<script>alert(\"x\")</script>";
  r.stage = "causal\"><img onerror=x>";
  html = render_check_html(r, Lang::En);
  EXPECT_EQ(html.find("<script>"), std::string::npos) << html;
  EXPECT_EQ(html.find("<img"), std::string::npos) << html;
  EXPECT_NE(html.find("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"), std::string::npos) << html;
  EXPECT_NE(html.find("data-stage=\"causal&quot;&gt;&lt;img onerror=x&gt;\""), std::string::npos) << html;
  // Every '<' the fragment holds opens one of its own tags.
  const std::regex tag("<(/?)([a-z]+)");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), tag); it != std::sregex_iterator(); ++it) {
    static const std::vector<std::string> ours = {"div", "style", "p", "br", "table", "tr", "th", "td",
                                                  "code", "ul", "li", "b"};
    EXPECT_TRUE(test::contains(ours, (*it)[2].str())) << (*it)[0].str();
  }
}

}  // namespace
}  // namespace attn
