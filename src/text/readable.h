// How a token's bytes are shown to a learner. GPT-2's pieces carry their leading space,
// and many tokens hold only part of a character (a Chinese character or an emoji is often
// split over two or three tokens), so the bytes are not always printable text:
//   - a space is shown as "·" (U+00B7): " journey" -> "·journey";
//   - newline, tab and carriage return as "\n", "\t", "\r"; other control characters, and
//     bytes that are only part of a UTF-8 character, as their hex bytes: "<e6 b3>";
//   - read together (readable_pieces), a character split over tokens is shown once, on its
//     first token, and the tokens that continue it as "↳".
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace attn::text {

constexpr const char* kSpaceMark = "\xC2\xB7";  // "·"
// A token holding only the rest of a character that an earlier token began.
constexpr const char* kContinuationMark = "\xE2\x86\xB3";  // "↳"

// One token's bytes alone: characters as themselves, partial characters in hex ("<e6 b3>").
std::string readable_piece(std::string_view bytes);

// The tokens of one text, side by side (each token's bytes, in order): a character whose
// bytes GPT-2 split over several tokens is shown once, whole, on the token where it begins,
// and each token that only continues it is marked "↳". "注意" = <e6 b3> <a8> <e6 84> <8f>
// -> {"注", "↳", "意", "↳"}. Bytes that are no whole character anywhere stay hex.
std::vector<std::string> readable_pieces(const std::vector<std::string>& tokens);

// The characters a text's tokens split, each with its tokens' bytes: {"注", "<e6 b3> <a8>"}.
struct SplitCharacter {
  std::string character;  // readable, as readable_piece shows it
  std::string pieces;     // the tokens' bytes in hex, one <...> per token
};
std::vector<SplitCharacter> split_characters(const std::vector<std::string>& tokens);

}  // namespace attn::text
