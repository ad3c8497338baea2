#include "text/readable.h"

#include <fmt/format.h>

#include "text/utf8.h"

namespace attn::text {

namespace {

// The length of the valid UTF-8 character at bytes[i], or 0 if there is none.
size_t whole_character(std::string_view bytes, size_t i) {
  const auto len = static_cast<size_t>(utf8_length(static_cast<unsigned char>(bytes[i])));
  if (len == 0 || i + len > bytes.size()) return 0;
  size_t bad = 0;
  return decode_utf8(bytes.substr(i, len), &bad) ? len : 0;
}

bool is_control(char32_t c) { return c < 0x20 || c == 0x7F || (c >= 0x80 && c < 0xA0); }

}  // namespace

std::string readable_piece(std::string_view bytes) {
  std::string out, loose;  // loose: hex of bytes that are not a whole character, pending
  auto flush = [&] {
    if (!loose.empty()) out += "<" + loose + ">";
    loose.clear();
  };
  for (size_t i = 0; i < bytes.size();) {
    const size_t len = whole_character(bytes, i);
    if (len == 0) {
      loose += fmt::format("{}{:02x}", loose.empty() ? "" : " ", static_cast<unsigned char>(bytes[i]));
      ++i;
      continue;
    }
    flush();
    size_t bad = 0;
    const char32_t c = (*decode_utf8(bytes.substr(i, len), &bad))[0].value;
    if (c == ' ') out += kSpaceMark;
    else if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else if (is_control(c)) {
      for (size_t k = 0; k < len; ++k)
        loose += fmt::format("{}{:02x}", loose.empty() ? "" : " ", static_cast<unsigned char>(bytes[i + k]));
      flush();
    } else {
      out += bytes.substr(i, len);
    }
    i += len;
  }
  flush();
  return out;
}

}  // namespace attn::text
