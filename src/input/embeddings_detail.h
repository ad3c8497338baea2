// Internal: the helpers the files that read embeddings share (src/input/embeddings*.cpp):
// messages with positions, the text checks, and the fast path for plain JSON.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "input/input_types.h"

namespace attn::embeddings_detail {

inline constexpr const char* kExampleForms =
    "expected JSON like {\"tokens\": [\"Your\", ...], \"embeddings\": [[0.43, 0.15, 0.89], ...]} "
    "or a 2-D array [[0.43, 0.15, 0.89], ...]";

// embeddings_checks.cpp: messages that name the source and, given an offset into the text,
// its line and column; short excerpts of the input; where the next JSON token starts.
using input_detail::fail;
[[noreturn]] void fail_at(const std::string& source, const std::string& text, size_t offset,
                          const std::string& message);
std::string excerpt(const std::string& s, size_t max_chars = 24);
std::string quote_text(const std::string& s);
bool is_json_space(char c);
size_t token_start(const std::string& text, size_t from);

// embeddings_checks.cpp: the checks before parsing (listed at the top of embeddings_json.cpp).
void check_not_utf16(const std::string& text, const std::string& source);
size_t check_encoding(const std::string& text, size_t from, bool more_to_come, const std::string& source);
void check_text(const std::string& text, const std::string& source);

// embeddings_json_errors.cpp: a JSON error made into a learner's message.
bool looks_numeric(const std::string& s);  // a number someone quoted by mistake?
// A spelling of NaN/infinity that neither JSON nor Python's json reads, at text[at]; or "".
std::string nonfinite_literal_at(const std::string& text, size_t at);
// Where to point for nlohmann's error at `byte` (1-based) while reading the value at `value_at`.
size_t syntax_error_offset(const std::string& text, size_t byte, size_t value_at, const std::string& what);
// nlohmann's message without its prefix, "last read" kept short.
std::string parser_detail(const std::string& what, const std::string& last_token);
// What the learner likely wrote at `at`: a trailing comma, single quotes, a comment; or "".
std::string syntax_hint(const std::string& text, size_t at, const std::string& what);

// embeddings_json_fast.cpp: plain, well-formed input read in one pass, or nullopt for
// anything else (then the full parser reads it and says what is wrong).
std::optional<Embeddings> parse_simple_json(const std::string& text);

}  // namespace attn::embeddings_detail
