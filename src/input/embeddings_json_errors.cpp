// Internal to embeddings_json.cpp: what nlohmann says of a JSON error, made into a learner's
// message (where to point, what the parser said, what the learner likely wrote).
#include "input/embeddings_detail.h"
#include "input/embeddings_json_builder.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace attn::embeddings_detail {

// Does the string look like a number someone quoted by mistake?
bool looks_numeric(const std::string& s) {
  if (s.empty() || s.size() > 64) return false;
  try {
    const auto j = nlohmann::json::parse(s, nullptr, /*allow_exceptions=*/false);
    return j.is_number();
  } catch (...) {
    return false;
  }
}

// If a spelling of NaN/infinity that neither JSON nor Python's json reads starts at
// text[at], return it.
std::string nonfinite_literal_at(const std::string& text, size_t at) {
  // clang-format off
  static const char* const kSpellings[] = {"-Infinity", "+Infinity", "Infinity", "-infinity",
                                           "infinity",  "-inf",      "+inf",     "inf",
                                           "-Inf",      "Inf",       "-NaN",     "NaN",
                                           "nan",       "-nan",      "NAN"};
  // clang-format on
  for (const char* spelling : kSpellings) {
    const size_t n = std::strlen(spelling);
    if (text.compare(at, n, spelling) == 0) {
      const size_t end = at + n;
      if (end == text.size() || !std::isalnum(static_cast<unsigned char>(text[end])))
        return spelling;
    }
  }
  return {};
}

// Where to point: nlohmann's byte (1-based: the offending byte is text[byte - 1]), or the
// start of the value being read (`value_at`) when the error came after a whole token.
size_t syntax_error_offset(const std::string& text, size_t byte, size_t value_at, const std::string& what) {
  size_t at = byte == 0 ? 0 : std::min(byte - 1, text.size());
  // "unexpected <token>" comes after the whole token was read: point at its start.
  // (Lexer errors say "last read: ..." and are best shown where lexing stopped.)
  // Every token between the previous event and this one was fine, and ',' and ':'
  // are one byte long, so any other unexpected token starts at value_at.
  if (what.find("last read: '") == std::string::npos && at < text.size() && text[at] != ',' &&
      text[at] != ':' && value_at <= at)
    at = value_at;
  // An unterminated string runs to the end of the input: point at its opening quote.
  if (what.find("missing closing quote") != std::string::npos && value_at < text.size() &&
      text[value_at] == '"')
    at = value_at;
  return at;
}

// "[json.exception.parse_error.101] parse error at line 1, column 4: syntax error ..." ->
// "syntax error ...", with "last read: '...'" kept short (a runaway string would otherwise
// be copied whole).
std::string parser_detail(const std::string& what, const std::string& last_token) {
  std::string detail = what;
  const size_t colon = detail.find(": ", detail.find("parse error"));
  if (detail.find("parse error") != std::string::npos && colon != std::string::npos)
    detail = detail.substr(colon + 2);
  else if (detail.rfind("[json.exception.", 0) == 0 && detail.find("] ") != std::string::npos)
    detail = detail.substr(detail.find("] ") + 2);
  const std::string last_read = "last read: '" + last_token + "'";
  const size_t lr = detail.find(last_read);
  if (lr != std::string::npos && last_token.size() > 40) {
    size_t cut = last_token.size() - 40;
    while (cut < last_token.size() && (static_cast<unsigned char>(last_token[cut]) & 0xC0) == 0x80) ++cut;
    detail.replace(lr, last_read.size(), "last read: '..." + last_token.substr(cut) + "'");
  }
  return detail;
}

// What the learner most likely wrote, from the byte at `at`: a trailing comma, single
// quotes, a comment, a missing closing quote; "" if nothing is recognised.
std::string syntax_hint(const std::string& text, size_t at, const std::string& what) {
  if (what.find("control character U+000A") != std::string::npos) return " (is a closing quote missing?)";
  if (at >= text.size()) return "";
  const char c = text[at];
  size_t prev = at;
  while (prev > 0 && is_json_space(text[prev - 1])) --prev;
  if ((c == ']' || c == '}') && prev > 0 && text[prev - 1] == ',')
    return fmt::format(" (JSON does not allow a trailing comma before '{}')", c);
  if (c == '\'') return " (JSON strings need double quotes)";
  if (c == '/' && at + 1 < text.size() && (text[at + 1] == '/' || text[at + 1] == '*'))
    return " (JSON does not allow comments)";
  return "";
}

// The parser's error at `byte` while the builder was between events: a number too large,
// a spelling of NaN or infinity, or any other syntax error, at the value it was reading.
void JsonBuilder::report_syntax_error(std::size_t byte, const std::string& last_token,
                                      const nlohmann::detail::exception& ex) {
  // Where the offending value starts (the parser was between events).
  const size_t value_at = begin_event();
  std::string where;
  if (ctx_ == Ctx::Row) where = fmt::format("row {}, column {}: ", rows_ + 1, row_length_ + 1);

  if (ex.id == 406) {  // out_of_range: "number overflow parsing '1e400'"
    fail_here(value_at, fmt::format("{}{} is too large: it overflows even double precision (float32 "
                                    "holds at most about 3.4028235e+38)",
                                    where, excerpt(last_token)));
  }
  const std::string literal = nonfinite_literal_at(text_, value_at);
  if (!literal.empty())
    fail_here(value_at, fmt::format("{}{} is not valid JSON and not a usable embedding value; replace "
                                    "it with a finite number",
                                    where, literal));
  const std::string what = ex.what();
  const size_t at = syntax_error_offset(text_, byte, value_at, what);
  fail_here(at, "invalid JSON: " + parser_detail(what, last_token) + syntax_hint(text_, at, what));
}

}  // namespace attn::embeddings_detail
