// No "{placeholder}" of src/lang/ may reach a learner unfilled, in any renderer or language.
#include <gtest/gtest.h>

#include <regex>

#include "input/embeddings.h"
#include "lang/lang.h"
#include "render/render.h"
#include "stages/stages.h"
#include "test_util.h"

namespace attn {
namespace {

TEST(RenderPlaceholders, TextAndHtmlFillEveryPlaceholder) {
  const Config cfg = test::book_config();
  const std::regex unfilled(R"(\{[a-z_][a-z_0-9]*\})");
  for (const Lang lang : {Lang::En, Lang::Zh}) {
    std::vector<Walk> walks;
    for (const auto& s : all_stages()) {
      walks.push_back(s.run(cfg));
      localize(walks.back(), lang, /*explain=*/true);
    }
    RenderOptions ro;
    ro.lang = lang;
    ro.explain = true;
    ro.heatmap = true;
    for (const auto& w : walks) {
      const std::string text = render_text(w, ro);
      std::smatch m;
      EXPECT_FALSE(std::regex_search(text, m, unfilled)) << w.stage << ": " << m.str();
    }
    const std::string html = render_html(walks, ro);
    std::smatch m;
    EXPECT_FALSE(std::regex_search(html, m, unfilled)) << m.str();
  }
}

}  // namespace
}  // namespace attn
