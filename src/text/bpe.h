// Byte-pair encoding of one pre-tokenized piece, exactly as tiktoken does it
// (CoreBPE::byte_pair_merge): start from single bytes and, while any two neighbours
// together form a token, merge the pair whose token has the lowest rank (the leftmost of
// equals). A piece that is a token as a whole is that token at once.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace attn::text {

// The token ids of one piece (its bytes), in order.
std::vector<int64_t> bpe_encode(std::string_view piece);

}  // namespace attn::text
