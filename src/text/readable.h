// How a token's bytes are shown to a learner. GPT-2's pieces carry their leading space,
// and many tokens hold only part of a character (a Chinese character or an emoji is often
// split over two or three tokens), so the bytes are not always printable text:
//   - a space is shown as "·" (U+00B7): " journey" -> "·journey";
//   - newline, tab and carriage return as "\n", "\t", "\r"; other control characters, and
//     bytes that are only part of a UTF-8 character, as their hex bytes: "<e6 b3>".
#pragma once

#include <string>
#include <string_view>

namespace attn::text {

constexpr const char* kSpaceMark = "\xC2\xB7";  // "·"

std::string readable_piece(std::string_view bytes);

}  // namespace attn::text
