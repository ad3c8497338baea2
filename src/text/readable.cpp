#include "text/readable.h"

#include <fmt/format.h>

#include "core/utf8.h"

namespace attn::text {

namespace {

bool is_control(char32_t c) { return c < 0x20 || c == 0x7F || (c >= 0x80 && c < 0xA0); }

}  // namespace

std::string readable_piece(std::string_view bytes) {
  std::string out, loose;  // loose: hex of bytes that are not a whole character, pending
  auto flush = [&] {
    if (!loose.empty()) out += "<" + loose + ">";
    loose.clear();
  };
  for (size_t i = 0; i < bytes.size();) {
    const Utf8Char whole = decode_utf8_char(bytes, i);
    const auto len = static_cast<size_t>(whole.length);
    if (len == 0) {  // not a whole character: its bytes in hex
      loose += fmt::format("{}{:02x}", loose.empty() ? "" : " ", static_cast<unsigned char>(bytes[i]));
      ++i;
      continue;
    }
    flush();
    const char32_t c = whole.value;
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
