#include "text/utf8.h"

namespace attn::text {

int utf8_length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) return 2;
  if (lead >= 0xE0 && lead <= 0xEF) return 3;
  if (lead >= 0xF0 && lead <= 0xF4) return 4;
  return 0;  // a continuation byte, an overlong lead (C0, C1) or beyond U+10FFFF (F5-FF)
}

std::optional<std::vector<CodePoint>> decode_utf8(std::string_view s, size_t* bad_offset) {
  std::vector<CodePoint> out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const auto lead = static_cast<unsigned char>(s[i]);
    const int len = utf8_length(lead);
    char32_t cp = len == 1 ? lead : len == 2 ? lead & 0x1F : len == 3 ? lead & 0x0F : lead & 0x07;
    bool ok = len > 0 && i + static_cast<size_t>(len) <= s.size();
    for (int k = 1; ok && k < len; ++k) {
      const auto c = static_cast<unsigned char>(s[i + static_cast<size_t>(k)]);
      ok = (c & 0xC0) == 0x80;
      cp = (cp << 6) | (c & 0x3F);
    }
    // Overlong three- and four-byte forms, UTF-16 surrogates, and code points past U+10FFFF.
    if (ok && len == 3) ok = cp >= 0x800 && (cp < 0xD800 || cp > 0xDFFF);
    if (ok && len == 4) ok = cp >= 0x10000 && cp <= 0x10FFFF;
    if (!ok) {
      *bad_offset = i;
      return std::nullopt;
    }
    out.push_back({cp, i});
    i += static_cast<size_t>(len);
  }
  return out;
}

}  // namespace attn::text
