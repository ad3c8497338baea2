#include "core/utf8.h"

namespace attn::text {

namespace {

// How many bytes the character starting with `lead` takes (1-4), 0 for a byte that cannot
// start one: a continuation byte, an overlong lead (C0, C1) or one beyond U+10FFFF (F5-FF).
int utf8_length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) return 2;
  if (lead >= 0xE0 && lead <= 0xEF) return 3;
  if (lead >= 0xF0 && lead <= 0xF4) return 4;
  return 0;
}

}  // namespace

Utf8Char decode_utf8_char(std::string_view s, size_t i) {
  const auto lead = static_cast<unsigned char>(s[i]);
  const int len = utf8_length(lead);
  if (len == 0 || i + static_cast<size_t>(len) > s.size()) return {0, 0};
  char32_t cp = len == 1 ? lead : len == 2 ? lead & 0x1F
                              : len == 3   ? lead & 0x0F
                                           : lead & 0x07;
  for (int k = 1; k < len; ++k) {
    const auto c = static_cast<unsigned char>(s[i + static_cast<size_t>(k)]);
    if ((c & 0xC0) != 0x80) return {0, 0};
    cp = (cp << 6) | (c & 0x3F);
  }
  // Overlong three- and four-byte forms, UTF-16 surrogates, and code points past U+10FFFF.
  if (len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) return {0, 0};
  if (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) return {0, 0};
  return {len, cp};
}

std::optional<std::vector<CodePoint>> decode_utf8(std::string_view s, size_t* bad_offset) {
  std::vector<CodePoint> out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const Utf8Char c = decode_utf8_char(s, i);
    if (c.length == 0) {
      *bad_offset = i;
      return std::nullopt;
    }
    out.push_back({c.value, i});
    i += static_cast<size_t>(c.length);
  }
  return out;
}

}  // namespace attn::text
