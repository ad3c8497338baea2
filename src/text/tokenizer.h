// tiktoken's "gpt2" encoding, as the book calls it in chapter 2:
//   tokenizer.encode(text, allowed_special={"<|endoftext|>"})
// The text is split at every "<|endoftext|>" (which becomes 50256); each stretch between
// is pre-tokenized (pretokenize.h), and each piece byte-pair encoded (bpe.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attn::text {

struct Encoding {
  std::vector<int64_t> ids;
  std::vector<std::string> bytes;  // what each id stands for, so their concatenation is the text
};

// Throws InputError (embeddings.h) naming `source` and the byte offset if `text` is not
// valid UTF-8.
Encoding encode(std::string_view text, const std::string& source);

// tokenizer.decode(ids): the tokens' bytes, concatenated. Ids must be < vocab_size().
std::string decode(const std::vector<int64_t>& ids);

}  // namespace attn::text
