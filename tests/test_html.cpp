// The HTML page (src/render/html.cpp): one self-contained document, every step with its
// explanation, tensor, details and checks, SVG heatmaps with token labels, and every
// text escaped. The browser test (tests/browser/) renders the page in chromium.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <regex>

#include "cli/cli.h"
#include "request/option_table.h"
#include "request/request.h"
#include "input/embeddings.h"
#include "lang/lang.h"
#include "render/heatmap.h"
#include "render/notebook_links.h"
#include "render/render.h"
#include "stages/stages.h"
#include "test_util.h"
#include "web/page_data.h"

namespace attn {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

Config journey() {
  Config c;
  Embeddings e = builtin_journey();
  c.tokens = e.tokens;
  c.inputs = e.inputs;
  return c;
}

Config config_with_tokens(std::vector<std::string> tokens) {
  Config c;
  const auto T = static_cast<int64_t>(tokens.size());
  c.tokens = std::move(tokens);
  std::vector<float> data(static_cast<size_t>(T * 2));
  for (size_t i = 0; i < data.size(); ++i) data[i] = 0.1f * static_cast<float>(i % 5);
  c.inputs = Tensor({T, 2}, data);
  return c;
}

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + needle.size())) ++n;
  return n;
}

std::string unescape(std::string s) {
  const std::pair<const char*, const char*> entities[] = {
      {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}, {"&amp;", "&"}};
  for (const auto& [from, to] : entities) {
    std::string out;
    size_t pos = 0;
    for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, pos)) {
      out += s.substr(pos, p - pos) + to;
      pos = p + std::strlen(from);
    }
    s = out + s.substr(pos);
  }
  return s;
}

// The text between `open` (the first occurrence at or after `from`) and the next `close`.
std::string between(const std::string& s, const std::string& open, const std::string& close, size_t from = 0) {
  const size_t a = s.find(open, from);
  if (a == std::string::npos) return "";
  const size_t b = s.find(close, a + open.size());
  return s.substr(a + open.size(), b - a - open.size());
}

std::vector<Walk> stage(const std::string& name, const Config& cfg, Lang lang = Lang::En) {
  std::vector<Walk> walks;
  walks.push_back(find_stage(name)->run(cfg));
  localize(walks.back(), lang, true);
  return walks;
}

RenderOptions opts(Lang lang = Lang::En) {
  RenderOptions o;
  o.lang = lang;
  return o;
}

TEST(Html, SelfContainedPage) {
  const std::string page = render_html(stage("causal", journey()), opts());
  EXPECT_EQ(page.rfind("<!DOCTYPE html>\n<html lang=\"en\">", 0), 0u);
  EXPECT_NE(page.find("<meta charset=\"utf-8\">"), std::string::npos);
  EXPECT_NE(page.find("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"), std::string::npos);
  EXPECT_EQ(count(page, "<style>"), 1u);
  EXPECT_TRUE(page.size() > 10 && page.substr(page.size() - 8) == "</html>\n");
  // The page's own four scripts (its data, the places of the engine's wasm and loader, its
  // code), and nothing fetched: no links, images, imports, or URLs but the SVG namespace and
  // the chapter's links.
  EXPECT_EQ(count(page, "<script"), 4u);
  EXPECT_EQ(count(page, "<script type=\"application/octet-stream\" id=\"aw-wasm\"></script>"), 1u);
  EXPECT_EQ(count(page, "<script type=\"application/json\" id=\"aw-data\">"), 1u);
  EXPECT_NE(page.find("Content-Security-Policy\" content=\"default-src 'none';"), std::string::npos);
  for (const char* bad : {"<link", "<img", "<iframe", "@import", "url(", " src=", "//cdn"})
    EXPECT_EQ(page.find(bad), std::string::npos) << bad;
  std::string rest = page;
  for (const std::string url : {"http://www.w3.org/2000/svg", "http-equiv",
                                "https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/ch03.ipynb"})
    for (size_t p; (p = rest.find(url)) != std::string::npos;) rest.erase(p, url.size());
  EXPECT_EQ(rest.find("http"), std::string::npos);
  // Balanced sections.
  EXPECT_EQ(count(page, "<section"), count(page, "</section>"));
  EXPECT_EQ(count(page, "<svg"), count(page, "</svg>"));
}

