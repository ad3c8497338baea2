// The heatmaps of a step as inline SVG figures for the HTML page: the plan
// (render/heatmap.h) drawn as a grid of cells under token labels, with its legend.
// Every label is HTML-escaped (html_escape).
#include "render/html_heatmap.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "render/heatmap.h"

namespace attn {

namespace {

// Heatmaps on the page: at most 32 rows and columns and 16 blocks a step, as in the
// terminal, so a (2, 12, 1024, 1024) tensor stays a few hundred kilobytes of SVG.
constexpr int64_t kHtmlMaxCells = 32;
constexpr size_t kHtmlMaxBlocks = 16;
constexpr int kHtmlLabelWidth = 14;  // display columns of a label, at most

std::string hex(Rgb c) { return fmt::format("#{:02x}{:02x}{:02x}", c.r, c.g, c.b); }

bool is_light(Rgb c) { return 0.299 * c.r + 0.587 * c.g + 0.114 * c.b > 140.0; }

// Rough width of a label in pixels at `font` px: CJK about one em, the rest about 0.6 em.
double label_px(const std::string& s, double font) { return display_width(s) * font * 0.6; }

// Column labels with wide (CJK) characters are written upright, one glyph under another; so is
// a label of one glyph (a letter, the ↳ of a character's continuing token), which turned on its
// side would read as another sign.
bool stacked(const std::string& label) {
  const auto all = glyphs(label);
  if (all.size() == 1) return true;
  for (const auto& g : all)
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

// Where a block's parts go: cells of `cell` px after `left` px of row labels and below
// `top` px of column labels; the labels as drawn.
struct SvgGrid {
  size_t n = 0;
  int cell = 0;
  double font = 0;
  bool numbers = false;  // few cells: each with its value written in it
  int left = 0, top = 0, width = 0, height = 0;
  std::vector<std::string> shown;       // the tokens, cut to fit
  std::vector<std::string> row_labels;  // "2 journey", or the token alone if it is its position
  int x(size_t c) const { return left + static_cast<int>(c) * cell; }
  int y(size_t r) const { return top + static_cast<int>(r) * cell; }
};

SvgGrid grid_of(const HeatmapPlan& plan, const std::vector<std::string>& labels, bool positions) {
  SvgGrid g;
  g.n = plan.index.size();
  g.cell = g.n <= 8 ? 40 : g.n <= 16 ? 24
                                     : 14;
  g.font = g.n <= 16 ? 12 : 10;
  g.numbers = g.n <= 8;
  for (const auto& l : labels) g.shown.push_back(fit_width(l, kHtmlLabelWidth));
  double row_w = 0, col_h = 0;
  for (size_t r = 0; r < g.n; ++r) {
    const std::string rl = positions ? g.shown[r] : fmt::format("{} {}", plan.index[r] + 1, g.shown[r]);
    g.row_labels.push_back(rl);
    row_w = std::max(row_w, label_px(rl, g.font));
    col_h = std::max(col_h, stacked(g.shown[r]) ? static_cast<double>(glyphs(g.shown[r]).size()) * g.font * 1.15
                                                : label_px(g.shown[r], g.font));
  }
  g.left = static_cast<int>(std::ceil(row_w)) + 8;
  g.top = static_cast<int>(std::ceil(col_h)) + 8;
  g.width = g.left + static_cast<int>(g.n) * g.cell + 2;
  g.height = g.top + static_cast<int>(g.n) * g.cell + 2;
  return g;
}

// Row labels on the left; column labels turned to read upwards, or, with CJK in them, one
// glyph under another.
std::string svg_labels(const SvgGrid& g) {
  std::string out = "<g class=\"lbl rows\" text-anchor=\"end\">";
  for (size_t r = 0; r < g.n; ++r)
    out += fmt::format("<text x=\"{}\" y=\"{}\" dy=\".35em\">{}</text>", g.left - 6, g.y(r) + g.cell / 2.0,
                       html_escape(g.row_labels[r]));
  out += "</g><g class=\"lbl cols\">";
  for (size_t c = 0; c < g.n; ++c) {
    const double x = g.x(c) + g.cell / 2.0;
    if (stacked(g.shown[c])) {
      const auto glyph = glyphs(g.shown[c]);
      out += "<text class=\"up\">";
      for (size_t k = 0; k < glyph.size(); ++k)
        out += fmt::format("<tspan x=\"{}\" y=\"{:.1f}\">{}</tspan>", x,
                           g.top - 6 - static_cast<double>(glyph.size() - 1 - k) * g.font * 1.15,
                           html_escape(glyph[k]));
      out += "</text>";
    } else {
      out += fmt::format("<text transform=\"translate({} {}) rotate(-90)\" dy=\".35em\">{}</text>", x, g.top - 6,
                         html_escape(g.shown[c]));
    }
  }
  return out + "</g>";
}

float block_value(const Step& step, const HeatmapPlan& plan, const HeatmapBlock& blk, size_t r, size_t c) {
  return step.value.data[blk.offset + static_cast<size_t>(plan.index[r] * plan.T + plan.index[c])];
}

// Few cells: one rectangle each, with its value written in it and a tooltip.
std::string svg_numbered_cells(const Step& step, const HeatmapPlan& plan, const HeatmapBlock& blk, const SvgGrid& g) {
  double max_abs = 0;
  for (size_t r = 0; r < g.n; ++r)
    for (size_t c = 0; c < g.n; ++c) {
      const float v = block_value(step, plan, blk, r, c);
      if (std::isfinite(v)) max_abs = std::max(max_abs, std::fabs(static_cast<double>(v)));
    }
  std::string out = "<g class=\"cells\">";
  for (size_t r = 0; r < g.n; ++r)
    for (size_t c = 0; c < g.n; ++c) {
      const float v = block_value(step, plan, blk, r, c);
      const CellKind kind = cell_kind(v);
      const std::string tip = fmt::format("<title>{} \xE2\x86\x92 {}: {}</title>",
                                          html_escape(g.row_labels[r]), html_escape(g.shown[c]), tooltip_number(v));
      const std::string txt = cell_number(v, max_abs);
      const double fs = std::min(12.0, g.cell * 1.55 / std::max<size_t>(4, txt.size()));
      const double cx = g.x(c) + g.cell / 2.0, cy = g.y(r) + g.cell / 2.0;
      if (kind == CellKind::Masked) {
        out += fmt::format("<rect class=\"m\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\">{}</rect>", g.x(c), g.y(r),
                           g.cell, g.cell, tip);
        out += fmt::format("<text class=\"mt\" x=\"{}\" y=\"{}\" dy=\".35em\" font-size=\"{}\">{}</text>", cx, cy, fs, txt);
        continue;
      }
      const Rgb rgb = kind == CellKind::Invalid ? Rgb{214, 39, 40} : viridis(cell_level(blk, v));
      out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\">{}</rect>", g.x(c), g.y(r),
                         g.cell, g.cell, hex(rgb), tip);
      out += fmt::format("<text x=\"{}\" y=\"{}\" dy=\".35em\" font-size=\"{}\" fill=\"{}\"{}>{}</text>", cx, cy, fs,
                         is_light(rgb) ? "#000" : "#fff", kind == CellKind::Zero ? " font-style=\"italic\"" : "", txt);
    }
  return out + "</g>";
}

// Many cells: one path per colour, runs of equal colour in a row merged; -inf cells grey
// with a cross, exact zeros with a dot.
std::string svg_path_cells(const Step& step, const HeatmapPlan& plan, const HeatmapBlock& blk, const SvgGrid& g) {
  constexpr int kLevels = 32;
  std::vector<std::string> paths(kLevels + 1);  // the last: invalid
  std::string masked_path, zero_path, crosses;
  const auto level_of = [&](float v, CellKind kind) {
    return kind == CellKind::Invalid ? kLevels : static_cast<int>(std::lround(cell_level(blk, v) * (kLevels - 1)));
  };
  const auto add_dot = [&](size_t r, size_t c) {
    zero_path += fmt::format("M{} {}h0", g.x(c) + g.cell / 2.0, g.y(r) + g.cell / 2.0);
  };
  for (size_t r = 0; r < g.n; ++r) {
    size_t c = 0;
    while (c < g.n) {
      const float v = block_value(step, plan, blk, r, c);
      const CellKind kind = cell_kind(v);
      if (kind == CellKind::Masked) {
        const int x = g.x(c), y = g.y(r), m = std::max(3, g.cell / 4), sz = g.cell - 2 * m;
        masked_path += fmt::format("M{} {}h{}v{}h-{}z", x, y, g.cell, g.cell, g.cell);
        crosses += fmt::format("M{} {}l{} {}M{} {}l-{} {}", x + m, y + m, sz, sz, x + m + sz, y + m, sz, sz);
        ++c;
        continue;
      }
      if (kind == CellKind::Zero) add_dot(r, c);
      const int level = level_of(v, kind);
      size_t run = 1;
      while (c + run < g.n) {
        const float w = block_value(step, plan, blk, r, c + run);
        const CellKind k2 = cell_kind(w);
        if (k2 == CellKind::Masked || level_of(w, k2) != level) break;
        if (k2 == CellKind::Zero) add_dot(r, c + run);
        ++run;
      }
      const int w = static_cast<int>(run) * g.cell;
      paths[static_cast<size_t>(level)] += fmt::format("M{} {}h{}v{}h-{}z", g.x(c), g.y(r), w, g.cell, w);
      c += run;
    }
  }
  std::string out = "<g class=\"cells\">";
  for (int l = 0; l < kLevels; ++l)
    if (!paths[static_cast<size_t>(l)].empty())
      out += fmt::format("<path fill=\"{}\" d=\"{}\"/>", hex(viridis(static_cast<double>(l) / (kLevels - 1))),
                         paths[static_cast<size_t>(l)]);
  if (!paths[kLevels].empty()) out += fmt::format("<path fill=\"#d62728\" d=\"{}\"/>", paths[kLevels]);
  if (!masked_path.empty()) out += fmt::format("<path class=\"m\" d=\"{}\"/>", masked_path);
  if (!crosses.empty()) out += fmt::format("<path class=\"mx\" d=\"{}\"/>", crosses);
  if (!zero_path.empty())
    out += fmt::format("<path class=\"z\" stroke-width=\"{}\" d=\"{}\"/>", std::max(2.0, g.cell / 5.0), zero_path);
  return out + "</g>";
}

// One (T, T) block as an SVG: token labels on the left (rows, queries) and on top
// (columns, keys, written upwards), a cell per entry. Its width and height are its natural
// size; the page's CSS lets it grow into the width it has.
std::string svg_block(const Step& step, const HeatmapPlan& plan, const HeatmapBlock& blk, const SvgGrid& g,
                      const std::string& caption) {
  // Where the grid is and which rows of the tensor it shows, for the page's hover highlight.
  std::string index_list;
  for (int64_t i : plan.index) index_list += (index_list.empty() ? "" : " ") + std::to_string(i);
  const std::string aria = html_escape(step.name) + (caption.empty() ? "" : ", " + html_escape(caption));
  std::string out = fmt::format(
      "<svg class=\"heatmap\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {0} {1}\" "
      "width=\"{0}\" height=\"{1}\" role=\"img\" aria-label=\"{2}\" font-size=\"{3}\" "
      "data-grid=\"{4} {5} {6}\" data-index=\"{7}\">"
      "<title>{2}</title>",
      g.width, g.height, aria, g.font, g.left, g.top, g.cell, index_list);
  out += svg_labels(g);
  out += g.numbers ? svg_numbered_cells(step, plan, blk, g) : svg_path_cells(step, plan, blk, g);
  return out + "</svg>";
}

// A colour bar from lo to hi under its words ("scale", or "scale of this matrix").
std::string scale_bar_html(const std::string& key, double lo, double hi, Lang lang) {
  std::string stops;
  for (int k = 0; k <= 10; ++k) stops += (k ? "," : "") + hex(viridis(k / 10.0));
  return fmt::format("<span class=\"lk\">{}</span> <span class=\"sv\">{}</span>"
                     "<span class=\"bar\" style=\"background:linear-gradient(90deg,{})\"></span>"
                     "<span class=\"sv\">{}</span>",
                     html_escape(heatmap_text(lang, key)), html_escape(scale_number(lo)), stops,
                     html_escape(scale_number(hi)));
}

// The step's legend: its scale (unless each matrix has its own, under it), and the marks
// of exact zeros, -inf and nan.
std::string legend_html(const HeatmapPlan& plan, Lang lang) {
  std::string out = "<div class=\"legend\">";
  if (!plan.per_matrix) out += scale_bar_html("scale", plan.lo, plan.hi, lang);
  const std::string zero_fill = hex(viridis(cell_level(plan, 0.0f)));
  if (plan.has_zero)
    out += fmt::format(
        "<span class=\"key\"><svg class=\"sw\" viewBox=\"0 0 16 16\" width=\"16\" height=\"16\" aria-hidden=\"true\">"
        "<rect width=\"16\" height=\"16\" fill=\"{}\"/><path class=\"z\" stroke-width=\"4\" d=\"M8 8h0\"/></svg>"
        " {}</span>",
        zero_fill, html_escape(heatmap_text(lang, "zero")));
  if (plan.has_masked)
    out += fmt::format(
        "<span class=\"key\"><svg class=\"sw\" viewBox=\"0 0 16 16\" width=\"16\" height=\"16\" aria-hidden=\"true\">"
        "<rect width=\"16\" height=\"16\" class=\"m\"/><path class=\"mx\" d=\"M4 4l8 8M12 4l-8 8\"/></svg>"
        " {}</span>",
        html_escape(heatmap_text(lang, "masked")));
  if (plan.has_invalid)
    out += fmt::format(
        "<span class=\"key\"><svg class=\"sw\" viewBox=\"0 0 16 16\" width=\"16\" height=\"16\" aria-hidden=\"true\">"
        "<rect width=\"16\" height=\"16\" fill=\"#d62728\"/></svg> {}</span>",
        html_escape(heatmap_text(lang, "invalid")));
  return out + "</div>\n";
}

}  // namespace

std::string heatmaps_html(const Walk& walk, const Step& step, const RenderOptions& opts) {
  const Lang lang = opts.lang;
  if (!wants_heatmap(walk, step)) return "";
  const HeatmapPlan plan = plan_heatmap(walk, step, kHtmlMaxCells, kHtmlMaxBlocks,
                                        opts.heatmap_per_matrix ? HeatmapScale::Matrix : HeatmapScale::Fixed);
  if (plan.blocks.empty()) return "";
  bool positions = false;
  const auto labels = heatmap_labels(walk, plan, &positions);
  const SvgGrid grid = grid_of(plan, labels, positions);
  std::string out = "<div class=\"heatmaps\">\n";
  out += fmt::format("<p class=\"hm-title\">{} \xC2\xB7 {}</p>\n", html_escape(heatmap_text(lang, "rows")),
                     html_escape(heatmap_text(lang, "cols")));
  for (const auto& note : heatmap_notes(plan, lang))
    out += "<p class=\"hm-note\">" + html_escape(note) + "</p>\n";
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
                         html_escape(group_caption(plan, blk.group, lang)));
    const std::string caption = block_caption(blk, lang);
    // Grows from its natural width into the room it has, up to twice that.
    out += fmt::format("<figure class=\"hm\" style=\"flex-basis:{}px;max-width:{}px\">", grid.width, 2 * grid.width);
    if (!caption.empty()) out += "<figcaption>" + html_escape(caption) + "</figcaption>";
    out += svg_block(step, plan, blk, grid, caption);
    if (plan.per_matrix)
      out += "<div class=\"legend\">" + scale_bar_html("scale_matrix", blk.lo, blk.hi, lang) + "</div>";
    out += "</figure>";
  }
  out += !plan.blocks.empty() && plan.blocks.back().group >= 0 ? "</div></div>\n" : "</div>\n";
  out += legend_html(plan, lang);
  return out + "</div>\n";
}

}  // namespace attn
