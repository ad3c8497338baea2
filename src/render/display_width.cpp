// UTF-8 labels in a terminal: decoding, control characters replaced, and the columns a
// label takes (wide CJK and emoji, zero-width combining marks), cut to fit.
#include "render/display_width.h"

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include "core/utf8.h"

namespace attn {

// ---------------------------------------------------------------- UTF-8

namespace {

// Decodes one code point at s[i] (core/utf8.h); returns -1 (and len 1) for invalid UTF-8.
int32_t decode(const std::string& s, size_t i, size_t* len) {
  const text::Utf8Char c = text::decode_utf8_char(s, i);
  *len = c.length > 0 ? static_cast<size_t>(c.length) : 1;
  return c.length > 0 ? static_cast<int32_t>(c.value) : -1;
}

struct Range {
  int32_t lo, hi;
};

bool in(const Range* r, size_t n, int32_t cp) {
  for (size_t i = 0; i < n; ++i)
    if (cp >= r[i].lo && cp <= r[i].hi) return true;
  return false;
}

const Range kZeroWidth[] = {
    // clang-format off
    {0x0300, 0x036F}, {0x0483, 0x0489}, {0x0591, 0x05BD}, {0x0610, 0x061A}, {0x064B, 0x065F},
    {0x0670, 0x0670}, {0x06D6, 0x06DC}, {0x0E31, 0x0E31}, {0x0E34, 0x0E3A}, {0x0E47, 0x0E4E},
    {0x1AB0, 0x1AFF}, {0x1DC0, 0x1DFF}, {0x200B, 0x200D}, {0x20D0, 0x20FF}, {0x302A, 0x302D},
    {0x3099, 0x309A}, {0xFE00, 0xFE0F}, {0xFE20, 0xFE2F}, {0x1F3FB, 0x1F3FF}, {0xE0100, 0xE01EF}};
// clang-format on

const Range kWide[] = {
    // clang-format off
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
// clang-format on

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

namespace {

// Chinese punctuation that may not start a line, and that may not end one.
bool no_line_start(const std::string& g) {
  static const char* const closing[] = {"\xEF\xBC\x8C", "\xE3\x80\x82", "\xE3\x80\x81", "\xEF\xBC\x9B",
                                        "\xEF\xBC\x9A", "\xEF\xBC\x9F", "\xEF\xBC\x81", "\xEF\xBC\x89",
                                        "\xE3\x80\x8D", "\xE3\x80\x8F", "\xE3\x80\x8B", "\xE3\x80\x91",
                                        "\xE2\x80\x9D", "\xE2\x80\x99"};  // ，。、；：？！）」』》】”’
  for (const char* c : closing)
    if (g == c) return true;
  return false;
}
bool no_line_end(const std::string& g) {
  static const char* const opening[] = {"\xEF\xBC\x88", "\xE3\x80\x8C", "\xE3\x80\x8E", "\xE3\x80\x8A",
                                        "\xE3\x80\x90", "\xE2\x80\x9C", "\xE2\x80\x98"};  // （「『《【“‘
  for (const char* c : opening)
    if (g == c) return true;
  return false;
}

// One line wrapped (see wrap_words).
std::string wrap_line(const std::string& text, int width, const std::string& indent) {
  // Units: a word (glyphs up to a space or a wide glyph), a wide glyph alone, or a space.
  struct Unit {
    std::string text;
    int width;
    bool space, wide;
  };
  std::vector<Unit> units;
  for (const auto& g : glyphs(text)) {
    const int w = display_width(g);
    const bool space = g == " ", wide = w == 2;
    if (!space && !wide && !units.empty() && !units.back().space && !units.back().wide) {
      units.back().text += g;
      units.back().width += w;
    } else {
      units.push_back({g, w, space, wide});
    }
  }
  // Greedy: add units to the line; when it grows past the width, cut it at its last place
  // where a break is allowed (a space, dropped, or between wide glyphs), if it has one.
  std::string out, line;
  size_t last_break = std::string::npos;  // where `line` may be cut
  bool break_at_space = false;
  const Unit* prev = nullptr;
  bool pending_space = false;
  size_t head = 0;  // the indent of the line being filled (none on the first)
  for (const auto& u : units) {
    if (u.space) {
      pending_space = prev != nullptr;
      continue;
    }
    if (prev && (pending_space || ((u.wide || prev->wide) && !no_line_start(u.text) && !no_line_end(prev->text)))) {
      last_break = line.size();
      break_at_space = pending_space;
    }
    if (pending_space) line += ' ';
    line += u.text;
    pending_space = false;
    prev = &u;
    if (display_width(line) > width && last_break != std::string::npos && last_break > head) {
      out += line.substr(0, last_break) + "\n";
      line = indent + line.substr(last_break + (break_at_space ? 1 : 0));
      head = indent.size();
      last_break = std::string::npos;  // the units after the cut hold no break
    }
  }
  return out + line;
}

}  // namespace

std::string wrap_words(const std::string& text, int width, const std::string& indent) {
  if (width <= 0) return text;
  std::string out;
  size_t start = 0;
  for (;;) {
    const size_t nl = text.find('\n', start);
    const std::string line = text.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    out += display_width(line) <= width ? line : wrap_line(line, width, indent);
    if (nl == std::string::npos) return out;
    out += "\n" + indent;
    start = nl + 1;
  }
}

}  // namespace attn
