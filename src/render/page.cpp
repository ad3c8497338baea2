#include "render/page.h"

#include <cstdint>
#include <stdexcept>

#include "render/render.h"

namespace attn {

std::string script_safe(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '<') out += "\\u003c";
    else out += c;
  }
  return out;
}

std::string base64(const std::string& bytes) {
  static const char kDigits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    const size_t n = bytes.size() - i < 3 ? bytes.size() - i : 3;
    uint32_t v = 0;
    for (size_t k = 0; k < 3; ++k) v = (v << 8) | (k < n ? static_cast<unsigned char>(bytes[i + k]) : 0u);
    for (size_t k = 0; k < 4; ++k) out += k <= n ? kDigits[(v >> (18 - 6 * k)) & 63] : '=';
  }
  return out;
}

namespace {

// Script code cannot be escaped like data; it just must not end its element early.
const std::string& checked_script(const std::string& js) {
  std::string lower;
  for (char c : js) lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
  if (lower.find("</script") != std::string::npos || lower.find("<!--") != std::string::npos)
    throw std::logic_error("the engine's JavaScript contains </script or <!--");
  return js;
}

}  // namespace

std::string render_page(const PageParts& parts) {
  // Markers are looked up in the template only, so text put into the page never gets replaced.
  const std::string tpl = kPageHtml;
  const std::pair<const char*, std::string> fills[] = {
      {"@LANG@", html_escape(parts.lang)},
      {"@TITLE@", html_escape(parts.title)},
      {"@CSS@", kPageCss},
      {"@BODY@", parts.body},
      {"@DATA@", script_safe(parts.data_json)},
      {"@WASM@", base64(parts.engine_wasm)},
      {"@ENGINE@", checked_script(parts.engine_js)},
      {"@JS@", kPageJs},
  };
  std::string out;
  size_t pos = 0;
  for (const auto& [marker, text] : fills) {
    const size_t at = tpl.find(marker, pos);
    if (at == std::string::npos) throw std::logic_error(std::string("page.html has no ") + marker);
    out.append(tpl, pos, at - pos);
    out += text;
    pos = at + std::string(marker).size();
  }
  return out + tpl.substr(pos);
}

}  // namespace attn
