// GPT-2's pre-tokenization: the text is cut into pieces by the pattern
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// (tiktoken's "gpt2" pattern, the same as GPT-2's encoder.py), and BPE then runs inside
// each piece on its own. This is that regex, matched by hand: at each position the first
// alternative that matches wins, each greedily.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/utf8.h"

namespace attn::text {

// The pieces of `text`, whose characters are `chars` (from decode_utf8), in order; they
// cover the text exactly.
std::vector<std::string_view> pretokenize(std::string_view text, const std::vector<CodePoint>& chars);

}  // namespace attn::text
