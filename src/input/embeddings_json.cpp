// Reading embeddings from JSON text, with messages a learner can act on.
//
// The text goes through four checks before any tensor is built:
//   1. it is not empty and not only whitespace;
//   2. it is UTF-8 text (a NUL byte means a binary file; an invalid UTF-8 sequence a
//      binary file or another encoding);
//   3. arrays/objects nest at most kMaxDepth levels deep (a cheap pre-scan, so no
//      later step can run out of stack on inputs like 100000 '[');
//   4. nlohmann's SAX parser drives a small state machine (JsonBuilder, below) that checks
//      the shape as it goes and appends floats straight into the tensor's storage: no DOM,
//      no exceptions per element, one pass over the text.
// The parser does not report where a SAX event came from, so the text is fed through
// an iterator that publishes how far the lexer has read; a value starts at the first
// byte after the previous event that is not whitespace, ',' or ':'.
// Python's json.dump writes NaN, Infinity and -Infinity: they are read (python_json.h),
// then refused as values the walk cannot use, at their line and column.
// Checks 1-3 live in embeddings_checks.cpp; before any of them, plain input takes the fast
// path of embeddings_json_fast.cpp. What the state machine makes of the values it collected
// (rows checked, the Embeddings built, the messages for a wrong shape) is in
// embeddings_json_shape.cpp; nlohmann's error messages are made into a learner's in
// embeddings_json_errors.cpp.
#include "input/embeddings.h"
#include "input/embeddings_detail.h"
#include "input/embeddings_json_builder.h"
#include "input/python_json.h"

#include <cmath>
#include <cstddef>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace attn {

using namespace embeddings_detail;

namespace {

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

}  // namespace

// ---------------------------------------------------------------------------
// The SAX state machine

namespace embeddings_detail {

bool JsonBuilder::null() { return scalar(Kind::Null, "null"); }
bool JsonBuilder::boolean(bool v) { return scalar(Kind::Boolean, v ? "true" : "false"); }

// Integers always fit a float32 (at worst rounded), so they need no text for messages
// inside a row; elsewhere they are described by their digits.
bool JsonBuilder::number_integer(json::number_integer_t v) {
  return ctx_ == Ctx::Row ? element(static_cast<double>(v), {})
                          : scalar(Kind::Number, std::to_string(v));
}
bool JsonBuilder::number_unsigned(json::number_unsigned_t v) {
  return ctx_ == Ctx::Row ? element(static_cast<double>(v), {})
                          : scalar(Kind::Number, std::to_string(v));
}
bool JsonBuilder::number_float(json::number_float_t v, const json::string_t& raw) {
  return ctx_ == Ctx::Row ? element(v, raw) : scalar(Kind::Number, raw);
}
bool JsonBuilder::string(json::string_t& s) {
  // One of Python's NaN, Infinity, -Infinity, quoted by python_json_to_strict().
  if (strict_.was_python_token(begin_event())) return scalar(Kind::NonFinite, s);
  return scalar(Kind::String, s);
}
bool JsonBuilder::binary(json::binary_t&) { return scalar(Kind::Other, ""); }

bool JsonBuilder::start_object(std::size_t) {
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

bool JsonBuilder::key(json::string_t& k) {
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

bool JsonBuilder::end_object() {
  if (ctx_ == Ctx::Skip) {
    if (--skip_depth_ == 0) ctx_ = Ctx::Object;
  } else if (ctx_ == Ctx::Object) {
    ctx_ = Ctx::Done;
  }
  return end_event();
}

bool JsonBuilder::start_array(std::size_t) {
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
    case Ctx::Row:
      array_in_row_error(at);
    case Ctx::Done:
      break;
  }
  return end_event();
}

bool JsonBuilder::end_array() {
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

bool JsonBuilder::parse_error(std::size_t byte, const std::string& last_token,
                              const nlohmann::detail::exception& ex) {
  report_syntax_error(byte, last_token, ex);
}

bool JsonBuilder::scalar(Kind kind, const std::string& detail) {
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
bool JsonBuilder::element(double v, std::string_view raw) {
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
bool JsonBuilder::member_value(size_t at, Kind kind, const std::string& detail) {
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

void JsonBuilder::begin_matrix(size_t at) {
  ctx_ = Ctx::Matrix;
  matrix_start_ = at;
}

}  // namespace embeddings_detail

Embeddings parse_embeddings(const std::string& text, const std::string& source) {
  if (auto simple = parse_simple_json(text)) return std::move(*simple);
  check_text(text, source);
  const StrictJson strict = python_json_to_strict(text);
  JsonBuilder builder(strict, text, source);
  const char* begin = strict.text.data();
  const char* end = strict.text.data() + strict.text.size();
  const bool ok = nlohmann::json::sax_parse(TrackingIterator(begin, builder.read_pointer()),
                                            TrackingIterator(end, nullptr), &builder);
  if (!ok) fail(source, "invalid JSON");  // not reached: every failure throws with details
  return builder.finish();
}

}  // namespace attn
