// Internal to the JSON reader: the SAX handler that nlohmann's parser drives over the text
// (the plan is at the top of embeddings_json.cpp). Its state machine, one pass over the
// events, is in embeddings_json.cpp; what it makes of the values it collected (the rows
// checked, the Embeddings built) and its messages for a shape that is wrong are in
// embeddings_json_shape.cpp; a syntax error's message is in embeddings_json_errors.cpp.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "input/embeddings_detail.h"
#include "input/input_types.h"
#include "input/python_json.h"

namespace attn::embeddings_detail {

class JsonBuilder {
 public:
  using json = nlohmann::json;

  // `strict` is `original` with Python's tokens quoted; the lexer reads strict.text, and
  // messages point into the original.
  JsonBuilder(const StrictJson& strict, const std::string& original, const std::string& source)
      : text_(strict.text), strict_(strict), original_(original), source_(source), read_(text_.data()) {}

  // Where the lexer's iterator publishes how far it has read.
  const char** read_pointer() { return &read_; }

  // --- nlohmann SAX interface (embeddings_json.cpp) ---
  bool null();
  bool boolean(bool v);
  bool number_integer(json::number_integer_t v);
  bool number_unsigned(json::number_unsigned_t v);
  bool number_float(json::number_float_t v, const json::string_t& raw);
  bool string(json::string_t& s);
  bool binary(json::binary_t&);
  bool start_object(std::size_t);
  bool key(json::string_t& k);
  bool end_object();
  bool start_array(std::size_t);
  bool end_array();
  bool parse_error(std::size_t byte, const std::string& last_token, const nlohmann::detail::exception& ex);

  // --- after a successful parse (embeddings_json_shape.cpp) ---
  Embeddings finish();

 private:
  enum class Form {
    Unknown,
    Object,
    Bare
  };
  enum class Ctx {
    Top,
    Object,
    Skip,
    Tokens,
    Matrix,
    Row,
    Done
  };
  enum class Kind {
    Null,
    Boolean,
    Number,
    NonFinite,
    String,
    Object,
    Array,
    Other
  };

  // Where the current event's token starts: the first byte after the previous event
  // that is not whitespace, ',' or ':'. Only valid until end_event().
  size_t begin_event() const { return token_start(text_, event_end_); }
  // Remember how far the lexer has read; every event handler ends with this.
  bool end_event() {
    event_end_ = static_cast<size_t>(read_ - text_.data());
    return true;
  }

  // The state machine (embeddings_json.cpp).
  bool scalar(Kind kind, const std::string& detail);
  bool element(double v, std::string_view raw);
  bool member_value(size_t at, Kind kind, const std::string& detail);
  void begin_matrix(size_t at);

  // The shape (embeddings_json_shape.cpp): a row checked as it closes, and the messages
  // for a value where it does not belong.
  void finish_row();
  static std::string describe(Kind kind, const std::string& detail);
  [[noreturn]] void array_in_row_error(size_t at) const;
  bool token_error(size_t at, Kind kind, const std::string& detail);
  bool row_error(size_t at, Kind kind, const std::string& detail);
  bool element_error(size_t at, Kind kind, const std::string& detail);
  // fail_at() at `at` of the strict text, named by its line and column in the original.
  [[noreturn]] void fail_here(size_t at, const std::string& message) const;

  // A syntax error of nlohmann's, made into a learner's message (embeddings_json_errors.cpp).
  [[noreturn]] void report_syntax_error(std::size_t byte, const std::string& last_token,
                                        const nlohmann::detail::exception& ex);

  const std::string& text_;  // what the lexer reads: strict_.text
  const StrictJson& strict_;
  const std::string& original_;  // the input as given, for positions in messages
  const std::string& source_;
  const char* read_;      // how far the lexer has read (published by TrackingIterator)
  size_t event_end_ = 0;  // read_ as of the end of the previous event

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

}  // namespace attn::embeddings_detail
