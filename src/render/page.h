// The one page design: src/render/page/page.html with its CSS and JS, embedded at build
// time (cmake/embed_page.cmake). The CLI's --format html fills it with a finished walk;
// `make web` fills it with the WebAssembly engine, which then renders walks into it itself.
#pragma once

#include <string>

namespace attn {

// The template's files, as written in src/render/page/ (generated page_assets.cpp).
extern const char* const kPageHtml;
extern const char* const kPageCss;
extern const char* const kPageJs;

struct PageParts {
  std::string lang = "en";  // <html lang>: "en" or "zh-CN"
  std::string title;        // plain text; escaped here
  std::string body;         // HTML of the walk (render_html_body), or empty
  std::string data_json;    // the controls' data (src/web/page_data.h); made safe for <script> here
  std::string engine_js;    // the emscripten module, or empty for a static page
  std::string engine_wasm;  // its WebAssembly, gzip-compressed (the page inflates it), or empty
};

std::string render_page(const PageParts& parts);

// Bytes as base64 (RFC 4648, with padding), for binary data inside the page.
std::string base64(const std::string& bytes);

// Text as it may stand inside <script>: "<" becomes \u003c (valid in JSON and JavaScript
// strings), so no "</script>" or "<!--" in the data can end the element.
std::string script_safe(const std::string& text);

}  // namespace attn
