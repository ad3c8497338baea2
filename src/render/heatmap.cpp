#include "render/heatmap.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <map>

namespace attn {

// ---------------------------------------------------------------- which steps

namespace {

bool starts_with(const std::string& s, const char* prefix) {
  return s.compare(0, std::strlen(prefix), prefix) == 0;
}

}  // namespace

bool wants_heatmap(const Walk& walk, const Step& step) {
  const Shape& s = step.value.shape;
  const int64_t T = walk.config.inputs.shape.size() == 2 ? walk.config.num_tokens() : 0;
  if (T < 1 || s.size() < 2 || s.size() > 4) return false;
  if (s[s.size() - 1] != T || s[s.size() - 2] != T) return false;
  if (step.value.numel() != numel_of(s)) return false;
  const auto dot = step.name.rfind('.');
  const std::string base = dot == std::string::npos ? step.name : step.name.substr(dot + 1);
  for (const char* prefix : {"attn_scores", "attn_weights", "mask", "masked", "dropout_"})
    if (starts_with(base, prefix)) return true;
  return false;
}

// ---------------------------------------------------------------- the plan

std::vector<std::string> heatmap_labels(const Walk& walk, const HeatmapPlan& plan, bool* are_positions) {
  std::vector<std::string> labels;
  bool positions = true;
  for (int64_t i : plan.index) {
    const std::string position = "x" + std::to_string(i + 1);
    const auto k = static_cast<size_t>(i);
    labels.push_back(k < walk.config.tokens.size() ? sanitize_label(walk.config.tokens[k]) : position);
    positions = positions && labels.back() == position;
  }
  if (are_positions) *are_positions = positions;
  return labels;
}

CellKind cell_kind(float v) {
  if (std::isnan(v)) return CellKind::Invalid;
  if (std::isinf(v)) return v < 0 ? CellKind::Masked : CellKind::Invalid;
  if (v == 0.0f) return CellKind::Zero;
  return CellKind::Value;
}

double cell_level(const HeatmapPlan& plan, float v) {
  if (!std::isfinite(v)) return 0.0;
  const double t = (static_cast<double>(v) - plan.lo) / (plan.hi - plan.lo);
  return std::clamp(t, 0.0, 1.0);
}

HeatmapPlan plan_heatmap(const Walk& walk, const Step& step, int64_t max_cells, size_t max_blocks) {
  HeatmapPlan plan;
  const Tensor& v = step.value;
  const Shape& s = v.shape;
  const int64_t T = s.empty() ? 0 : s.back();
  plan.T = T;
  if (s.size() < 2 || T < 1) return plan;
  const auto dot = step.name.rfind('.');
  const std::string base = dot == std::string::npos ? step.name : step.name.substr(dot + 1);
  plan.probabilities = base.rfind("attn_weights", 0) == 0 || base.rfind("masked_simple", 0) == 0 ||
                       base == "mask" || base == "mask_simple";
  if (base == "mask" || base == "mask_simple") {
    // A stage may mean something else by the name (swa's banded mask): its own legend first.
    const std::string own = walk.stage + "." + base;
    plan.mask_meaning = lang_en().ui.count("heatmap." + own) ? own : base;
  }
  if (s.size() == 4 && static_cast<int64_t>(step.head_groups.size()) == s[1] && !step.head_group_text.empty()) {
    plan.head_groups = step.head_groups;
    plan.head_group_text = step.head_group_text;
  }
  max_cells = std::max<int64_t>(2, max_cells);

  // Rows and columns: all of them, or max_cells evenly spaced ones including both ends.
  if (T <= max_cells) {
    for (int64_t i = 0; i < T; ++i) plan.index.push_back(i);
  } else {
    for (int64_t k = 0; k < max_cells; ++k)
      plan.index.push_back(static_cast<int64_t>(
          std::llround(static_cast<double>(k) * static_cast<double>(T - 1) / static_cast<double>(max_cells - 1))));
  }

  const size_t block_size = static_cast<size_t>(T * T);
  const int64_t B = s.size() >= 3 ? s[0] : 1;
  const int64_t H = s.size() == 4 ? s[1] : 1;
  const size_t batch_size = static_cast<size_t>(H) * block_size;
  for (int64_t b = 0; b < B; ++b) {
    if (b > 0 && std::memcmp(v.data.data(), v.data.data() + b * batch_size, batch_size * sizeof(float)) == 0) {
      plan.repeated_batches.push_back(b);
      continue;
    }
    for (int64_t h = 0; h < H; ++h) {
      if (plan.blocks.size() >= max_blocks) {
        ++plan.blocks_left_out;
        continue;
      }
      HeatmapBlock blk;
      blk.batch = s.size() >= 3 ? b : -1;
      blk.head = s.size() == 4 ? h : -1;
      blk.group = plan.head_groups.empty() ? -1 : plan.head_groups[static_cast<size_t>(h)];
      blk.offset = static_cast<size_t>(b) * batch_size + static_cast<size_t>(h) * block_size;
      plan.blocks.push_back(blk);
    }
  }

  // One scale for the step, over the cells drawn; it always includes 0.
  double lo = 0.0, hi = 0.0;
  for (const auto& blk : plan.blocks)
    for (int64_t i : plan.index)
      for (int64_t j : plan.index) {
        const float x = v.data[blk.offset + static_cast<size_t>(i * T + j)];
        switch (cell_kind(x)) {
          case CellKind::Masked: plan.has_masked = true; break;
          case CellKind::Invalid: plan.has_invalid = true; break;
          case CellKind::Zero: plan.has_zero = true; break;
          case CellKind::Value:
            lo = std::min(lo, static_cast<double>(x));
            hi = std::max(hi, static_cast<double>(x));
            break;
        }
      }
  if (!(hi > lo)) hi = lo + 1.0;
  // Softmax weights and 0/1 masks share one fixed 0..1 scale, so a colour means the same
  // value in every matrix of every stage; scores and dropout-scaled weights keep their range.
  if (plan.probabilities && lo >= 0.0 && hi <= 1.0) lo = 0.0, hi = 1.0;
  plan.lo = lo;
  plan.hi = hi;
  return plan;
}

// ---------------------------------------------------------------- words

std::string heatmap_text(Lang lang, const std::string& key) {
  // The words live with every other text, in src/lang/<language>.cpp.
  return ui_text(lang, "heatmap." + key);
}

std::string block_caption(const HeatmapBlock& block, Lang lang) {
  if (block.head >= 0) return fmt::format(heatmap_text(lang, "batch_head"), block.batch, block.head);
  if (block.batch >= 0) return fmt::format(heatmap_text(lang, "batch"), block.batch);
  return "";
}

std::vector<std::string> heatmap_notes(const HeatmapPlan& plan, Lang lang) {
  std::vector<std::string> notes;
  if (plan.sampled())
    notes.push_back(fmt::format(heatmap_text(lang, "sampled"), plan.T, plan.index.size(), plan.index.size()));
  if (plan.repeated_batches.size() == 1) {
    notes.push_back(fmt::format(heatmap_text(lang, "repeated_one"), plan.repeated_batches[0]));
  } else if (!plan.repeated_batches.empty()) {
    const auto& r = plan.repeated_batches;
    // Repeated batches are usually 1..B-1: show a range rather than a long list.
    const bool contiguous = r.back() - r.front() + 1 == static_cast<int64_t>(r.size());
    std::string list;
    if (contiguous && r.size() > 3) {
      list = fmt::format("{}-{}", r.front(), r.back());
    } else {
      for (size_t i = 0; i < r.size(); ++i) list += (i ? ", " : "") + std::to_string(r[i]);
    }
    notes.push_back(fmt::format(heatmap_text(lang, "repeated_many"), list));
  }
  if (plan.blocks_left_out) notes.push_back(fmt::format(heatmap_text(lang, "left_out"), plan.blocks_left_out));
  return notes;
}

bool starts_group(const HeatmapPlan& plan, size_t i) {
  const HeatmapBlock& b = plan.blocks.at(i);
  if (b.group < 0) return false;
  if (i == 0) return true;
  const HeatmapBlock& prev = plan.blocks[i - 1];
  return prev.group != b.group || prev.batch != b.batch;
}

std::string group_caption(const HeatmapPlan& plan, int64_t group, Lang lang) {
  std::string heads;
  for (size_t h = 0; h < plan.head_groups.size(); ++h)
    if (plan.head_groups[h] == group) heads += (heads.empty() ? "" : ", ") + std::to_string(h);
  return fmt::format(ui_text(lang, plan.head_group_text), group, heads);
}

std::string scale_number(double v) {
  if (v == 0.0) return "0";
  std::string s = fmt::format("{:.4g}", v);
  return s;
}

std::string cell_decimals(double v, int decimals) {
  std::string s = fmt::format("{:.{}f}", v, decimals);
  if (s[0] == '-' && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
  return s;
}

Rgb viridis(double t) {
  // matplotlib's viridis at 0, 0.1, ..., 1.
  static const std::array<Rgb, 11> stops = {{{68, 1, 84},     {72, 36, 117},  {65, 68, 135},
                                             {53, 95, 141},   {42, 120, 142}, {33, 145, 140},
                                             {34, 168, 132},  {68, 191, 112}, {122, 209, 81},
                                             {189, 223, 38},  {253, 231, 37}}};
  t = std::clamp(std::isfinite(t) ? t : 0.0, 0.0, 1.0) * 10.0;
  const int i = std::min(9, static_cast<int>(t));
  const double f = t - i;
  auto mix = [f](int a, int b) { return static_cast<int>(std::lround(a + (b - a) * f)); };
  return {mix(stops[i].r, stops[i + 1].r), mix(stops[i].g, stops[i + 1].g), mix(stops[i].b, stops[i + 1].b)};
}

// ---------------------------------------------------------------- UTF-8

namespace {

// Decodes one code point at s[i]; returns -1 (and len 1) for invalid UTF-8.
int32_t decode(const std::string& s, size_t i, size_t* len) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  *len = 1;
  if (c < 0x80) return c;
  int n = 0;
  int32_t cp = 0, min = 0;
  if ((c & 0xE0) == 0xC0) { n = 1; cp = c & 0x1F; min = 0x80; }
  else if ((c & 0xF0) == 0xE0) { n = 2; cp = c & 0x0F; min = 0x800; }
  else if ((c & 0xF8) == 0xF0) { n = 3; cp = c & 0x07; min = 0x10000; }
  else return -1;
  if (i + static_cast<size_t>(n) >= s.size()) return -1;
  for (int k = 1; k <= n; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return -1;
    cp = (cp << 6) | (b(i + k) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return -1;
  *len = static_cast<size_t>(n + 1);
  return cp;
}

struct Range { int32_t lo, hi; };

bool in(const Range* r, size_t n, int32_t cp) {
  for (size_t i = 0; i < n; ++i)
    if (cp >= r[i].lo && cp <= r[i].hi) return true;
  return false;
}

const Range kZeroWidth[] = {
    {0x0300, 0x036F}, {0x0483, 0x0489}, {0x0591, 0x05BD}, {0x0610, 0x061A}, {0x064B, 0x065F},
    {0x0670, 0x0670}, {0x06D6, 0x06DC}, {0x0E31, 0x0E31}, {0x0E34, 0x0E3A}, {0x0E47, 0x0E4E},
    {0x1AB0, 0x1AFF}, {0x1DC0, 0x1DFF}, {0x200B, 0x200D}, {0x20D0, 0x20FF}, {0x302A, 0x302D},
    {0x3099, 0x309A}, {0xFE00, 0xFE0F}, {0xFE20, 0xFE2F}, {0x1F3FB, 0x1F3FF}, {0xE0100, 0xE01EF}};

const Range kWide[] = {
    {0x1100, 0x115F},   {0x231A, 0x231B},   {0x2329, 0x232A},   {0x23E9, 0x23EC},
    {0x23F0, 0x23F0},   {0x23F3, 0x23F3},   {0x25FD, 0x25FE},   {0x2614, 0x2615},
    {0x2648, 0x2653},   {0x267F, 0x267F},   {0x2693, 0x2693},   {0x26A1, 0x26A1},
    {0x26AA, 0x26AB},   {0x26BD, 0x26BE},   {0x26C4, 0x26C5},   {0x26CE, 0x26CE},
    {0x26D4, 0x26D4},   {0x26EA, 0x26EA},   {0x26F2, 0x26F3},   {0x26F5, 0x26F5},
    {0x26FA, 0x26FA},   {0x26FD, 0x26FD},   {0x2705, 0x2705},   {0x270A, 0x270B},
    {0x2728, 0x2728},   {0x274C, 0x274C},   {0x274E, 0x274E},   {0x2753, 0x2755},
    {0x2757, 0x2757},   {0x2795, 0x2797},   {0x27B0, 0x27B0},   {0x27BF, 0x27BF},
    {0x2B1B, 0x2B1C},   {0x2B50, 0x2B50},   {0x2B55, 0x2B55},   {0x2E80, 0x303E},
    {0x3041, 0x33FF},   {0x3400, 0x4DBF},   {0x4E00, 0x9FFF},   {0xA000, 0xA4CF},
    {0xA960, 0xA97F},   {0xAC00, 0xD7A3},   {0xF900, 0xFAFF},   {0xFE10, 0xFE19},
    {0xFE30, 0xFE6F},   {0xFF00, 0xFF60},   {0xFFE0, 0xFFE6},   {0x16FE0, 0x16FE4},
    {0x17000, 0x18AFF}, {0x1B000, 0x1B2FF}, {0x1F004, 0x1F004}, {0x1F0CF, 0x1F0CF},
    {0x1F18E, 0x1F18E}, {0x1F191, 0x1F19A}, {0x1F200, 0x1F251}, {0x1F300, 0x1F64F},
    {0x1F680, 0x1F6FF}, {0x1F7E0, 0x1F7EB}, {0x1F90C, 0x1F9FF}, {0x1FA70, 0x1FAFF},
    {0x20000, 0x2FFFD}, {0x30000, 0x3FFFD}};

// Characters that must not reach a terminal from a token: C0/C1 controls, DEL, and the
// bidirectional overrides that can reorder what the learner sees.
bool is_control(int32_t cp) {
  return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069) || cp == 0x2028 || cp == 0x2029;
}

int cp_width(int32_t cp) {
  if (in(kZeroWidth, std::size(kZeroWidth), cp)) return 0;
  if (in(kWide, std::size(kWide), cp)) return 2;
  return 1;
}

}  // namespace

std::string clean_utf8(const std::string& s, const std::string& replacement, bool keep_newlines) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    size_t len = 1;
    const int32_t cp = decode(s, i, &len);
    if (cp < 0 || (is_control(cp) && !(keep_newlines && (cp == '\n' || cp == '\t')))) out += replacement;
    else out.append(s, i, len);
    i += len;
  }
  return out;
}

