// --text, --text-file, --embed-dim and --max-tokens: the learner's own sentence as the
// input of a walk (chapter 2's tokenizer and embeddings, then any stage). Their binding is
// four rows of the options table (src/request/option_table.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "text/text_embeddings.h"

namespace attn {

struct TextOptions {
  std::string text;           // --text: the text itself; "-" reads standard input
  std::string text_file;      // --text-file: a UTF-8 file, read as is
  int64_t embed_dim = 3;      // --embed-dim D: nn.Embedding(..., D), the chapter's 3
  int64_t max_tokens = 1024;  // --max-tokens: GPT-2's context length
  bool given = false;         // --text or --text-file was on the command line (even if empty)
};

// The text's tokens and embeddings if --text or --text-file was given. Standard input
// loses one trailing newline (the one echo adds); a file is taken as it is.
std::optional<text::TextEmbeddings> load_text(const TextOptions& t, uint64_t seed);

// The name messages and JSON give the text: "--text", "<stdin>" or the file's name.
std::string text_source(const TextOptions& t);

}  // namespace attn
