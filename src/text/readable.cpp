#include "text/readable.h"

#include <fmt/format.h>

#include "core/utf8.h"

namespace attn::text {

namespace {

bool is_control(char32_t c) { return c < 0x20 || c == 0x7F || (c >= 0x80 && c < 0xA0); }

}  // namespace

std::string readable_piece(std::string_view bytes) {
  std::string out, loose;  // loose: hex of bytes that are not a whole character, pending
  auto flush = [&] {
    if (!loose.empty()) out += "<" + loose + ">";
    loose.clear();
  };
  for (size_t i = 0; i < bytes.size();) {
    const Utf8Char whole = decode_utf8_char(bytes, i);
    const auto len = static_cast<size_t>(whole.length);
    if (len == 0) {  // not a whole character: its bytes in hex
      loose += fmt::format("{}{:02x}", loose.empty() ? "" : " ", static_cast<unsigned char>(bytes[i]));
      ++i;
      continue;
    }
    flush();
    const char32_t c = whole.value;
    if (c == ' ') out += kSpaceMark;
    else if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else if (is_control(c)) {
      for (size_t k = 0; k < len; ++k)
        loose += fmt::format("{}{:02x}", loose.empty() ? "" : " ", static_cast<unsigned char>(bytes[i + k]));
      flush();
    } else {
      out += bytes.substr(i, len);
    }
    i += len;
  }
  flush();
  return out;
}

namespace {

// Where each character of the tokens' joined bytes lies: its first byte and length (0: a
// byte that begins no whole character).
struct Span {
  size_t begin, length;
};

std::vector<Span> characters(const std::string& bytes) {
  std::vector<Span> out;
  for (size_t i = 0; i < bytes.size();) {
    const auto len = static_cast<size_t>(decode_utf8_char(bytes, i).length);
    out.push_back({i, len});
    i += len ? len : 1;
  }
  return out;
}

std::string hex_bytes(std::string_view bytes) {
  std::string out;
  for (const char c : bytes) out += fmt::format("{}{:02x}", out.empty() ? "" : " ", static_cast<unsigned char>(c));
  return "<" + out + ">";
}

}  // namespace

std::vector<std::string> readable_pieces(const std::vector<std::string>& tokens) {
  std::string joined;
  std::vector<size_t> token_of;  // the token of each byte
  for (size_t t = 0; t < tokens.size(); ++t) {
    joined += tokens[t];
    token_of.insert(token_of.end(), tokens[t].size(), t);
  }
  std::vector<std::string> out(tokens.size()), loose(tokens.size());  // loose: hex bytes pending
  std::vector<bool> continues(tokens.size(), false);                  // the token's last mark is ↳
  const auto put = [&](size_t t, const std::string& text) {
    if (!loose[t].empty()) out[t] += "<" + loose[t] + ">";  // neighbouring loose bytes: one <...>
    loose[t].clear();
    out[t] += text;
  };
  for (const Span& c : characters(joined)) {
    const size_t first = token_of[c.begin];
    if (c.length == 0) {  // no whole character: its byte in hex, on its own token
      loose[first] += fmt::format("{}{:02x}", loose[first].empty() ? "" : " ",
                                  static_cast<unsigned char>(joined[c.begin]));
      continues[first] = false;
      continue;
    }
    // The whole character on the token where it begins ...
    put(first, readable_piece(std::string_view(joined).substr(c.begin, c.length)));
    continues[first] = false;
    // ... and one ↳ on each later token that holds some of its bytes.
    for (size_t k = c.begin + 1; k < c.begin + c.length; ++k) {
      const size_t t = token_of[k];
      if (t == first || (continues[t] && token_of[k - 1] == t)) continue;
      put(t, kContinuationMark);
      continues[t] = true;
    }
  }
  for (size_t t = 0; t < tokens.size(); ++t) put(t, "");
  return out;
}

std::vector<SplitCharacter> split_characters(const std::vector<std::string>& tokens) {
  std::string joined;
  std::vector<size_t> token_of;
  for (size_t t = 0; t < tokens.size(); ++t) {
    joined += tokens[t];
    token_of.insert(token_of.end(), tokens[t].size(), t);
  }
  std::vector<SplitCharacter> out;
  for (const Span& c : characters(joined)) {
    if (c.length < 2 || token_of[c.begin] == token_of[c.begin + c.length - 1]) continue;
    SplitCharacter s{readable_piece(std::string_view(joined).substr(c.begin, c.length)), ""};
    for (size_t k = c.begin; k < c.begin + c.length;) {  // the character's bytes, token by token
      size_t end = k;
      while (end < c.begin + c.length && token_of[end] == token_of[k]) ++end;
      s.pieces += (s.pieces.empty() ? "" : " ") + hex_bytes(std::string_view(joined).substr(k, end - k));
      k = end;
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace attn::text
