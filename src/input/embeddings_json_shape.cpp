// What the JSON reader makes of the values it collected: each row checked as it closes,
// the Embeddings built at the end, and the messages for a value where it does not belong
// (a number among the tokens, a row that is not an array, a string among the numbers).
// The state machine that collects them is in embeddings_json.cpp.
#include "input/embeddings_detail.h"
#include "input/embeddings_json_builder.h"

#include <cmath>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace attn::embeddings_detail {

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

}  // namespace

// After the whole text parsed: the object's keys and the tokens checked against the rows,
// then the tokens (x1..xN when none are given) and the (rows, width) matrix.
Embeddings JsonBuilder::finish() {
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

std::string JsonBuilder::describe(Kind kind, const std::string& detail) {
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

// An array inside a row: the input has more than two dimensions.
void JsonBuilder::array_in_row_error(size_t at) const {
  const int dims = 2 + array_depth_at(text_, at);
  fail_here(at,
            fmt::format("{}, got a {}-D array: row {}, column {} is an array, not a number",
                        kExpected2D, dims, rows_ + 1, row_length_ + 1));
}

bool JsonBuilder::token_error(size_t at, Kind kind, const std::string& detail) {
  fail_here(at,
            fmt::format("token {} is {}; every entry of \"tokens\" must be a string, e.g. \"Your\"",
                        tokens_.size() + 1, describe(kind, detail)));
}

// A matrix element that is not an array.
bool JsonBuilder::row_error(size_t at, Kind kind, const std::string& detail) {
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
bool JsonBuilder::element_error(size_t at, Kind kind, const std::string& detail) {
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

// A row just closed: row 1 sets the width, every later row must have it.
void JsonBuilder::finish_row() {
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

// fail_at() at `at` of the strict text, named by its line and column in the original.
void JsonBuilder::fail_here(size_t at, const std::string& message) const {
  fail_at(source_, original_, strict_.original_offset(at), message);
}

}  // namespace attn::embeddings_detail
