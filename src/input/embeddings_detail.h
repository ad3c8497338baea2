// Internal: the helpers the files that read embeddings share (src/embeddings*.cpp):
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
[[noreturn]] void fail(const std::string& source, const std::string& message);
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

// embeddings_json_fast.cpp: plain, well-formed input read in one pass, or nullopt for
// anything else (then the full parser reads it and says what is wrong).
std::optional<Embeddings> parse_simple_json(const std::string& text);

}  // namespace attn::embeddings_detail
