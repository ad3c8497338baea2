// Reading embeddings from JSON text, with messages a learner can act on.
//
// The text goes through four checks before any tensor is built:
//   1. it is not empty and not only whitespace;
//   2. it is UTF-8 text (a NUL byte means a binary file; an invalid UTF-8 sequence a
//      binary file or another encoding);
//   3. arrays/objects nest at most kMaxDepth levels deep (a cheap pre-scan, so no
//      later step can run out of stack on inputs like 100000 '[');
//   4. nlohmann's SAX parser drives a small state machine (Builder) that checks the
//      shape as it goes and appends floats straight into the tensor's storage: no DOM,
//      no exceptions per element, one pass over the text.
// The parser does not report where a SAX event came from, so the text is fed through
// an iterator that publishes how far the lexer has read; a value starts at the first
// byte after the previous event that is not whitespace, ',' or ':'.
// Python's json.dump writes NaN, Infinity and -Infinity: they are read (python_json.h),
// then refused as values the walk cannot use, at their line and column.
// Checks 1-3 live in embeddings_checks.cpp; before any of them, plain input takes the fast
// path of embeddings_json_fast.cpp. nlohmann's error messages are made into a learner's in
// embeddings_json_errors.cpp.
#include "input/embeddings.h"
#include "input/embeddings_detail.h"
#include "input/python_json.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace attn {

using namespace embeddings_detail;

namespace {

constexpr const char* kExpected2D = "expected a 2-D array of numbers (tokens x embedding width)";

// How many levels of arrays the value starting at text[start] has ("[[1]]" -> 2).
// Iterative; the depth pre-scan has already bounded it.
int array_depth_at(const std::string& text, size_t start) {
  int depth = 0, deepest = 0;
  for (size_t i = start; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\') ++i;
    } else if (c == '[') {
      if (++depth > deepest) deepest = depth;
    } else if (c == ']') {
      if (--depth <= 0) break;
    } else if (depth == 0 && !is_json_space(c)) {
      break;  // not an array
    }
  }
  return deepest;
}

// ---------------------------------------------------------------------------
// Lexer position tracking

// A byte iterator that publishes how far it has advanced, so the SAX handler can
// locate the events nlohmann reports without positions.
class TrackingIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  TrackingIterator() = default;
  TrackingIterator(const char* p, const char** published) : p_(p), published_(published) {}

  reference operator*() const { return *p_; }
  TrackingIterator& operator++() {
    ++p_;
    if (published_ != nullptr) *published_ = p_;
    return *this;
  }
  TrackingIterator operator++(int) {
    TrackingIterator old = *this;
    ++*this;
    return old;
  }
  bool operator==(const TrackingIterator& other) const { return p_ == other.p_; }
  bool operator!=(const TrackingIterator& other) const { return p_ != other.p_; }

 private:
  const char* p_ = nullptr;
  const char** published_ = nullptr;
};

// ---------------------------------------------------------------------------
// The SAX state machine

using json = nlohmann::json;

class Builder {
 public:
  // `strict` is `original` with Python's tokens quoted; the lexer reads strict.text, and
  // messages point into the original.
  Builder(const StrictJson& strict, const std::string& original, const std::string& source)
      : text_(strict.text), strict_(strict), original_(original), source_(source), read_(text_.data()) {}

  const char** read_pointer() { return &read_; }

  // --- nlohmann SAX interface ---
  bool null() { return scalar(Kind::Null, "null"); }
  bool boolean(bool v) { return scalar(Kind::Boolean, v ? "true" : "false"); }
  // Integers always fit a float32 (at worst rounded), so they need no text for messages
  // inside a row; elsewhere they are described by their digits.
  bool number_integer(json::number_integer_t v) {
    return ctx_ == Ctx::Row ? element(static_cast<double>(v), {})
                            : scalar(Kind::Number, std::to_string(v));
  }
  bool number_unsigned(json::number_unsigned_t v) {
    return ctx_ == Ctx::Row ? element(static_cast<double>(v), {})
                            : scalar(Kind::Number, std::to_string(v));
  }
  bool number_float(json::number_float_t v, const json::string_t& raw) {
    return ctx_ == Ctx::Row ? element(v, raw) : scalar(Kind::Number, raw);
  }
  bool string(json::string_t& s) {
    // One of Python's NaN, Infinity, -Infinity, quoted by python_json_to_strict().
    if (strict_.was_python_token(begin_event())) return scalar(Kind::NonFinite, s);
    return scalar(Kind::String, s);
  }
  bool binary(json::binary_t&) { return scalar(Kind::Other, ""); }

