// The heatmap drawn in the terminal (render_heatmap): shades or 256-colour cells, numbers
// while they fit, token labels cut to their display width, and the legend.
#include "render/heatmap.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace attn {

// ---------------------------------------------------------------- the terminal heatmap

namespace {

constexpr int64_t kTermMaxCells = 32;  // 32 columns of 2 = 64 terminal columns
constexpr size_t kTermMaxBlocks = 16;
constexpr int kRowLabelWidth = 12;  // display columns of a row label, at most
constexpr int kColorLevels = 8;
// Numbers in the cells while they fit: at most this many columns, 7 terminal columns each
// (a space, the number right-aligned in 5, and a shade or a space).
constexpr size_t kNumberMaxColumns = 10;
constexpr int kNumberCellWidth = 7;

const char* kShades[] = {"░░", "▒▒", "▓▓", "██"};
const char* kShade1[] = {"░", "▒", "▓", "█"};  // the same, one column
const char* kZeroGlyph = "··";
const char* kMaskedGlyph = "××";
const char* kInvalidGlyph = "!!";

// Viridis in eight xterm 256-colour backgrounds, chosen by hand so that every level is
// a different colour and brightness rises with the value (the nearest cube colours of
// viridis repeat themselves and step back in brightness).
constexpr int kPalette[kColorLevels] = {53, 54, 60, 30, 36, 71, 149, 220};

int color_of_level(double t) {
  return kPalette[std::min(kColorLevels - 1, static_cast<int>(t * kColorLevels))];
}

std::string pad_right(const std::string& s, int width) {
  return s + std::string(static_cast<size_t>(std::max(0, width - display_width(s))), ' ');
}

void rtrim_line(std::string& s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
}

std::string rtrim(std::string s) {
  rtrim_line(s);
  return s;
}

// What one cell (two terminal columns) shows: its text and, with colour, its SGR colours.
struct HeatmapGlyphCell {
  const char* text;
  int bg = -1;  // -1: the terminal's own background
  int fg = -1;  // -1: the terminal's own foreground
};

constexpr int kZeroFg = 250, kMaskedFg = 244, kInvalidBg = 196, kInvalidFg = 15;

HeatmapGlyphCell cell(const HeatmapBlock& scale, float v, bool color) {
  switch (cell_kind(v)) {
    case CellKind::Masked: return {kMaskedGlyph, -1, color ? kMaskedFg : -1};
    case CellKind::Invalid: return color ? HeatmapGlyphCell{kInvalidGlyph, kInvalidBg, kInvalidFg} : HeatmapGlyphCell{kInvalidGlyph};
    case CellKind::Zero:
      return color ? HeatmapGlyphCell{kZeroGlyph, color_of_level(cell_level(scale, v)), kZeroFg} : HeatmapGlyphCell{kZeroGlyph};
    case CellKind::Value: break;
  }
  const double t = cell_level(scale, v);
  if (color) return {"  ", color_of_level(t), -1};
  return {kShades[std::min(3, static_cast<int>(t * 4))]};
}

// Appends cells, switching colours only where they change, and resets at the end.
struct CellWriter {
  std::string& out;
  int bg = -1, fg = -1;
  void put(const HeatmapGlyphCell& c) {
    if (c.bg != bg || c.fg != fg) {
      std::string codes;
      if ((c.bg == -1 && bg != -1) || (c.fg == -1 && fg != -1)) {
        codes = "0";
        bg = fg = -1;
      }
      if (c.bg != bg) codes += fmt::format("{}48;5;{}", codes.empty() ? "" : ";", c.bg);
      if (c.fg != fg) codes += fmt::format("{}38;5;{}", codes.empty() ? "" : ";", c.fg);
      out += "\033[" + codes + "m";
      bg = c.bg;
      fg = c.fg;
    }
    out += c.text;
  }
  void finish() {
    if (bg != -1 || fg != -1) out += "\033[0m";
    bg = fg = -1;
  }
};

// "scale: " and the colours or shades from lo to hi.
std::string scale_legend(const std::string& key, double lo, double hi, const RenderOptions& opts) {
  std::string out = heatmap_text(opts.lang, key) + heatmap_text(opts.lang, "colon");
  const double span = hi - lo;
  CellWriter w{out};
  if (opts.color) {
    out += scale_number(lo) + " ";
    for (int k = 0; k < kColorLevels; ++k) w.put({"  ", kPalette[k], -1});
    w.finish();
    out += " " + scale_number(hi);
  } else {
    for (int k = 0; k < 4; ++k)
      out += fmt::format("{}{} {}..{}", k ? "  " : "", kShades[k], scale_number(lo + span * k / 4),
                         scale_number(lo + span * (k + 1) / 4));
  }
  return out;
}

// The legend under the blocks: what a mask's 1 means, the step's scale (each block has
// its own with a per-matrix scale, under it), and the marks of 0, -inf and nan.
std::string legend(const HeatmapPlan& plan, const RenderOptions& opts) {
  std::string out;
  // The two masks mean opposite things: say which cells a 1 marks.
  if (!plan.mask_meaning.empty()) out += heatmap_text(opts.lang, plan.mask_meaning) + "\n";
  if (!plan.per_matrix)
    out += scale_legend(plan.probabilities ? "scale_fixed" : "scale", plan.lo, plan.hi, opts);
  CellWriter w{out};
  HeatmapBlock scale;
  scale.lo = plan.lo, scale.hi = plan.hi;
  const auto special = [&](float v, const char* key) {
    if (!out.empty() && out.back() != '\n') out += "   ";
    w.put(cell(scale, v, opts.color));
    w.finish();
    out += " " + heatmap_text(opts.lang, key);
  };
  if (plan.has_zero) special(0.0f, "zero");
  if (plan.has_masked) special(-INFINITY, "masked");
  if (plan.has_invalid) special(NAN, "invalid");
  return out.empty() || out.back() == '\n' ? out : out + "\n";
}

// Decimals for the numbers in the cells, or -1 if they do not fit (too many columns, or a
// value that needs more than 5 characters).
int number_decimals(const HeatmapPlan& plan, const std::vector<float>& data) {
  if (plan.index.size() > kNumberMaxColumns) return -1;
  double max_abs = 0.0;
  for (const auto& blk : plan.blocks)
    for (int64_t i : plan.index)
      for (int64_t j : plan.index) {
        const float v = data[blk.offset + static_cast<size_t>(i * plan.T + j)];
        if (std::isfinite(v)) max_abs = std::max(max_abs, std::fabs(static_cast<double>(v)));
      }
  return max_abs < 9.995 ? 2 : max_abs < 99.95 ? 1
                                               : -1;
}

// A cell with its number: masked and exact-zero cells have no background and their own
// text, so they never look like a small weight.
void put_number_cell(CellWriter& w, const HeatmapBlock& scale, float v, int decimals, bool color) {
  std::string text;
  const char* mark = " ";
  const CellKind kind = cell_kind(v);
  switch (kind) {
    case CellKind::Masked: text = "-inf", mark = "×"; break;
    case CellKind::Invalid: text = std::isnan(v) ? "nan" : "inf", mark = "!"; break;
    case CellKind::Zero: text = "0", mark = "·"; break;
    case CellKind::Value: text = cell_decimals(v, decimals); break;
  }
  const double t = cell_level(scale, v);
  if (kind == CellKind::Value && !color) mark = kShade1[std::min(3, static_cast<int>(t * 4))];
  // With colour the background shades a value; the marks of 0, -inf and nan stay.
  const std::string body = fmt::format(" {:>5}{}", text, color && kind == CellKind::Value ? " " : mark);
  if (!color) {
    w.out += body;
    return;
  }
  HeatmapGlyphCell c{""};
  if (kind == CellKind::Value) c = {"", color_of_level(t), t >= 0.75 ? 16 : 231};  // dark text on light colours
  else if (kind == CellKind::Invalid) c = {"", kInvalidBg, kInvalidFg};
  else c = {"", -1, kind == CellKind::Zero ? kZeroFg : kMaskedFg};
  w.put(c);
  w.out += body;
}

// The column labels, one header line or more. With numbers, each token over its own cell
// (cut to the cell). In the compact 2-column cells, the positions written downwards, one
// digit a line, right-aligned, so that every column has its number (12 tokens: 10, 11, 12).
std::string column_header(const HeatmapPlan& plan, const std::vector<std::string>& labels, bool numbers,
                          int prefix_width) {
  const std::string prefix(static_cast<size_t>(prefix_width), ' ');
  if (numbers) {
    std::string line = prefix;
    for (const auto& l : labels) {
      const std::string label = fit_width(l, kNumberCellWidth - 1);
      line += std::string(static_cast<size_t>(kNumberCellWidth - display_width(label)), ' ') + label;
    }
    rtrim_line(line);
    return line + "\n";
  }
  std::vector<std::string> positions;
  size_t digits = 1;
  for (int64_t i : plan.index) {
    positions.push_back(std::to_string(i + 1));
    digits = std::max(digits, positions.back().size());
  }
  std::string out;
  for (size_t d = 0; d < digits; ++d) {
    std::string line = prefix;
    for (const auto& p : positions) {
      const size_t pad = digits - p.size();  // right-aligned: the units on the last line
      line += d < pad ? ' ' : p[d - pad];
      line += ' ';
    }
    rtrim_line(line);
    out += line + "\n";
  }
  return out;
}

}  // namespace