TEST(Html, EveryStepWithItsTensorExplanationAndHeatmaps) {
  const auto walks = stage("causal", journey());
  const Walk& w = walks[0];
  const std::string page = render_html(walks, opts());
  EXPECT_EQ(count(page, "<section class=\"step\""), w.steps.size());
  size_t from = 0;
  size_t heatmap_steps = 0;
  for (size_t i = 0; i < w.steps.size(); ++i) {
    const Step& s = w.steps[i];
    SCOPED_TRACE(s.name);
    const size_t at = page.find("id=\"causal-" + std::to_string(i + 1) + "\" data-step=\"" + s.name + "\"", from);
    ASSERT_NE(at, std::string::npos);
    from = at;
    const size_t end = page.find("</section>", at);
    const std::string section = page.substr(at, end - at);
    EXPECT_EQ(unescape(between(section, "<pre class=\"tensor\">", "</pre>")), printed_step(s));
    EXPECT_NE(section.find(torch_size_str(s.value.shape)), std::string::npos);
    if (!s.explanation.empty())
      EXPECT_EQ(unescape(between(section, "<p class=\"explanation\">", "</p>")), s.explanation);
    if (wants_heatmap(w, s)) {
      ++heatmap_steps;
      EXPECT_EQ(count(section, "<svg class=\"heatmap\""), 1u);
      for (const auto& tok : w.config.tokens) EXPECT_NE(section.find(">" + tok + "</text>"), std::string::npos) << tok;
    } else {
      EXPECT_EQ(section.find("<svg class=\"heatmap\""), std::string::npos);
    }
  }
  EXPECT_EQ(heatmap_steps, 8u);
  EXPECT_EQ(count(page, "<svg class=\"heatmap\""), 8u);
}

// A Series step's line plot titles its axes by the keys the stage recorded, whatever the step's
// name: a renamed step keeps them. With no keys, the axes are untitled.
TEST(Html, SeriesAxesComeFromTheStepNotItsName) {
  Walk walk("backward", config_with_tokens({"a", "b"}));
  walk.steps.push_back(test::make_step("renamed_losses", Tensor({3}, {1.5f, 1.25f, 1.0f}), Role::Series));
  walk.steps.back().series_axes = {"series.losses.x", "series.losses.y"};
  walk.steps.push_back(test::make_step("untitled", Tensor({2}, {2.0f, 1.0f}), Role::Series));
  for (const Lang lang : {Lang::En, Lang::Zh}) {
    const std::string page = render_html({walk}, opts(lang));
    const std::string titled = between(page, "id=\"backward-1\"", "</section>");
    EXPECT_NE(titled.find(">" + ui_text(lang, "series.losses.x") + "</text>"), std::string::npos) << titled;
    EXPECT_NE(titled.find(">" + ui_text(lang, "series.losses.y") + "</text>"), std::string::npos) << titled;
    const std::string untitled = between(page, "id=\"backward-2\"", "</section>");
    EXPECT_NE(untitled.find("<text class=\"axis-y\" x=\"4\" y="), std::string::npos) << untitled;
    EXPECT_EQ(untitled.find(ui_text(lang, "series.losses.y")), std::string::npos) << untitled;
  }
  EXPECT_EQ(ui_text(Lang::En, "series.losses.x"), "training step");  // the keys name these texts
  EXPECT_EQ(ui_text(Lang::En, "series.losses.y"), "loss");
}

