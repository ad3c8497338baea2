// The three character classes of GPT-2's pre-tokenization pattern, as tiktoken's regex
// engine defines them: \p{L} and \p{N} by general category, \s as White_Space.
#pragma once

namespace attn::text {

bool is_letter(char32_t c);  // \p{L}
bool is_number(char32_t c);  // \p{N}
bool is_space(char32_t c);   // \s

}  // namespace attn::text
