// Reading the embeddings a walk starts from: tokens plus a (T, d_in) matrix.
//
// Accepted JSON forms:
//   {"tokens": ["Your", ...], "embeddings": [[0.43, 0.15, 0.89], ...]}
//   [[0.43, 0.15, 0.89], ...]            (tokens default to x1..xT)
// Every problem throws InputError with a message that names the source and,
// where known, the line and column.
#pragma once

#include <cstdint>
#include <string>

#include "input/input_stream.h"
#include "input/input_types.h"  // Embeddings, InputError

namespace attn {

// The chapter's six tokens, "Your journey starts with one step" (same as data/journey.json).
Embeddings builtin_journey();

// Parse JSON text; `source` names where it came from ("data/journey.json", "<stdin>").
Embeddings parse_embeddings(const std::string& text, const std::string& source);

// Read and parse a file; "-" reads standard input. Inputs above `max_bytes` are refused
// (the default is --max-input-mb's, kDefaultMaxInputMb MiB).
Embeddings load_embeddings(const std::string& path, uint64_t max_bytes = kDefaultMaxInputMb * kBytesPerMb);

}  // namespace attn