std::string render_heatmap(const Walk& walk, const Step& step, const RenderOptions& opts) {
  if (!wants_heatmap(walk, step)) return "";
  const HeatmapPlan plan = plan_heatmap(walk, step, kTermMaxCells, kTermMaxBlocks,
                                        opts.heatmap_per_matrix ? HeatmapScale::Matrix : HeatmapScale::Fixed);
  if (plan.blocks.empty()) return "";
  const int64_t T = plan.T;
  const std::vector<float>& data = step.value.data;
  const int decimals = number_decimals(plan, data);
  const bool numbers = decimals >= 0;

  // Labels: "<position> <token>", the token cut to kRowLabelWidth columns.
  bool labels_are_positions = false;
  const std::vector<std::string> labels = heatmap_labels(walk, plan, &labels_are_positions);
  // The position goes before each row label, unless the labels are the positions
  // already (x1, x2, ... of a bare array or --random-input).
  const int index_width = labels_are_positions ? -1 : static_cast<int>(std::to_string(T).size());
  int label_width = 1;
  for (const auto& l : labels) label_width = std::max(label_width, display_width(fit_width(l, kRowLabelWidth)));
  const int prefix_width = index_width + 1 + label_width + 1;
  const std::string header = column_header(plan, labels, numbers, prefix_width);

  std::string out = "\n" + fmt::format(heatmap_text(opts.lang, "title"), sanitize_label(step.name)) + "\n";
  for (const auto& note : heatmap_notes(plan, opts.lang)) out += note + "\n";
  for (size_t bi = 0; bi < plan.blocks.size(); ++bi) {
    const HeatmapBlock& blk = plan.blocks[bi];
    const std::string caption = block_caption(blk, opts.lang);
    // A group of heads (GQA's shared keys and values): a rule with its name before its first block.
    if (starts_group(plan, bi)) out += (bi ? "\n" : "") + std::string("\u2501\u2501 ") + group_caption(plan, blk.group, opts.lang) + " \u2501\u2501\n";
    if (!caption.empty()) out += (bi && !starts_group(plan, bi) ? "\n" : "") + caption + rtrim(heatmap_text(opts.lang, "colon")) + "\n";
    out += header;
    for (size_t r = 0; r < plan.index.size(); ++r) {
      const int64_t i = plan.index[r];
      std::string line = (index_width > 0 ? fmt::format("{:>{}} ", i + 1, index_width) : "") +
                         pad_right(fit_width(labels[r], kRowLabelWidth), label_width) + " ";
      CellWriter w{line};
      for (int64_t j : plan.index) {
        const float v = data[blk.offset + static_cast<size_t>(i * T + j)];
        if (numbers) put_number_cell(w, blk, v, decimals, opts.color);
        else w.put(cell(blk, v, opts.color));
      }
      w.finish();
      rtrim_line(line);
      out += line + "\n";
    }
    if (plan.per_matrix) out += scale_legend("scale_matrix", blk.lo, blk.hi, opts) + "\n";
  }
  out += legend(plan, opts);
  return out;
}

}  // namespace attn