  bool start_object(std::size_t) {
    const size_t at = begin_event();
    switch (ctx_) {
      case Ctx::Top:
        form_ = Form::Object;
        ctx_ = Ctx::Object;
        return end_event();
      case Ctx::Object:
        return member_value(at, Kind::Object, "");
      case Ctx::Skip:
        ++skip_depth_;
        return end_event();
      case Ctx::Tokens:
        return token_error(at, Kind::Object, "");
      case Ctx::Matrix:
        return row_error(at, Kind::Object, "");
      case Ctx::Row:
        return element_error(at, Kind::Object, "");
      case Ctx::Done:
        break;
    }
    return end_event();
  }

  bool key(json::string_t& k) {
    const size_t at = begin_event();
    if (ctx_ == Ctx::Object) {
      if (k == "tokens" || k == "embeddings") {
        const bool seen = (k == "tokens") ? tokens_seen_ : matrix_seen_;
        if (seen)
          fail_here(at,
                  fmt::format("duplicate key \"{}\"; give it only once", k));
      } else if (other_keys_.size() < 5) {
        other_keys_.push_back(quote_text(k));
      }
      pending_key_ = k;
    }
    return end_event();
  }

  bool end_object() {
    if (ctx_ == Ctx::Skip) {
      if (--skip_depth_ == 0) ctx_ = Ctx::Object;
    } else if (ctx_ == Ctx::Object) {
      ctx_ = Ctx::Done;
    }
    return end_event();
  }

  bool start_array(std::size_t) {
    const size_t at = begin_event();
    switch (ctx_) {
      case Ctx::Top:
        form_ = Form::Bare;
        begin_matrix(at);
        return end_event();
      case Ctx::Object:
        return member_value(at, Kind::Array, "");
      case Ctx::Skip:
        ++skip_depth_;
        return end_event();
      case Ctx::Tokens:
        return token_error(at, Kind::Array, "");
      case Ctx::Matrix:
        ctx_ = Ctx::Row;
        row_start_ = at;
        row_length_ = 0;
        return end_event();
      case Ctx::Row: {
        const int dims = 2 + array_depth_at(text_, at);
        fail_here(at,
                fmt::format("{}, got a {}-D array: row {}, column {} is an array, not a number",
                            kExpected2D, dims, rows_ + 1, row_length_ + 1));
      }
      case Ctx::Done:
        break;
    }
    return end_event();
  }

  bool end_array() {
    switch (ctx_) {
      case Ctx::Skip:
        if (--skip_depth_ == 0) ctx_ = Ctx::Object;
        break;
      case Ctx::Tokens:
        ctx_ = Ctx::Object;
        break;
      case Ctx::Row:
        finish_row();
        ctx_ = Ctx::Matrix;
        break;
      case Ctx::Matrix:
        if (rows_ == 0)
          fail_here(matrix_start_,
                  "the embeddings matrix is empty; give at least one row, "
                  "e.g. [[0.43, 0.15, 0.89]]");
        ctx_ = form_ == Form::Object ? Ctx::Object : Ctx::Done;
        break;
      default:
        break;
    }
    return end_event();
  }

  bool parse_error(std::size_t byte, const std::string& last_token,
                   const nlohmann::detail::exception& ex) {
    report_syntax_error(byte, last_token, ex);
  }

