#include "text/unicode_class.h"

#include <algorithm>

#include "text/tables.h"

namespace attn::text {

namespace {

bool in_ranges(const CodeRange* ranges, size_t n, char32_t c) {
  // The first range that ends at or after c holds it, if it starts at or before c.
  const CodeRange* end = ranges + n;
  const CodeRange* r = std::lower_bound(ranges, end, c, [](const CodeRange& a, char32_t v) { return a.last < v; });
  return r != end && r->first <= c;
}

}  // namespace

bool is_letter(char32_t c) { return in_ranges(kLetterRanges, kLetterRanges_size, c); }
bool is_number(char32_t c) { return in_ranges(kNumberRanges, kNumberRanges_size, c); }
bool is_space(char32_t c) { return in_ranges(kSpaceRanges, kSpaceRanges_size, c); }

}  // namespace attn::text
