// Chapter 2's road from text to the vectors chapter 3 starts from:
//   token_ids        = tokenizer.encode(text, allowed_special={"<|endoftext|>"})
//   torch.manual_seed(seed)
//   token_embedding_layer = nn.Embedding(50257, D)     # normal_(0, 1), 50257 x D draws
//   pos_embedding_layer   = nn.Embedding(T, D)         # drawn next, from the same generator
//   input_embeddings = token_embedding_layer(token_ids) + pos_embedding_layer(torch.arange(T))
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace attn::text {

struct TextEmbeddings {
  std::string text;
  std::vector<int64_t> ids;         // (T,)
  std::vector<std::string> pieces;  // what each id stands for, readable (readable.h)
  Tensor token_embeddings;          // (T, D)
  Tensor pos_embeddings;            // (T, D)
  Tensor input_embeddings;          // (T, D)
};

// Throws InputError naming `source` for text that is empty, only whitespace, not UTF-8
// (with the byte offset), or longer than max_tokens tokens.
TextEmbeddings embed_text(std::string text, const std::string& source, int64_t embed_dim, uint64_t seed,
                          int64_t max_tokens);

}  // namespace attn::text
