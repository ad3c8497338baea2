// The walk as HTML for the one page (src/render/page/): inline SVG, nothing fetched.
// Every text that reaches the page (tokens, names, titles, explanations, details, notes,
// check labels, the input's file name) is cleaned of invalid UTF-8 and control
// characters and HTML-escaped.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "render/details.h"
#include "render/heatmap.h"
#include "render/series_svg.h"
#include "render/page.h"
#include "render/render.h"
#include "stages/stages.h"

namespace attn {

namespace {

// Heatmaps on the page: at most 32 rows and columns and 16 blocks a step, as in the
// terminal, so a (2, 12, 1024, 1024) tensor stays a few hundred kilobytes of SVG.
constexpr int64_t kHtmlMaxCells = 32;
constexpr size_t kHtmlMaxBlocks = 16;
constexpr int kHtmlLabelWidth = 14;  // display columns of a label, at most
// Where each step's section of the chapter is: the book's own notebook. A link only; the
// page fetches nothing.
constexpr const char* kChapterUrl =
    "https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/01_main-chapter-code/ch03.ipynb";

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

std::string hex(Rgb c) { return fmt::format("#{:02x}{:02x}{:02x}", c.r, c.g, c.b); }

bool is_light(Rgb c) { return 0.299 * c.r + 0.587 * c.g + 0.114 * c.b > 140.0; }

// Rough width of a label in pixels at `font` px: CJK about one em, the rest about 0.6 em.
double label_px(const std::string& s, double font) { return display_width(s) * font * 0.6; }

// Column labels with wide (CJK) characters are written upright, one glyph under another.
bool stacked(const std::string& label) {
  for (const auto& g : glyphs(label))
    if (display_width(g) == 2) return true;
  return false;
}

// A number written in a cell: two decimals while they fit.
std::string cell_number(float v, double max_abs) {
  switch (cell_kind(v)) {
    case CellKind::Masked: return "\xE2\x88\x92\xE2\x88\x9E";  // −∞
    case CellKind::Invalid: return std::isnan(v) ? "nan" : "\xE2\x88\x9E";
    case CellKind::Zero: return "0";
    case CellKind::Value: break;
  }
  if (max_abs < 9.995) return cell_decimals(v, 2);
  return fmt::format("{:.3g}", v);
}

std::string tooltip_number(float v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  return cell_decimals(v, 4);
}

// One (T, T) block as an SVG: token labels on the left (rows, queries) and on top
// (columns, keys, written upwards), a cell per entry.
std::string svg_block(const Step& step, const HeatmapPlan& plan, const HeatmapBlock& blk,
                      const std::vector<std::string>& labels, bool positions,
                      const std::string& caption) {
  const size_t n = plan.index.size();
  const int cell = n <= 8 ? 40 : n <= 16 ? 24 : 14;
  const double font = n <= 16 ? 12 : 10;
  const bool numbers = n <= 8;
  const auto& data = step.value.data;
  const int64_t T = plan.T;

  std::vector<std::string> shown;  // labels cut to fit
  for (const auto& l : labels) shown.push_back(fit_width(l, kHtmlLabelWidth));
  std::vector<std::string> row_labels;
  double row_w = 0, col_h = 0;
  for (size_t r = 0; r < n; ++r) {
    const std::string rl = positions ? shown[r] : fmt::format("{} {}", plan.index[r] + 1, shown[r]);
    row_labels.push_back(rl);
    row_w = std::max(row_w, label_px(rl, font));
    col_h = std::max(col_h, stacked(shown[r]) ? static_cast<double>(glyphs(shown[r]).size()) * font * 1.15
                                               : label_px(shown[r], font));
  }
  const int left = static_cast<int>(std::ceil(row_w)) + 8;
  const int top = static_cast<int>(std::ceil(col_h)) + 8;
  const int width = left + static_cast<int>(n) * cell + 2;
  const int height = top + static_cast<int>(n) * cell + 2;

  double max_abs = 0;
  for (int64_t i : plan.index)
    for (int64_t j : plan.index) {
      const float v = data[blk.offset + static_cast<size_t>(i * T + j)];
      if (std::isfinite(v)) max_abs = std::max(max_abs, std::fabs(static_cast<double>(v)));
    }

  // Where the grid is and which rows of the tensor it shows, for the page's hover highlight.
  std::string index_list;
  for (int64_t i : plan.index) index_list += (index_list.empty() ? "" : " ") + std::to_string(i);
  std::string aria = esc(step.name) + (caption.empty() ? "" : ", " + esc(caption));
  std::string out = fmt::format(
      "<svg class=\"heatmap\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {0} {1}\" "
      "width=\"{0}\" height=\"{1}\" role=\"img\" aria-label=\"{2}\" font-size=\"{3}\" "
      "data-grid=\"{4} {5} {6}\" data-index=\"{7}\">"
      "<title>{2}</title>",
      width, height, aria, font, left, top, cell, index_list);

  // Labels.
  out += "<g class=\"lbl rows\" text-anchor=\"end\">";
  for (size_t r = 0; r < n; ++r)
    out += fmt::format("<text x=\"{}\" y=\"{}\" dy=\".35em\">{}</text>", left - 6,
                       top + static_cast<int>(r) * cell + cell / 2.0, esc(row_labels[r]));
  // Column labels: turned to read upwards, or, with CJK in them, one glyph under another.
  out += "</g><g class=\"lbl cols\">";
  for (size_t c = 0; c < n; ++c) {
    const double x = left + static_cast<int>(c) * cell + cell / 2.0;
    if (stacked(shown[c])) {
      const auto g = glyphs(shown[c]);
      out += "<text class=\"up\">";
      for (size_t k = 0; k < g.size(); ++k)
        out += fmt::format("<tspan x=\"{}\" y=\"{:.1f}\">{}</tspan>", x,
                           top - 6 - static_cast<double>(g.size() - 1 - k) * font * 1.15, esc(g[k]));
      out += "</text>";
    } else {
      out += fmt::format("<text transform=\"translate({} {}) rotate(-90)\" dy=\".35em\">{}</text>", x,
                         top - 6, esc(shown[c]));
    }
  }
  out += "</g>";

  // Cells.
  auto cell_x = [&](size_t c) { return left + static_cast<int>(c) * cell; };
  auto cell_y = [&](size_t r) { return top + static_cast<int>(r) * cell; };
  std::string masked_path, zero_path;
  auto add_masked = [&](size_t r, size_t c) {
    masked_path += fmt::format("M{} {}h{}v{}h-{}z", cell_x(c), cell_y(r), cell, cell, cell);
  };
  auto add_cross = [&](std::string& p, size_t r, size_t c) {
    const int x = cell_x(c), y = cell_y(r), m = std::max(3, cell / 4), s = cell - 2 * m;
    p += fmt::format("M{} {}l{} {}M{} {}l-{} {}", x + m, y + m, s, s, x + m + s, y + m, s, s);
  };
  auto add_dot = [&](size_t r, size_t c) {
    zero_path += fmt::format("M{} {}h0", cell_x(c) + cell / 2.0, cell_y(r) + cell / 2.0);
  };

  std::string crosses;
  if (numbers) {
    // Few cells: one rectangle each, with its value written in it and a tooltip.
    out += "<g class=\"cells\">";
    for (size_t r = 0; r < n; ++r)
      for (size_t c = 0; c < n; ++c) {
        const float v = data[blk.offset + static_cast<size_t>(plan.index[r] * T + plan.index[c])];
        const CellKind kind = cell_kind(v);
        const std::string tip = fmt::format("<title>{} \xE2\x86\x92 {}: {}</title>", esc(row_labels[r]),
                                            esc(shown[c]), tooltip_number(v));
        const std::string txt = cell_number(v, max_abs);
        const double fs = std::min(12.0, cell * 1.55 / std::max<size_t>(4, txt.size()));
        if (kind == CellKind::Masked) {
          out += fmt::format("<rect class=\"m\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\">{}</rect>",
                             cell_x(c), cell_y(r), cell, cell, tip);
          out += fmt::format("<text class=\"mt\" x=\"{}\" y=\"{}\" dy=\".35em\" font-size=\"{}\">{}</text>",
                             cell_x(c) + cell / 2.0, cell_y(r) + cell / 2.0, fs, txt);
          continue;
        }
        const Rgb rgb = kind == CellKind::Invalid ? Rgb{214, 39, 40} : viridis(cell_level(plan, v));
        out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\">{}</rect>",
                           cell_x(c), cell_y(r), cell, cell, hex(rgb), tip);
        out += fmt::format("<text x=\"{}\" y=\"{}\" dy=\".35em\" font-size=\"{}\" fill=\"{}\"{}>{}</text>",
                           cell_x(c) + cell / 2.0, cell_y(r) + cell / 2.0, fs,
                           is_light(rgb) ? "#000" : "#fff",
                           kind == CellKind::Zero ? " font-style=\"italic\"" : "", txt);
      }
    out += "</g>";
  } else {
    // Many cells: one path per colour, runs of equal colour merged.
    constexpr int kLevels = 32;
    std::vector<std::string> paths(kLevels + 1);  // the last: invalid
    for (size_t r = 0; r < n; ++r) {
      size_t c = 0;
      while (c < n) {
        const float v = data[blk.offset + static_cast<size_t>(plan.index[r] * T + plan.index[c])];
        const CellKind kind = cell_kind(v);
        if (kind == CellKind::Masked) {
          add_masked(r, c);
          add_cross(crosses, r, c);
          ++c;
          continue;
        }
        if (kind == CellKind::Zero) add_dot(r, c);
        const int level = kind == CellKind::Invalid
                              ? kLevels
                              : static_cast<int>(std::lround(cell_level(plan, v) * (kLevels - 1)));
        size_t run = 1;
        while (c + run < n) {
          const float w = data[blk.offset + static_cast<size_t>(plan.index[r] * T + plan.index[c + run])];
          const CellKind k2 = cell_kind(w);
          if (k2 == CellKind::Masked) break;
          const int l2 = k2 == CellKind::Invalid ? kLevels
                                                 : static_cast<int>(std::lround(cell_level(plan, w) * (kLevels - 1)));
          if (l2 != level) break;
          if (k2 == CellKind::Zero) add_dot(r, c + run);
          ++run;
        }
        const int w = static_cast<int>(run) * cell;
        paths[static_cast<size_t>(level)] +=
            fmt::format("M{} {}h{}v{}h-{}z", cell_x(c), cell_y(r), w, cell, w);
        c += run;
      }
    }
    out += "<g class=\"cells\">";
    for (int l = 0; l < kLevels; ++l)
      if (!paths[static_cast<size_t>(l)].empty())
        out += fmt::format("<path fill=\"{}\" d=\"{}\"/>",
                           hex(viridis(static_cast<double>(l) / (kLevels - 1))), paths[static_cast<size_t>(l)]);
    if (!paths[kLevels].empty()) out += fmt::format("<path fill=\"#d62728\" d=\"{}\"/>", paths[kLevels]);
    if (!masked_path.empty()) out += fmt::format("<path class=\"m\" d=\"{}\"/>", masked_path);
    if (!crosses.empty()) out += fmt::format("<path class=\"mx\" d=\"{}\"/>", crosses);
    if (!zero_path.empty())
      out += fmt::format("<path class=\"z\" stroke-width=\"{}\" d=\"{}\"/>", std::max(2.0, cell / 5.0), zero_path);
    out += "</g>";
  }
  out += "</svg>";
  return out;
}

std::string legend_html(const HeatmapPlan& plan, Lang lang) {
  std::string stops;
  for (int k = 0; k <= 10; ++k) stops += (k ? "," : "") + hex(viridis(k / 10.0));
  std::string out = "<div class=\"legend\">";
  out += fmt::format("<span class=\"lk\">{}</span> <span class=\"sv\">{}</span>"
                     "<span class=\"bar\" style=\"background:linear-gradient(90deg,{})\"></span>"
                     "<span class=\"sv\">{}</span>",
                     esc(heatmap_text(lang, "scale")), esc(scale_number(plan.lo)), stops,
                     esc(scale_number(plan.hi)));
  const std::string zero_fill = hex(viridis(cell_level(plan, 0.0f)));
  if (plan.has_zero)
    out += fmt::format(
        "<span class=\"key\"><svg class=\"sw\" viewBox=\"0 0 16 16\" width=\"16\" height=\"16\" aria-hidden=\"true\">"
        "<rect width=\"16\" height=\"16\" fill=\"{}\"/><path class=\"z\" stroke-width=\"4\" d=\"M8 8h0\"/></svg>"
        " {}</span>",
        zero_fill, esc(heatmap_text(lang, "zero")));
  if (plan.has_masked)
    out += fmt::format(
        "<span class=\"key\"><svg class=\"sw\" viewBox=\"0 0 16 16\" width=\"16\" height=\"16\" aria-hidden=\"true\">"
        "<rect width=\"16\" height=\"16\" class=\"m\"/><path class=\"mx\" d=\"M4 4l8 8M12 4l-8 8\"/></svg>"
        " {}</span>",
        esc(heatmap_text(lang, "masked")));
  if (plan.has_invalid)
    out += fmt::format(
        "<span class=\"key\"><svg class=\"sw\" viewBox=\"0 0 16 16\" width=\"16\" height=\"16\" aria-hidden=\"true\">"
        "<rect width=\"16\" height=\"16\" fill=\"#d62728\"/></svg> {}</span>",
        esc(heatmap_text(lang, "invalid")));
  return out + "</div>\n";
}

std::string heatmaps_html(const Walk& walk, const Step& step, Lang lang) {
  if (!wants_heatmap(walk, step)) return "";
  const HeatmapPlan plan = plan_heatmap(walk, step, kHtmlMaxCells, kHtmlMaxBlocks);
  if (plan.blocks.empty()) return "";
  bool positions = false;
  const auto labels = heatmap_labels(walk, plan, &positions);
  std::string out = "<div class=\"heatmaps\">\n";
  out += fmt::format("<p class=\"hm-title\">{} \xC2\xB7 {}</p>\n", esc(heatmap_text(lang, "rows")),
                     esc(heatmap_text(lang, "cols")));
  for (const auto& note : heatmap_notes(plan, lang)) out += "<p class=\"hm-note\">" + esc(note) + "</p>\n";
  // One row of figures per batch: the heads of a batch side by side; a group of heads
  // (Step::head_groups) framed together under its caption.
  int64_t current_batch = -2;
  for (size_t bi = 0; bi < plan.blocks.size(); ++bi) {
    const HeatmapBlock& blk = plan.blocks[bi];
    const bool in_group = blk.group >= 0;
    if (blk.batch != current_batch) {
      if (current_batch != -2) out += in_group ? "</div></div>\n" : "</div>\n";
      out += "<div class=\"hm-row\">";
      current_batch = blk.batch;
    } else if (starts_group(plan, bi)) {
      out += "</div>";
    }
    if (starts_group(plan, bi))
      out += fmt::format("<div class=\"hm-group\" data-group=\"{}\"><p class=\"hm-group-label\">{}</p>", blk.group,
                         esc(group_caption(plan, blk.group, lang)));
    const std::string caption = block_caption(blk, lang);
    out += "<figure class=\"hm\">";
    if (!caption.empty()) out += "<figcaption>" + esc(caption) + "</figcaption>";
    out += svg_block(step, plan, blk, labels, positions, caption);
    out += "</figure>";
  }
  out += !plan.blocks.empty() && plan.blocks.back().group >= 0 ? "</div></div>\n" : "</div>\n";
  out += legend_html(plan, lang);
  return out + "</div>\n";
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
  const StageInfo* info = find_stage(walk.stage);
  std::string out = "<code>" + esc(walk.stage) + "</code>";
  if (info)
    out += fmt::format(" <span class=\"section\">{}</span> <span class=\"stage-desc\">{}</span>",
                       esc(fill_placeholders(ui_text(lang, section_text_key(*info)), {{"section", info->section}, {"chapter", chapter_of(info->section)}})),
                       esc(ui_text(lang, std::string("stage.") + walk.stage)));
  return out;
}

std::string step_html(const Walk& walk, size_t i, Lang lang) {
  const Step& step = walk.steps[i];
  std::string out = fmt::format("<section class=\"step\" id=\"{}\" data-step=\"{}\">\n", step_id(walk, i),
                                esc(step.name));
  out += fmt::format("<h3><a class=\"num\" href=\"#{}\">{}</a> <code class=\"name\">{}</code>", step_id(walk, i),
                     i + 1, esc(step.name));
  if (!step.title.empty()) out += " <span class=\"title\">" + esc(step.title) + "</span>";
  if (step.words.empty()) out += " <code class=\"shape\">" + esc(torch_size_str(step.shape())) + "</code>";
  if (const StageInfo* info = find_stage(walk.stage))
    out += fmt::format(" <a class=\"chapter\" href=\"{}\" title=\"{}\">\xC2\xA7{}</a>", kChapterUrl,
                       esc(page_text(lang, "chapter")), esc(info->section));
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
  out += heatmaps_html(walk, step, lang);
  if (step.series) out += series_svg(step);
  out += checks_html(walk, lang, i + 1, false);
  return out + "</section>\n";
}

std::string walk_html(const Walk& walk, Lang lang) {
  std::string out = fmt::format("<section class=\"walk\" id=\"stage-{}\" data-stage=\"{}\">\n", esc(walk.stage),
                                esc(walk.stage));
  out += "<h2>" + stage_heading(walk, lang) + "</h2>\n";
  if (!walk.notes.empty()) {
    out += "<ul class=\"notes\">\n";
    for (const auto& n : walk.notes)
      out += "<li>" + esc(ui_text(lang, "note")) + esc(heatmap_text(lang, "colon")) + esc(n) + "</li>\n";
    out += "</ul>\n";
  }
  for (size_t i = 0; i < walk.steps.size(); ++i) out += step_html(walk, i, lang);
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


std::string settings_line(const Config& c) {
  return fmt::format("seed {} / {} \xC2\xB7 d_out {} \xC2\xB7 heads {} \xC2\xB7 batch {} \xC2\xB7 dropout {:g} "
                     "\xC2\xB7 attn_dropout {:g} \xC2\xB7 qkv_bias {} \xC2\xB7 init {} \xC2\xB7 dropout_rng {}",
                     c.seed1, c.seed2, c.d_out, c.heads, c.batch, c.dropout, c.attn_dropout,
                     c.qkv_bias ? "True" : "False", to_string(c.init), to_string(c.dropout_rng));
}

}  // namespace

std::string html_title(const std::vector<Walk>& walks, Lang lang) {
  std::string title = "attn-walk";
  if (walks.size() == 1) title += " \xE2\x80\x94 " + walks[0].stage;
  else if (walks.size() > 1) title += " \xE2\x80\x94 " + page_text(lang, "all_stages");
  return title;
}

std::string render_html_body(const std::vector<Walk>& walks, Lang lang) {
  const std::string colon = esc(heatmap_text(lang, "colon"));
  std::string out = "<header>\n<h1>" + esc(html_title(walks, lang)) + "</h1>\n";
  out += "<p class=\"meta\">" + esc(page_text(lang, "chapter")) + "</p>\n";
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
    out += "<p class=\"meta\">" + esc(page_text(lang, "settings")) + colon + esc(settings_line(w.config)) + "</p>\n";
  }
  out += "</header>\n";
  out += toc_html(walks, lang);
  out += "<main>\n";
  for (const auto& w : walks) out += walk_html(w, lang);
  out += "</main>\n";
  out += "<footer>" + esc(fmt::format(page_text(lang, "generated"), ATTN_WALK_VERSION)) + "</footer>\n";
  return out;
}

std::string render_html(const std::vector<Walk>& walks, const RenderOptions& opts) {
  PageParts parts;
  parts.lang = opts.lang == Lang::Zh ? "zh-CN" : "en";
  parts.title = html_title(walks, opts.lang);
  parts.body = render_html_body(walks, opts.lang);
  parts.data_json = opts.page_data;
  return render_page(parts);
}

}  // namespace attn
