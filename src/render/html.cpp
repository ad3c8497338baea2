// The walk as HTML for the one page (src/render/page/): the header, the contents, each
// stage's steps with their prints, details and checks; inline SVG, nothing fetched (the
// heatmaps are drawn by html_heatmap.cpp, a sequence's plot by series_svg.cpp).
// Every text that reaches the page (tokens, names, titles, explanations, details, notes,
// check labels, the input's file name) is cleaned of invalid UTF-8 and control
// characters and HTML-escaped.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "render/details.h"
#include "render/display_width.h"
#include "render/heatmap.h"  // heatmap_text: the shared words ("colon")
#include "render/html_heatmap.h"
#include "render/notebook_links.h"
#include "render/series_svg.h"
#include "render/page.h"
#include "render/render.h"
#include "core/stage_place.h"
#include "lang/lang.h"

namespace attn {

namespace {

std::string esc(const std::string& raw) { return html_escape(raw); }

}  // namespace

std::string html_escape(const std::string& raw) {
  const std::string s = clean_utf8(raw, "\xEF\xBF\xBD", true);  // U+FFFD
  std::string out;
  out.reserve(s.size() + s.size() / 8);
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

namespace {

std::string page_text(Lang lang, const std::string& key) {
  // The words live with every other text, in src/lang/<language>.cpp.
  return ui_text(lang, "page." + key);
}

std::string check_html(const Check& c, Lang lang) {
  return fmt::format("<li class=\"check {}\"><span class=\"mark\">{}</span> {} <span class=\"diff\">({} {:.3g})</span></li>\n",
                     c.passed ? "pass" : "fail", c.passed ? "\xE2\x9C\x93" : "\xE2\x9C\x97", esc(c.label),
                     esc(c.measure.empty() ? ui_text(lang, "max_diff") : c.measure), c.max_diff);
}

std::string checks_html(const Walk& walk, Lang lang, size_t after_step, bool trailing) {
  std::string items;
  for (const auto& c : walk.checks) {
    const bool here = trailing ? (c.after_step == 0 || c.after_step > walk.steps.size())
                               : c.after_step == after_step;
    if (here) items += check_html(c, lang);
  }
  return items.empty() ? "" : "<ul class=\"checks\">\n" + items + "</ul>\n";
}

std::string step_id(const Walk& walk, size_t i) { return fmt::format("{}-{}", walk.stage, i + 1); }

std::string stage_heading(const Walk& walk, Lang lang) {
  const StagePlace* info = find_place(walk.stage);
  std::string out = "<code>" + esc(walk.stage) + "</code>";
  if (info)
    out += fmt::format(" <span class=\"section\">{}</span> <span class=\"stage-desc\">{}</span>",
                       esc(fill_placeholders(ui_text(lang, section_text_key(*info)), {{"section", info->section}, {"chapter", chapter_of(info->section)}})),
                       esc(ui_text(lang, std::string("stage.") + walk.stage)));
  return out;
}

std::string step_html(const Walk& walk, size_t i, const RenderOptions& opts) {
  const Lang lang = opts.lang;
  const Step& step = walk.steps[i];
  std::string out = fmt::format("<section class=\"step\" id=\"{}\" data-step=\"{}\">\n", step_id(walk, i),
                                esc(step.name));
  out += fmt::format("<h3><a class=\"num\" href=\"#{}\">{}</a> <code class=\"name\">{}</code>", step_id(walk, i),
                     i + 1, esc(step.name));
  if (!step.title.empty()) out += " <span class=\"title\">" + esc(step.title) + "</span>";
  if (!std::holds_alternative<WordsPayload>(step.payload)) out += " <code class=\"shape\">" + esc(torch_size_str(step.shape())) + "</code>";
  if (const auto link = notebook_link(walk, i)) {
    const std::string title =
        link->chapter.empty()
            ? fill_placeholders(ui_text(lang, "web.reference_code"), {{"file", link->url.substr(link->url.rfind("/main/") + 6)}})
            : fill_placeholders(ui_text(lang, "web.notebook_section"), {{"chapter", link->chapter}, {"section", link->label}});
    out += fmt::format(" <a class=\"chapter\" href=\"{}\" title=\"{}\">\xC2\xA7{}</a>", esc(link->url), esc(title),
                       esc(link->label));
  }
  out += "</h3>\n";
  if (!step.explanation.empty()) out += "<p class=\"explanation\">" + esc(step.explanation) + "</p>\n";
  // An HTML parser drops one newline right after <pre>: a print that starts with one (the
  // notebook's "\nSecond head:") gets it back from a second.
  const std::string printed = printed_step(step);
  out += "<pre class=\"tensor\">" + std::string(printed.rfind('\n', 0) == 0 ? "\n" : "") + esc(printed) + "</pre>\n";
  if (const auto details = detail_lines(step); !details.empty()) {
    out += "<div class=\"details\">";
    for (const auto& d : details) out += "<div>" + esc(d) + "</div>";
    out += "</div>\n";
  }
  out += heatmaps_html(walk, step, opts);
  if (step.role == Role::Series)
    out += series_svg(step, step.series_axes.x_key.empty() ? "" : ui_text(lang, step.series_axes.x_key),
                      step.series_axes.y_key.empty() ? "" : ui_text(lang, step.series_axes.y_key));
  out += checks_html(walk, lang, i + 1, false);
  return out + "</section>\n";
}

std::string walk_html(const Walk& walk, const RenderOptions& opts) {
  const Lang lang = opts.lang;
  std::string out = fmt::format("<section class=\"walk\" id=\"stage-{}\" data-stage=\"{}\">\n", esc(walk.stage),
                                esc(walk.stage));
  out += "<h2>" + stage_heading(walk, lang) + "</h2>\n";
  if (!walk.notes.empty()) {
    out += "<ul class=\"notes\">\n";
    for (const auto& n : walk.notes)
      out += "<li>" + esc(ui_text(lang, "note")) + esc(heatmap_text(lang, "colon")) + esc(n) + "</li>\n";
    out += "</ul>\n";
  }
  for (size_t i = 0; i < walk.steps.size(); ++i) out += step_html(walk, i, opts);
  out += checks_html(walk, lang, 0, true);
  return out + "</section>\n";
}

std::string toc_html(const std::vector<Walk>& walks, Lang lang) {
  std::string out = "<nav class=\"toc\" aria-label=\"" + esc(page_text(lang, "contents")) + "\">\n<h2>" +
                    esc(page_text(lang, "contents")) + "</h2>\n<ol>\n";
  for (const auto& w : walks) {
    out += fmt::format("<li><a href=\"#stage-{}\">{}</a>", esc(w.stage), stage_heading(w, lang));
    out += fmt::format("<details{}><summary>{}</summary><ol class=\"steps\">", walks.size() == 1 ? " open" : "",
                       esc(fmt::format(page_text(lang, "steps"), w.steps.size())));
    for (size_t i = 0; i < w.steps.size(); ++i)
      out += fmt::format("<li><a href=\"#{}\"><code>{}</code></a></li>", step_id(w, i), esc(w.steps[i].name));
    out += "</ol></details></li>\n";
  }
  return out + "</ol>\n</nav>\n";
}

// The sizes the walk used: the bonus stages walk their own d_out and heads (Config::bonus).
std::string settings_line(const Walk& w) {
  const Config& c = w.config;
  const StagePlace* place = find_place(w.stage);
  const bool bonus = place && place->group == StageGroup::Bonus;
  return fmt::format("seed {} / {} \xC2\xB7 d_out {} \xC2\xB7 heads {} \xC2\xB7 batch {} \xC2\xB7 dropout {:g} "
                     "\xC2\xB7 attn_dropout {:g} \xC2\xB7 qkv_bias {} \xC2\xB7 init {} \xC2\xB7 dropout_rng {}",
                     c.seed1, c.seed2, bonus ? c.bonus.d_out : c.d_out, bonus ? c.bonus.heads : c.heads, c.batch, c.dropout, c.attn_dropout,
                     c.qkv_bias ? "True" : "False", to_string(c.init), to_string(c.dropout_rng));
}

// A walk of a trained model (--stage gpt): the model's own sizes, by GPT_CONFIG_124M's names
// (the stage's walk.vars, from the weights file), and the block and head it opens; the chapter's
// seeds, d_out and dropout mean nothing there.
std::string model_line(const Walk& w) {
  const auto var = [&](const char* k) {
    const auto it = w.vars.find(k);
    return it == w.vars.end() ? std::string("?") : it->second;
  };
  std::string line = fmt::format("emb_dim {} \xC2\xB7 n_layers {} \xC2\xB7 n_heads {} \xC2\xB7 head_dim {} \xC2\xB7 "
                                 "context_length {} \xC2\xB7 vocab_size {}",
                                 var("emb_dim"), var("n_layers"), var("n_heads"), var("head_dim"),
                                 var("context_length"), var("vocab_size"));
  const GptRun& g = w.config.gpt;
  if (g.layer >= 0) line += fmt::format(" \xC2\xB7 --layer {}", g.layer);
  if (g.head >= 0) line += fmt::format(" \xC2\xB7 --head {}", g.head);
  if (g.max_new_tokens > 0) line += fmt::format(" \xC2\xB7 --max-new-tokens {}", g.max_new_tokens);
  return line;
}
bool walks_a_model(const Walk& w) { return w.vars.count("n_layers") && w.vars.count("emb_dim"); }

// The book's chapter of the walk: chapter 3, but a trained model's walk (gpt) gives its stage's
// numbered section's chapter (4.6: chapter 4).
std::string chapter_line(const Walk* w, Lang lang) {
  const StagePlace* place = w && walks_a_model(*w) ? find_place(w->stage) : nullptr;
  if (place && place->section && place->section[0] >= '0' && place->section[0] <= '9' &&
      chapter_of(place->section) != "3")
    return fill_placeholders(page_text(lang, "chapter_n"), {{"chapter", chapter_of(place->section)}});
  return page_text(lang, "chapter");
}

}  // namespace

std::string html_title(const std::vector<Walk>& walks, Lang lang) {
  std::string title = "attn-walk";
  if (walks.size() == 1) title += " \xE2\x80\x94 " + walks[0].stage;
  else if (walks.size() > 1) title += " \xE2\x80\x94 " + page_text(lang, "all_stages");
  return title;
}

std::string render_html_body(const std::vector<Walk>& walks, Lang lang) {
  RenderOptions opts;
  opts.lang = lang;
  return render_html_body(walks, opts);
}

std::string render_html_body(const std::vector<Walk>& walks, const RenderOptions& opts) {
  const Lang lang = opts.lang;
  const std::string colon = esc(heatmap_text(lang, "colon"));
  std::string out = "<header>\n<h1>" + esc(html_title(walks, lang)) + "</h1>\n";
  out += "<p class=\"meta\">" + esc(chapter_line(walks.empty() ? nullptr : &walks[0], lang)) + "</p>\n";
  if (!walks.empty()) {
    const Walk& w = walks[0];
    out += fmt::format("<p>{}{}<code>{}</code>, {} \xC3\x97 {}</p>\n", esc(ui_text(lang, "input")), colon,
                       esc(w.config.input_name), w.config.num_tokens(), w.config.d_in());
    out += "<ol class=\"tokens\">";
    const size_t shown = std::min<size_t>(w.config.tokens.size(), 64);
    for (size_t i = 0; i < shown; ++i)
      out += fmt::format("<li><span class=\"ix\">{}</span>{}</li>", i + 1, esc(w.config.tokens[i]));
    if (shown < w.config.tokens.size()) out += fmt::format("<li>\xE2\x80\xA6 +{}</li>", w.config.tokens.size() - shown);
    out += "</ol>\n";
    if (walks_a_model(w))
      out += "<p class=\"meta model\">" + esc(page_text(lang, "model")) + colon + esc(model_line(w)) + "</p>\n";
    else
      out += "<p class=\"meta\">" + esc(page_text(lang, "settings")) + colon + esc(settings_line(w)) + "</p>\n";
  }
  out += "</header>\n";
  out += toc_html(walks, lang);
  out += "<main>\n";
  for (const auto& w : walks) out += walk_html(w, opts);
  out += "</main>\n";
  out += "<footer>" + esc(fmt::format(page_text(lang, "generated"), ATTN_WALK_VERSION)) + "</footer>\n";
  return out;
}

std::string render_html(const std::vector<Walk>& walks, const RenderOptions& opts) {
  PageParts parts;
  parts.lang = opts.lang == Lang::Zh ? "zh-CN" : "en";
  parts.title = html_title(walks, opts.lang);
  parts.body = render_html_body(walks, opts);
  parts.data_json = opts.page_data;
  return render_page(parts);
}

}  // namespace attn