TEST(Html, DetailsChecksAndNotesAreShown) {
  Walk walk("causal", config_with_tokens({"a", "b"}));
  walk.steps.push_back(test::make_step("attn_weights", test::causal_matrix(2, 0), Role::Weights));
  walk.steps.push_back(test::make_step("mask", test::causal_matrix(2, 0), Role::MaskHidden));
  walk.steps[0].explanation = "Each row <sums> to 1.";
  walk.steps[0].details = {"rows: 2", "cols:  2"};
  walk.notes = {"a note & more"};
  Check pass{"rows_sum", "rows sum to 1", true, 1.5e-8, 1};
  Check fail{"bad", "something <failed>", false, 0.25, 0};
  walk.checks = {pass, fail};
  const std::string page = render_html({walk}, opts());
  const std::string first = between(page, "id=\"causal-1\"", "</section>");
  EXPECT_NE(first.find("<p class=\"explanation\">Each row &lt;sums&gt; to 1.</p>"), std::string::npos);
  EXPECT_NE(first.find("<div>rows: 2</div><div>cols:  2</div>"), std::string::npos);
  EXPECT_NE(first.find("class=\"check pass\"><span class=\"mark\">✓</span> rows sum to 1"), std::string::npos) << first;
  EXPECT_NE(first.find("1.5e-08"), std::string::npos);
  // A check with after_step 0 closes the walk, after the last step.
  const size_t last_step = page.find("id=\"causal-2\"");
  const size_t failed = page.find("class=\"check fail\"><span class=\"mark\">✗</span> something &lt;failed&gt;");
  ASSERT_NE(failed, std::string::npos);
  EXPECT_GT(failed, last_step);
  EXPECT_NE(page.find("a note &amp; more"), std::string::npos);
}

