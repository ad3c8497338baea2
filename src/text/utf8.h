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

// How many bytes the character starting with `lead` takes (1-4), 0 for a byte that cannot
// start one; the caller still checks the continuation bytes.
int utf8_length(unsigned char lead);

}  // namespace attn::text
