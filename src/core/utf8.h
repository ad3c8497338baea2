// UTF-8 decoding with the byte offset of every character, strict as Python's decoder:
// no overlong forms, no surrogates, nothing above U+10FFFF.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attn::text {

struct CodePoint {
  char32_t value;
  size_t offset;  // where its bytes start in the text
};

// The characters of `s`, or nullopt with *bad_offset set to the first byte that is not
// valid UTF-8.
std::optional<std::vector<CodePoint>> decode_utf8(std::string_view s, size_t* bad_offset);

// The character that starts at byte i of `s`: its length in bytes (1-4) and its code point;
// length 0 when the bytes there are not valid UTF-8 (a byte that cannot start a character,
// a missing or stray continuation byte, an overlong form, a surrogate, a code point past
// U+10FFFF, or a character cut off by the end of `s`). The one decoder: the tokenizer, the
// input checks and the terminal's labels all read UTF-8 with it.
struct Utf8Char {
  int length;
  char32_t value;
};
Utf8Char decode_utf8_char(std::string_view s, size_t i);

}  // namespace attn::text