TEST(Html, EscapesEveryText) {
  Walk walk("causal", config_with_tokens({"<script>alert(1)</script>", "\"&'", "a\033[31mb", "x\xFFy"}));
  walk.config.input_name = "<evil>.json";
  Step s = test::make_step("attn_weights", test::causal_matrix(4, 0), Role::Weights);
  s.title = "<b>bold</b>";
  walk.steps.push_back(s);
  walk.steps.push_back(test::make_step("<img src=x onerror=alert(1)>", Tensor::zeros({2})));
  RenderOptions o = opts();
  o.page_data = page_data_json({walk}, RenderOptions{}, false);  // holds the tokens too
  const std::string page = render_html({walk}, o);
  EXPECT_EQ(page.find("<script>alert"), std::string::npos);
  EXPECT_EQ(count(page, "<script"), 4u);  // the page's own: data, the wasm (empty here), engine, script
  EXPECT_EQ(page.find("<b>"), std::string::npos);
  EXPECT_EQ(page.find("<img"), std::string::npos);
  EXPECT_EQ(page.find("<evil>"), std::string::npos);
  EXPECT_NE(page.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(page.find("&quot;&amp;&#39;"), std::string::npos);
  EXPECT_NE(page.find("&lt;b&gt;bold&lt;/b&gt;"), std::string::npos);
  EXPECT_NE(page.find("data-step=\"&lt;img src=x onerror=alert(1)&gt;\""), std::string::npos);
  EXPECT_EQ(page.find('\033'), std::string::npos) << "control characters are replaced";
  EXPECT_EQ(page.find('\xFF'), std::string::npos) << "invalid UTF-8 is replaced";
  EXPECT_NE(page.find("a\xEF\xBF\xBD[31mb"), std::string::npos);
  // Every '<' in the markup starts a tag, a comment or the doctype (nothing unescaped leaks);
  // the data for the page's script has none at all (its tokens hold \u003c instead), so it
  // cannot end its element. After it come the page's own scripts, the same in every page.
  const size_t data_at = page.find("<script type=\"application/json\" id=\"aw-data\">");
  ASSERT_NE(data_at, std::string::npos);
  const std::string markup = page.substr(0, data_at);
  const std::regex tag("<(/?[a-zA-Z][a-zA-Z0-9]*|!DOCTYPE)");
  for (size_t p = markup.find('<'); p != std::string::npos; p = markup.find('<', p + 1))
    EXPECT_TRUE(std::regex_search(markup.substr(p, 12), tag, std::regex_constants::match_continuous))
        << markup.substr(p, 40);
  const std::string data = between(page, "id=\"aw-data\">", "</script>");
  EXPECT_EQ(data.find('<'), std::string::npos) << data;
  EXPECT_NE(data.find("\\u003cscript>alert(1)\\u003c/script>"), std::string::npos) << data;
}

TEST(Html, HeadsSideBySideAndRepeatedBatchesOnce) {
  const auto walks = stage("multi-head", journey());
  const std::string page = render_html(walks, opts());
  const std::string weights = between(page, "data-step=\"attn_weights\"", "</section>");
  // (2, 2, 6, 6): batch 1 repeats batch 0, so one row of two heads.
  EXPECT_EQ(count(weights, "<div class=\"hm-row\">"), 1u);
  EXPECT_EQ(count(weights, "<figure class=\"hm\""), 2u);
  EXPECT_NE(weights.find("<figcaption>batch 0, head 0</figcaption>"), std::string::npos);
  EXPECT_NE(weights.find("<figcaption>batch 0, head 1</figcaption>"), std::string::npos);
  EXPECT_NE(weights.find("batch 1 is identical to batch 0"), std::string::npos);
  // Masked scores: -inf cells are drawn as masked, and the legend says so.
  const std::string masked = between(page, "data-step=\"attn_scores_masked\"", "</section>");
  EXPECT_EQ(count(masked, "<rect class=\"m\""), 2u * 15u);
  EXPECT_NE(masked.find("-inf (masked)"), std::string::npos);
  // Causal weights: the zeros above the diagonal are exact zeros.
  EXPECT_NE(weights.find("exactly 0"), std::string::npos);

  // Different batches (attention dropout) get a row each.
  Config cfg = journey();
  cfg.attn_dropout = 0.5;
  const std::string dropped = render_html(stage("multi-head", cfg), opts());
  const std::string w2 = between(dropped, "data-step=\"attn_weights\"", "</section>");
  EXPECT_EQ(count(w2, "<div class=\"hm-row\">"), 2u);
  EXPECT_EQ(count(w2, "<figure class=\"hm\""), 4u);
}

TEST(Html, HeatmapsGrowIntoTheirWidthAndMayHaveAScaleEach) {
  const auto walks = stage("multi-head", journey());
  RenderOptions o = opts();
  const std::string fixed = between(render_html(walks, o), "data-step=\"attn_weights\"", "</section>");
  // Each figure starts at its SVG's natural width and may grow to twice that (the CSS makes
  // the SVG fill it).
  const std::string width = between(fixed, "<svg class=\"heatmap\"", ">");
  const std::string w = between(width, " width=\"", "\"");
  EXPECT_NE(fixed.find("<figure class=\"hm\" style=\"flex-basis:" + w + "px;max-width:" +
                       std::to_string(2 * std::stoi(w)) + "px\">"),
            std::string::npos)
      << fixed;
  EXPECT_EQ(count(fixed, "<span class=\"lk\">scale</span>"), 1u);
  EXPECT_EQ(count(fixed, "scale of this matrix"), 0u);
  // --heatmap-scale matrix: a scale under each head, from its own smallest to largest weight.
  o.heatmap_per_matrix = true;
  const std::string own = between(render_html(walks, o), "data-step=\"attn_weights\"", "</section>");
  EXPECT_EQ(count(own, "<span class=\"lk\">scale of this matrix</span>"), 2u);
  EXPECT_EQ(count(own, "<span class=\"lk\">scale</span>"), 0u);
  const Step* step = nullptr;
  for (const auto& s : walks[0].steps)
    if (s.name == "attn_weights") step = &s;
  ASSERT_NE(step, nullptr);
  const HeatmapPlan plan = plan_heatmap(walks[0], *step, 32, 16, HeatmapScale::Matrix);
  EXPECT_NE(own.find("<span class=\"sv\">" + scale_number(plan.blocks[0].lo) + "</span>"), std::string::npos);
  EXPECT_NE(own.find("<span class=\"sv\">" + scale_number(plan.blocks[1].hi) + "</span>"), std::string::npos);
  EXPECT_GT(plan.blocks[0].lo, 0.0);  // the causal weights' smallest is above 0
}

TEST(Html, ChineseLangAttributeAndText) {
  const std::vector<std::string> tokens = {"你的", "旅程", "从", "一步", "开始"};
  Config cfg = config_with_tokens(tokens);
  const std::string page = render_html(stage("causal", cfg, Lang::Zh), opts(Lang::Zh));
  EXPECT_EQ(page.rfind("<!DOCTYPE html>\n<html lang=\"zh-CN\">", 0), 0u);
  for (size_t i = 0; i < tokens.size(); ++i) {
    // Rows: "1 你的"; columns: one upright glyph under another.
    EXPECT_NE(page.find(">" + std::to_string(i + 1) + " " + tokens[i] + "</text>"), std::string::npos) << tokens[i];
    const std::regex stacked("<text class=\"up\">(<tspan [^>]*>[^<]*</tspan>)+</text>");
    std::string joined;
    for (auto it = std::sregex_iterator(page.begin(), page.end(), stacked); it != std::sregex_iterator(); ++it) {
      const std::string text = std::regex_replace(it->str(), std::regex("<[^>]*>"), "");
      if (text == tokens[i]) joined = text;
    }
    EXPECT_EQ(joined, tokens[i]) << "no upright column label for " << tokens[i];
  }
  EXPECT_NE(page.find("目录"), std::string::npos);
}

TEST(Html, AllStagesHaveATableOfContents) {
  std::vector<Walk> walks;
  for (const auto& s : all_stages()) {
    walks.push_back(s.run(journey()));
    localize(walks.back(), Lang::En, true);
  }
  const std::string page = render_html(walks, opts());
  const std::string toc = between(page, "<nav class=\"toc\"", "</nav>");
  size_t steps = 0;
  for (const auto& w : walks) {
    EXPECT_NE(toc.find("href=\"#stage-" + w.stage + "\""), std::string::npos) << w.stage;
    EXPECT_NE(page.find("<section class=\"walk\" id=\"stage-" + w.stage + "\""), std::string::npos);
    for (size_t i = 0; i < w.steps.size(); ++i) {
      const std::string id = w.stage + "-" + std::to_string(i + 1);
      EXPECT_NE(toc.find("href=\"#" + id + "\""), std::string::npos) << id;
      EXPECT_EQ(count(page, "id=\"" + id + "\""), 1u) << id;
    }
    steps += w.steps.size();
  }
  EXPECT_EQ(count(page, "<section class=\"step\""), steps);
  EXPECT_EQ(count(page, "<section class=\"walk\""), walks.size());
}

TEST(Html, BigInputsStayBounded) {
  const int64_t T = 256, B = 2, H = 12;
  std::vector<std::string> tokens;
  for (int64_t i = 0; i < T; ++i) tokens.push_back("x" + std::to_string(i + 1));
  Walk walk("multi-head", config_with_tokens(tokens));
  const Tensor block = test::causal_matrix(T, kNegInf);
  std::vector<float> data;
  for (int64_t k = 0; k < B * H; ++k) {
    // Every head different, both batches the same.
    for (float v : block.data) data.push_back(std::isfinite(v) ? v * (1.0f + 0.01f * static_cast<float>(k % H)) : v);
  }
  walk.steps.push_back(test::make_step("attn_scores_masked", Tensor({B, H, T, T}, data), Role::Scores));
  const std::string page = render_html({walk}, opts());
  EXPECT_LT(page.size(), 600000u);
  EXPECT_EQ(count(page, "<svg class=\"heatmap\""), 12u);
  EXPECT_NE(page.find("256 tokens: drawing 32 evenly spaced rows and columns"), std::string::npos);
  // The printed tensor is PyTorch's summary, not 1.5 million numbers.
  EXPECT_NE(page.find("..."), std::string::npos);
}

// The walks the CLI makes for these arguments, as --format html renders them.
std::string cli_page(const std::vector<std::string>& args) {
  std::vector<std::string> a = args;
  a.insert(a.end(), {"--format", "html"});
  Options o = parse_walk_options(a);
  set_document(o);
  RenderOptions ro;
  std::vector<Walk> walks = make_walks(o.walk, &ro);
  return render_html(walks, ro);
}

// The § link of a step: its href, or "" when it has none.
std::string section_link(const std::string& page, const std::string& id) {
  const size_t at = page.find("<section class=\"step\" id=\"" + id + "\"");
  if (at == std::string::npos) return "(no step " + id + ")";
  const std::string h3 = between(page.substr(at), "<h3>", "</h3>");
  const size_t a = h3.find("<a class=\"chapter\" href=\"");
  if (a == std::string::npos) return "";
  return between(h3.substr(a), "href=\"", "\"");
}

TEST(Html, SectionLinksGoToTheirSectionOfTheNotebook) {
  const std::string repo = "https://github.com/rasbt/LLMs-from-scratch/blob/main/";
  const std::string ch2 = repo + "ch02/01_main-chapter-code/ch02.ipynb#";
  const std::string ch3 = repo + "ch03/01_main-chapter-code/ch03.ipynb#";
  // --text: chapter 2's steps link to chapter 2's notebook, the stage's own to chapter 3's.
  const std::string text = cli_page({"--stage", "causal", "--text", "Your journey"});
  EXPECT_EQ(section_link(text, "causal-1"), ch2 + "25-bytepair-encoding");                  // text
  EXPECT_EQ(section_link(text, "causal-2"), ch2 + "25-bytepair-encoding");                  // pieces
  EXPECT_EQ(section_link(text, "causal-4"), ch2 + "27-creating-token-embeddings");          // token_embeddings
  EXPECT_EQ(section_link(text, "causal-6"), ch2 + "28-encoding-word-positions");            // input_embeddings
  EXPECT_EQ(section_link(text, "causal-7"), ch3 + "351-applying-a-causal-attention-mask");  // queries
  EXPECT_NE(text.find(">\xC2\xA7"
                      "2.5</a>"),
            std::string::npos);
  // The tokens stage is chapter 2's too.
  const std::string tokens = cli_page({"--stage", "tokens"});
  EXPECT_EQ(section_link(tokens, "tokens-1"), ch2 + "27-creating-token-embeddings");
  EXPECT_EQ(section_link(tokens, "tokens-4"), ch2 + "25-bytepair-encoding");  // integers
  // A stage's steps in their subsections.
  const std::string trainable = cli_page({"--stage", "trainable"});
  EXPECT_EQ(section_link(trainable, "trainable-2"), ch3 + "341-computing-the-attention-weights-step-by-step");
  EXPECT_EQ(section_link(trainable, "trainable-18"), ch3 + "342-implementing-a-compact-selfattention-class");
  const std::string dot = cli_page({"--stage", "dot-product"});
  EXPECT_EQ(section_link(dot, "dot-product-6"),
            ch3 + "331-a-simple-self-attention-mechanism-without-trainable-weights");  // context_vec_2
  EXPECT_EQ(section_link(dot, "dot-product-7"), ch3 + "332-computing-attention-weights-for-all-input-tokens");
  const std::string mha = cli_page({"--stage", "multi-head"});
  EXPECT_EQ(section_link(mha, "multi-head-2"), ch3 + "361-stacking-multiple-single-head-attention-layers");
  EXPECT_EQ(section_link(mha, "multi-head-7"), ch3 + "362-implementing-multi-head-attention-with-weight-splits");
  // The bonus stages: their reference files; flash has none in the book's repository.
  EXPECT_EQ(section_link(cli_page({"--stage", "kv-cache"}), "kv-cache-1"), repo + "ch04/03_kv-cache/gpt_with_kv_cache.py");
  EXPECT_EQ(section_link(cli_page({"--stage", "rope"}), "rope-1"), repo + "pkg/llms_from_scratch/llama3.py");
  EXPECT_EQ(section_link(cli_page({"--stage", "flash"}), "flash-1"), "");
  // Every step of the chapter has a link, and every link's anchor is one of the headings.
  const std::string all = cli_page({"--stage", "all"});
  EXPECT_EQ(count(all, "<a class=\"chapter\""), count(all, "<section class=\"step\""));
  EXPECT_EQ(github_anchor("3.5.1 Applying a causal attention mask"), "351-applying-a-causal-attention-mask");
}

}  // namespace
}  // namespace attn