  // --- after a successful parse ---
  Embeddings finish() {
    if (form_ == Form::Object && !matrix_seen_) {
      std::string found;
      for (const auto& k : other_keys_) found += (found.empty() ? "" : ", ") + k;
      if (tokens_seen_) found = "\"tokens\"" + std::string(found.empty() ? "" : ", ") + found;
      fail(source_,
           "the JSON object has no \"embeddings\" key; expected {\"tokens\": [...], "
           "\"embeddings\": [[...], ...]}" +
               (found.empty() ? std::string(" (the object is empty)")
                              : " (keys found: " + found + ")"));
    }
    if (tokens_seen_ && tokens_.size() != rows_) {
      fail_here(tokens_start_,
              fmt::format("\"tokens\" has {} {} but \"embeddings\" has {} {}; give one token per "
                          "row (or leave out \"tokens\" to use x1..x{})",
                          tokens_.size(), tokens_.size() == 1 ? "entry" : "entries", rows_,
                          rows_ == 1 ? "row" : "rows", rows_));
    }
    Embeddings out;
    if (tokens_seen_) {
      out.tokens = std::move(tokens_);
    } else {
      out.tokens.reserve(rows_);
      for (size_t i = 1; i <= rows_; ++i) out.tokens.push_back("x" + std::to_string(i));
    }
    out.inputs = Tensor({static_cast<int64_t>(rows_), static_cast<int64_t>(width_)},
                        std::move(values_));
    return out;
  }

 private:
  enum class Form { Unknown, Object, Bare };
  enum class Ctx { Top, Object, Skip, Tokens, Matrix, Row, Done };
  enum class Kind { Null, Boolean, Number, NonFinite, String, Object, Array, Other };

  // Where the current event's token starts: the first byte after the previous event
  // that is not whitespace, ',' or ':'. Only valid until end_event().
  size_t begin_event() const { return token_start(text_, event_end_); }
  // Remember how far the lexer has read; every event handler ends with this.
  bool end_event() {
    event_end_ = static_cast<size_t>(read_ - text_.data());
    return true;
  }

  static std::string describe(Kind kind, const std::string& detail) {
    switch (kind) {
      case Kind::Null: return "null";
      case Kind::Boolean: return "a boolean (" + detail + ")";
      case Kind::Number: return "a number (" + detail + ")";
      case Kind::NonFinite: return detail + " (not a finite number)";
      case Kind::String: return "a string (" + quote_text(detail) + ")";
      case Kind::Object: return "an object";
      case Kind::Array: return "an array";
      case Kind::Other: break;
    }
    return "binary data";
  }

  bool scalar(Kind kind, const std::string& detail) {
    const size_t at = begin_event();
    switch (ctx_) {
      case Ctx::Top:
        fail_here(at,
                fmt::format("{}; got {} instead", kExampleForms, describe(kind, detail)));
      case Ctx::Object:
        return member_value(at, kind, detail);
      case Ctx::Skip:
        break;
      case Ctx::Tokens:
        if (kind != Kind::String) return token_error(at, kind, detail);
        tokens_.push_back(detail);
        break;
      case Ctx::Matrix:
        return row_error(at, kind, detail);
      case Ctx::Row:
        return element_error(at, kind, detail);
      case Ctx::Done:
        break;
    }
    return end_event();
  }

  // A number inside a row: the fast path, once per matrix element.
  bool element(double v, std::string_view raw) {
    const float f = static_cast<float>(v);  // as torch.tensor(list) stores a Python float
    if (!std::isfinite(f))
      fail_here(begin_event(),
              fmt::format("row {}, column {}: {} is too large for float32 (the largest finite "
                          "float32 is about 3.4028235e+38)",
                          rows_ + 1, row_length_ + 1, excerpt(std::string(raw))));
    values_.push_back(f);
    ++row_length_;
    return end_event();
  }

  // The value of a top-level object member.
  bool member_value(size_t at, Kind kind, const std::string& detail) {
    if (pending_key_ == "tokens") {
      tokens_seen_ = true;
      if (kind != Kind::Array)
        fail_here(at,
                fmt::format("\"tokens\" must be an array of strings, got {}",
                            describe(kind, detail)));
      tokens_start_ = at;
      ctx_ = Ctx::Tokens;
    } else if (pending_key_ == "embeddings") {
      matrix_seen_ = true;
      if (kind != Kind::Array)
        fail_here(at,
                fmt::format("\"embeddings\" must be a 2-D array of numbers (tokens x embedding "
                            "width), got {}",
                            describe(kind, detail)));
      begin_matrix(at);
    } else if (kind == Kind::Array || kind == Kind::Object) {
      ctx_ = Ctx::Skip;  // other keys are allowed (metadata) and ignored
      skip_depth_ = 1;
    }
    return end_event();
  }

