#include "text/pretokenize.h"

#include "text/unicode_class.h"

namespace attn::text {

namespace {

bool is_other(char32_t c) { return !is_space(c) && !is_letter(c) && !is_number(c); }

// The length in characters of the match at `i`.
size_t match_at(const std::vector<CodePoint>& s, size_t i) {
  const size_t n = s.size();
  auto at = [&](size_t k) -> char32_t { return k < n ? s[k].value : 0; };
  // A run of characters of one class from k; returns where it ends.
  auto run = [&](size_t k, bool (*in_class)(char32_t)) {
    while (k < n && in_class(s[k].value)) ++k;
    return k;
  };

  // 's|'t|'re|'ve|'m|'ll|'d
  if (at(i) == '\'') {
    const char32_t a = at(i + 1), b = at(i + 2);
    if (a == 's' || a == 't' || a == 'm' || a == 'd') return 2;
    if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return 3;
  }
  // ` ?\p{L}+`, ` ?\p{N}+`, ` ?[^\s\p{L}\p{N}]+`: an optional space (U+0020 only), then a run.
  for (bool (*in_class)(char32_t) : {is_letter, is_number, is_other}) {
    const size_t start = at(i) == ' ' && i + 1 < n && in_class(at(i + 1)) ? i + 1 : i;
    if (start < n && in_class(at(start))) return run(start, in_class) - i;
  }
  // `\s+(?!\S)`: the whitespace run, less its last character if a non-space follows, so
  // that the last space goes with the next word; `\s+` when that leaves nothing.
  const size_t end = run(i, is_space);
  if (end == n || end - i == 1) return end - i;
  return end - i - 1;
}

}  // namespace

std::vector<std::string_view> pretokenize(std::string_view text, const std::vector<CodePoint>& chars) {
  std::vector<std::string_view> pieces;
  for (size_t i = 0; i < chars.size();) {
    const size_t len = match_at(chars, i);
    const size_t begin = chars[i].offset;
    const size_t end = i + len < chars.size() ? chars[i + len].offset : text.size();
    pieces.push_back(text.substr(begin, end - begin));
    i += len;
  }
  return pieces;
}

}  // namespace attn::text
