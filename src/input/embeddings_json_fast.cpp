// The fast path of parse_embeddings: plain, well-formed JSON embeddings read in one pass,
// giving up on anything else.
#include "input/embeddings_detail.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace attn::embeddings_detail {
namespace {

// ---------------------------------------------------------------------------
// Fast path for well-formed input
//
// Most inputs are plain: a 2-D array of numbers, optionally inside {"tokens": [...],
// "embeddings": [...]}. This reads exactly that subset of JSON in one tight pass (numbers
// via std::from_chars, which rounds to double exactly as the full parser's strtod does,
// then to float32 like element()). Anything else -- any syntax or shape error, escapes or
// non-ASCII text in strings, other keys, empty tokens, a byte-order mark, a number that
// overflows -- makes it give up, and the full parser (embeddings_json.cpp) reads the text again
// and reports the problem with its line and column. The two never disagree on a value.
class SimpleParser {
 public:
  explicit SimpleParser(const std::string& text) : p_(text.data()), end_(text.data() + text.size()) {}

  std::optional<Embeddings> parse() {
    skip_ws();
    bool ok = false;
    if (at('[')) ok = matrix();
    else if (at('{')) ok = object();
    skip_ws();
    if (!ok || p_ != end_ || rows_ == 0) return std::nullopt;
    if (tokens_seen_ && tokens_.size() != rows_) return std::nullopt;
    Embeddings e;
    e.inputs = Tensor({static_cast<int64_t>(rows_), static_cast<int64_t>(width_)}, std::move(values_));
    if (tokens_seen_) {
      e.tokens = std::move(tokens_);
    } else {
      e.tokens.reserve(rows_);
      for (size_t i = 0; i < rows_; ++i) e.tokens.push_back("x" + std::to_string(i + 1));
    }
    return e;
  }

 private:
  bool at(char c) const { return p_ < end_ && *p_ == c; }
  void skip_ws() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }
  bool eat(char c) {
    skip_ws();
    if (!at(c)) return false;
    ++p_;
    return true;
  }

  bool object() {
    ++p_;  // '{'
    bool matrix_seen = false;
    do {
      std::string key;
      if (!eat('"') || !string_body(key) || !eat(':')) return false;
      skip_ws();
      if (key == "embeddings" && !matrix_seen) {
        if (!at('[') || !matrix()) return false;
        matrix_seen = true;
      } else if (key == "tokens" && !tokens_seen_) {
        if (!at('[') || !token_list()) return false;
        tokens_seen_ = true;
      } else {
        return false;  // another key, or one given twice
      }
    } while (eat(','));
    return eat('}') && matrix_seen;
  }

  // A string after its opening quote: printable ASCII without escapes, not empty.
  bool string_body(std::string& out) {
    const char* start = p_;
    while (p_ < end_ && *p_ != '"') {
      const auto c = static_cast<unsigned char>(*p_);
      if (c < 0x20 || c >= 0x7f || c == '\\') return false;
      ++p_;
    }
    if (p_ == end_ || p_ == start) return false;
    out.assign(start, p_);
    ++p_;  // '"'
    return true;
  }

  bool token_list() {
    ++p_;  // '['
    if (eat(']')) return true;
    do {
      std::string token;
      if (!eat('"') || !string_body(token)) return false;
      tokens_.push_back(std::move(token));
    } while (eat(','));
    return eat(']');
  }

  bool matrix() {
    ++p_;  // '['
    values_.reserve(static_cast<size_t>(end_ - p_) / 8);
    do {
      if (!eat('[')) return false;
      size_t length = 0;
      do {
        skip_ws();
        if (!number()) return false;
        ++length;
      } while (eat(','));
      if (!eat(']') || (rows_ > 0 && length != width_)) return false;
      width_ = length;
      ++rows_;
    } while (eat(','));
    return eat(']');
  }

  // A JSON number, checked against the grammar (from_chars alone accepts more).
  bool number() {
    const char* start = p_;
    const char* q = p_;
    if (q < end_ && *q == '-') ++q;
    if (q < end_ && *q == '0') {
      ++q;
    } else if (q < end_ && *q >= '1' && *q <= '9') {
      while (q < end_ && *q >= '0' && *q <= '9') ++q;
    } else {
      return false;
    }
    bool integer = true;  // JSON's integers are read as integers: "-0" is 0, not -0.0
    if (q < end_ && *q == '.') {
      integer = false;
      const char* digits = ++q;
      while (q < end_ && *q >= '0' && *q <= '9') ++q;
      if (q == digits) return false;
    }
    if (q < end_ && (*q == 'e' || *q == 'E')) {
      integer = false;
      ++q;
      if (q < end_ && (*q == '+' || *q == '-')) ++q;
      const char* digits = q;
      while (q < end_ && *q >= '0' && *q <= '9') ++q;
      if (q == digits) return false;
    }
    double v = 0.0;
#if defined(__EMSCRIPTEN__)
    // The page's engine: emscripten's libc++ has no floating-point from_chars; musl's strtod
    // rounds correctly too. The number passed the grammar above, so it is all strtod reads.
    char buf[128];
    if (q - start >= static_cast<std::ptrdiff_t>(sizeof buf)) return false;  // the full parser reads it
    std::memcpy(buf, start, static_cast<size_t>(q - start));
    buf[q - start] = '\0';
    errno = 0;
    char* stop = nullptr;
    v = std::strtod(buf, &stop);
    if (errno == ERANGE || stop != buf + (q - start)) return false;
#else
    const auto [next, ec] = std::from_chars(start, q, v);
    if (ec != std::errc() || next != q) return false;  // out of double's range: let the full parser say so
#endif
    if (integer && v == 0.0) v = 0.0;
    const float f = static_cast<float>(v);  // as element() stores it
    if (!std::isfinite(f)) return false;
    values_.push_back(f);
    p_ = q;
    return true;
  }

  const char* p_;
  const char* end_;
  std::vector<float> values_;
  size_t rows_ = 0, width_ = 0;
  bool tokens_seen_ = false;
  std::vector<std::string> tokens_;
};

}  // namespace

std::optional<Embeddings> parse_simple_json(const std::string& text) { return SimpleParser(text).parse(); }

}  // namespace attn::embeddings_detail