  void begin_matrix(size_t at) {
    ctx_ = Ctx::Matrix;
    matrix_start_ = at;
  }

  bool token_error(size_t at, Kind kind, const std::string& detail) {
    fail_here(at,
            fmt::format("token {} is {}; every entry of \"tokens\" must be a string, e.g. \"Your\"",
                        tokens_.size() + 1, describe(kind, detail)));
  }

  // A matrix element that is not an array.
  bool row_error(size_t at, Kind kind, const std::string& detail) {
    if (rows_ == 0 && kind == Kind::Number)
      fail_here(at,
              fmt::format("{}, got a 1-D array; put each token's embedding in its own brackets, "
                          "e.g. [[0.43, 0.15, 0.89]]",
                          kExpected2D));
    fail_here(at,
            fmt::format("row {} is {}, not an array; {}", rows_ + 1, describe(kind, detail),
                        kExpected2D));
  }

  // A row element that is not a number.
  bool element_error(size_t at, Kind kind, const std::string& detail) {
    if (kind == Kind::NonFinite)
      fail_here(at, fmt::format("row {}, column {}: {} is not a finite number (Python's json writes "
                                "NaN, Infinity and -Infinity for them); embeddings must be finite "
                                "numbers",
                                rows_ + 1, row_length_ + 1, detail));
    std::string hint;
    if (kind == Kind::String && looks_numeric(detail)) hint = " (write it without quotes)";
    fail_here(at,
            fmt::format("row {}, column {} is {}; expected a number{}", rows_ + 1,
                        row_length_ + 1, describe(kind, detail), hint));
  }

  void finish_row() {
    const size_t row = rows_ + 1;
    if (rows_ == 0) {
      if (row_length_ == 0)
        fail_here(row_start_,
                "row 1 is empty; every row needs at least one number (the embedding width d_in)");
      width_ = row_length_;
    } else if (row_length_ != width_) {
      if (row_length_ == 0)
        fail_here(row_start_,
                fmt::format("row {} is empty; expected {} {} like row 1", row, width_,
                            width_ == 1 ? "number" : "numbers"));
      fail_here(row_start_,
              fmt::format("row {} has {} {}, expected {} like row 1; every row must have the "
                          "same length (the embedding width)",
                          row, row_length_, row_length_ == 1 ? "number" : "numbers", width_));
    }
    ++rows_;
  }

  [[noreturn]] void report_syntax_error(std::size_t byte, const std::string& last_token,
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

  // fail_at() at `at` of the strict text, named by its line and column in the original.
  [[noreturn]] void fail_here(size_t at, const std::string& message) const {
    fail_at(source_, original_, strict_.original_offset(at), message);
  }

  const std::string& text_;      // what the lexer reads: strict_.text
  const StrictJson& strict_;
  const std::string& original_;  // the input as given, for positions in messages
  const std::string& source_;
  const char* read_;       // how far the lexer has read (published by TrackingIterator)
  size_t event_end_ = 0;   // read_ as of the end of the previous event

  Form form_ = Form::Unknown;
  Ctx ctx_ = Ctx::Top;
  int skip_depth_ = 0;
  std::string pending_key_;
  std::vector<std::string> other_keys_;

  bool tokens_seen_ = false;
  size_t tokens_start_ = 0;
  std::vector<std::string> tokens_;

  bool matrix_seen_ = false;
  size_t matrix_start_ = 0;
  size_t row_start_ = 0;
  size_t rows_ = 0;
  size_t width_ = 0;
  size_t row_length_ = 0;
  std::vector<float> values_;
};

}  // namespace

Embeddings parse_embeddings(const std::string& text, const std::string& source) {
  if (auto simple = parse_simple_json(text)) return std::move(*simple);
  check_text(text, source);
  const StrictJson strict = python_json_to_strict(text);
  Builder builder(strict, text, source);
  const char* begin = strict.text.data();
  const char* end = strict.text.data() + strict.text.size();
  const bool ok = json::sax_parse(TrackingIterator(begin, builder.read_pointer()),
                                  TrackingIterator(end, nullptr), &builder);
  if (!ok) fail(source, "invalid JSON");  // not reached: every failure throws with details
  return builder.finish();
}

}  // namespace attn
