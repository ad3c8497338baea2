// GPT-2's vocabulary: 50257 tokens, each a string of bytes. Ids 0..50255 are also BPE
// ranks (a lower id was merged earlier); 50256 is <|endoftext|>. The tokens' bytes are
// compiled in (src/text/tables.h), so there is nothing to load; the lookup tables are built
// from them on first use.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace attn::text {

constexpr int64_t kEndOfText = 50256;
constexpr std::string_view kEndOfTextString = "<|endoftext|>";

int64_t vocab_size();                                    // 50257
std::string_view token_bytes(int64_t id);                // the bytes token `id` stands for
std::optional<int64_t> rank_of(std::string_view bytes);  // the id of these bytes, if a token

}  // namespace attn::text