std::string sanitize_label(const std::string& s) {
  if (s.empty()) return "\"\"";
  return clean_utf8(s, "?", false);
}

int display_width(const std::string& s) {
  int w = 0;
  for (size_t i = 0; i < s.size();) {
    size_t len = 1;
    const int32_t cp = decode(s, i, &len);
    w += cp < 0 ? 1 : cp_width(cp);
    i += len;
  }
  return w;
}

std::vector<std::string> glyphs(const std::string& s) {
  std::vector<std::string> out;
  for (size_t i = 0; i < s.size();) {
    size_t len = 1;
    const int32_t cp = decode(s, i, &len);
    const bool joins = cp >= 0 && cp_width(cp) == 0 && !out.empty();
    if (joins) out.back().append(s, i, len);
    else out.push_back(s.substr(i, len));
    i += len;
  }
  return out;
}

std::string fit_width(const std::string& s, int width) {
  if (display_width(s) <= width) return s;
  std::string out;
  int w = 0;
  for (const auto& g : glyphs(s)) {
    const int gw = display_width(g);
    if (w + gw > width - 1) break;
    out += g;
    w += gw;
  }
  return out + "…";
}

// ---------------------------------------------------------------- the terminal heatmap

namespace {

constexpr int64_t kTermMaxCells = 32;   // 32 columns of 2 = 64 terminal columns
constexpr size_t kTermMaxBlocks = 16;
constexpr int kRowLabelWidth = 12;      // display columns of a row label, at most
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
struct Cell {
  const char* text;
  int bg = -1;  // -1: the terminal's own background
  int fg = -1;  // -1: the terminal's own foreground
};

constexpr int kZeroFg = 250, kMaskedFg = 244, kInvalidBg = 196, kInvalidFg = 15;

Cell cell(const HeatmapPlan& plan, float v, bool color) {
  switch (cell_kind(v)) {
    case CellKind::Masked: return {kMaskedGlyph, -1, color ? kMaskedFg : -1};
    case CellKind::Invalid: return color ? Cell{kInvalidGlyph, kInvalidBg, kInvalidFg} : Cell{kInvalidGlyph};
    case CellKind::Zero:
      return color ? Cell{kZeroGlyph, color_of_level(cell_level(plan, v)), kZeroFg} : Cell{kZeroGlyph};
    case CellKind::Value: break;
  }
  const double t = cell_level(plan, v);
  if (color) return {"  ", color_of_level(t), -1};
  return {kShades[std::min(3, static_cast<int>(t * 4))]};
}

// Appends cells, switching colours only where they change, and resets at the end.
struct CellWriter {
  std::string& out;
  int bg = -1, fg = -1;
  void put(const Cell& c) {
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

std::string legend(const HeatmapPlan& plan, const RenderOptions& opts) {
  std::string out;
  // The two masks mean opposite things: say which cells a 1 marks.
  if (!plan.mask_meaning.empty()) out += heatmap_text(opts.lang, plan.mask_meaning) + "\n";
  out += heatmap_text(opts.lang, plan.probabilities ? "scale_fixed" : "scale") + heatmap_text(opts.lang, "colon");
  const double span = plan.hi - plan.lo;
  CellWriter w{out};
  if (opts.color) {
    out += scale_number(plan.lo) + " ";
    for (int k = 0; k < kColorLevels; ++k) w.put({"  ", kPalette[k], -1});
    w.finish();
    out += " " + scale_number(plan.hi);
  } else {
    for (int k = 0; k < 4; ++k)
      out += fmt::format("{}{} {}..{}", k ? "  " : "", kShades[k], scale_number(plan.lo + span * k / 4),
                         scale_number(plan.lo + span * (k + 1) / 4));
  }
  const auto special = [&](float v, const char* key) {
    out += "   ";
    w.put(cell(plan, v, opts.color));
    w.finish();
    out += " " + heatmap_text(opts.lang, key);
  };
  if (plan.has_zero) special(0.0f, "zero");
  if (plan.has_masked) special(-INFINITY, "masked");
  if (plan.has_invalid) special(NAN, "invalid");
  return out + "\n";
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
  return max_abs < 9.995 ? 2 : max_abs < 99.95 ? 1 : -1;
}

// A cell with its number: masked and exact-zero cells have no background and their own
// text, so they never look like a small weight.
void put_number_cell(CellWriter& w, const HeatmapPlan& plan, float v, int decimals, bool color) {
  std::string text;
  const char* mark = " ";
  const CellKind kind = cell_kind(v);
  switch (kind) {
    case CellKind::Masked: text = "-inf", mark = "×"; break;
    case CellKind::Invalid: text = std::isnan(v) ? "nan" : "inf", mark = "!"; break;
    case CellKind::Zero: text = "0", mark = "·"; break;
    case CellKind::Value: text = cell_decimals(v, decimals); break;
  }
  const double t = cell_level(plan, v);
  if (kind == CellKind::Value && !color) mark = kShade1[std::min(3, static_cast<int>(t * 4))];
  // With colour the background shades a value; the marks of 0, -inf and nan stay.
  const std::string body = fmt::format(" {:>5}{}", text, color && kind == CellKind::Value ? " " : mark);
  if (!color) {
    w.out += body;
    return;
  }
  Cell c{""};
  if (kind == CellKind::Value) c = {"", color_of_level(t), t >= 0.75 ? 16 : 231};  // dark text on light colours
  else if (kind == CellKind::Invalid) c = {"", kInvalidBg, kInvalidFg};
  else c = {"", -1, kind == CellKind::Zero ? kZeroFg : kMaskedFg};
  w.put(c);
  w.out += body;
}

}  // namespace

std::string render_heatmap(const Walk& walk, const Step& step, const RenderOptions& opts) {
  if (!wants_heatmap(walk, step)) return "";
  const HeatmapPlan plan = plan_heatmap(walk, step, kTermMaxCells, kTermMaxBlocks);
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

  // Column labels, written across. With numbers, each token over its own cell (cut to the
  // cell); in the compact 2-column cells, the positions, as many as fit without touching.
  std::string column_header(static_cast<size_t>(prefix_width), ' ');
  if (numbers) {
    for (const auto& l : labels) {
      const std::string label = fit_width(l, kNumberCellWidth - 1);
      column_header += std::string(static_cast<size_t>(kNumberCellWidth - display_width(label)), ' ') + label;
    }
  } else {
    int used = 0;  // columns of the header taken so far, after the prefix
    for (size_t k = 0; k < plan.index.size(); ++k) {
      const std::string pos = std::to_string(plan.index[k] + 1);
      const int at = static_cast<int>(2 * k);
      if (at < used) continue;
      column_header += std::string(static_cast<size_t>(at - used), ' ') + pos;
      used = at + static_cast<int>(pos.size()) + 1;
      column_header += ' ';
    }
  }
  rtrim_line(column_header);
  column_header += "\n";

  std::string out = "\n" + fmt::format(heatmap_text(opts.lang, "title"), sanitize_label(step.name)) + "\n";
  for (const auto& note : heatmap_notes(plan, opts.lang)) out += note + "\n";
  for (size_t bi = 0; bi < plan.blocks.size(); ++bi) {
    const HeatmapBlock& blk = plan.blocks[bi];
    const std::string caption = block_caption(blk, opts.lang);
    // A group of heads (GQA's shared keys and values): a rule with its name before its first block.
    if (starts_group(plan, bi)) out += (bi ? "\n" : "") + std::string("\u2501\u2501 ") + group_caption(plan, blk.group, opts.lang) + " \u2501\u2501\n";
    if (!caption.empty()) out += (bi && !starts_group(plan, bi) ? "\n" : "") + caption + rtrim(heatmap_text(opts.lang, "colon")) + "\n";
    out += column_header;
    for (size_t r = 0; r < plan.index.size(); ++r) {
      const int64_t i = plan.index[r];
      std::string line = (index_width > 0 ? fmt::format("{:>{}} ", i + 1, index_width) : "") +
                         pad_right(fit_width(labels[r], kRowLabelWidth), label_width) + " ";
      CellWriter w{line};
      for (int64_t j : plan.index) {
        const float v = data[blk.offset + static_cast<size_t>(i * T + j)];
        if (numbers) put_number_cell(w, plan, v, decimals, opts.color);
        else w.put(cell(plan, v, opts.color));
      }
      w.finish();
      rtrim_line(line);
      out += line + "\n";
    }
  }
  out += legend(plan, opts);
  return out;
}

}  // namespace attn
