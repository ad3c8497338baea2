// The input's text before it is parsed: positions and messages, byte-order marks, UTF-16,
// NUL bytes and UTF-8 (chunk by chunk as it arrives), and the nesting-depth pre-scan.
#include "input/embeddings_detail.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "core/utf8.h"

namespace attn::embeddings_detail {
namespace {

// Embeddings need two levels ({"embeddings": [[...]]} is three); anything near this
// limit is a mistake, not data.
constexpr int kMaxDepth = 64;

}  // namespace

// ---------------------------------------------------------------------------
// Positions and message helpers

namespace {

struct TextPos {
  size_t line = 1;
  size_t column = 1;
};

// 1-based line and column of byte `offset`; columns count UTF-8 code points.
TextPos position_of(const std::string& text, size_t offset) {
  if (offset > text.size()) offset = text.size();
  TextPos pos;
  size_t line_start = 0;
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++pos.line;
      line_start = i + 1;
    }
  }
  for (size_t i = line_start; i < offset; ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++pos.column;
  }
  return pos;
}

}  // namespace

[[noreturn]] void fail_at(const std::string& source, const std::string& text, size_t offset,
                          const std::string& message) {
  const TextPos p = position_of(text, offset);
  throw InputError(fmt::format("{}: line {}, column {}: {}", source, p.line, p.column, message));
}

// A short, single-line, printable rendering of text taken from the input.
std::string excerpt(const std::string& s, size_t max_chars) {
  std::string out;
  size_t chars = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    const bool continuation = (c & 0xC0) == 0x80;
    if (!continuation && chars == max_chars) {
      out += "...";
      break;
    }
    if (!continuation) ++chars;
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7F) {
      out += fmt::format("\\u{:04x}", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string quote_text(const std::string& s) { return "\"" + excerpt(s) + "\""; }

bool is_json_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
namespace {

bool has_bom(const std::string& text) {
  return text.size() >= 3 && static_cast<unsigned char>(text[0]) == 0xEF &&
         static_cast<unsigned char>(text[1]) == 0xBB && static_cast<unsigned char>(text[2]) == 0xBF;
}

}  // namespace

// First byte at or after `from` that can start a token (skips whitespace, ',' and ':').
size_t token_start(const std::string& text, size_t from) {
  if (from == 0 && has_bom(text)) from = 3;
  while (from < text.size() &&
         (is_json_space(text[from]) || text[from] == ',' || text[from] == ':'))
    ++from;
  return from;
}

void check_not_utf16(const std::string& text, const std::string& source) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  if (text.size() >= 2 && ((byte(0) == 0xFF && byte(1) == 0xFE) || (byte(0) == 0xFE && byte(1) == 0xFF)))
    fail(source, "the text is UTF-16 encoded (it starts with a UTF-16 byte-order mark); "
                 "save it as UTF-8 JSON");
}

// Check 2 on text[from, text.size()): a NUL byte means binary data (the first one is
// reported), then every sequence must be valid UTF-8. With `more_to_come`, a sequence cut
// off by the end of the text is left for the next call; returns where checking stopped.
size_t check_encoding(const std::string& text, size_t from, bool more_to_come, const std::string& source) {
  if (const void* nul = std::memchr(text.data() + from, '\0', text.size() - from))
    fail_at(source, text, static_cast<size_t>(static_cast<const char*>(nul) - text.data()),
            "contains a NUL byte: this looks like a binary file, not JSON text");
  size_t i = std::max(from, has_bom(text) ? size_t{3} : size_t{0});
  while (i < text.size()) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {  // ASCII: the common case
      ++i;
      continue;
    }
    const auto len = static_cast<size_t>(text::decode_utf8_char(text, i).length);
    if (len == 0) {
      if (more_to_come && text.size() - i < 4) break;  // maybe cut by the chunk's end
      fail_at(source, text, i,
              fmt::format("invalid UTF-8 (byte 0x{:02x}): the input must be UTF-8 JSON text "
                          "(is it a binary file, or saved in another encoding such as Latin-1?)",
                          static_cast<unsigned char>(text[i])));
    }
    i += len;
  }
  return i;
}

// Checks 1-3 from the top of the file.
void check_text(const std::string& text, const std::string& source) {
  if (text.empty()) fail(source, std::string("empty input; ") + kExampleForms);
  check_not_utf16(text, source);
  check_encoding(text, 0, /*more_to_come=*/false, source);
  const size_t bom = has_bom(text) ? 3 : 0;
  if (text.find_first_not_of(" \t\r\n", bom) == std::string::npos)
    fail(source, std::string("input contains only whitespace; ") + kExampleForms);

  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {  // skip the string; an unterminated one is the parser's to report
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\') ++i;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxDepth)
        fail_at(source, text, i,
                fmt::format("arrays/objects nest more than {} levels deep; embeddings need "
                            "only 2, e.g. [[0.43, 0.15, 0.89], [0.55, 0.87, 0.66]]",
                            kMaxDepth));
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
}

}  // namespace attn::embeddings_detail
