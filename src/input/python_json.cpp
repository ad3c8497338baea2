#include "input/python_json.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace attn {

namespace {

// The length of the Python token at text[i] ("NaN", "Infinity", "-Infinity"), or 0. A token
// followed by a letter or digit ("NaNa", "Infinity2") is not one.
size_t python_token_at(const std::string& text, size_t i) {
  for (const char* token : {"-Infinity", "Infinity", "NaN"}) {
    const size_t n = std::strlen(token);
    if (text.compare(i, n, token) != 0) continue;
    if (i + n < text.size() && (std::isalnum(static_cast<unsigned char>(text[i + n])) || text[i + n] == '_'))
      return 0;
    return n;
  }
  return 0;
}

}  // namespace

StrictJson python_json_to_strict(const std::string& text) {
  StrictJson out;
  // Most files have none: nothing to copy.
  if (text.find("NaN") == std::string::npos && text.find("Infinity") == std::string::npos) {
    out.text = text;
    return out;
  }
  out.text.reserve(text.size() + 16);
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '"') {  // a string, escapes included, copied as it is
      size_t j = i + 1;
      while (j < text.size() && text[j] != '"') j += text[j] == '\\' ? 2 : 1;
      j = std::min(j + 1, text.size());
      out.text.append(text, i, j - i);
      i = j;
      continue;
    }
    // A token starts after a delimiter only: "1NaN" stays the lexer's to refuse.
    const bool after_delimiter = i == 0 || std::strchr(" \t\r\n,:[{", text[i - 1]) != nullptr;
    if (const size_t n = after_delimiter ? python_token_at(text, i) : 0) {
      out.quoted.push_back(out.text.size());
      out.text += '"';
      out.text.append(text, i, n);
      out.text += '"';
      i += n;
      continue;
    }
    out.text += c;
    ++i;
  }
  return out;
}

size_t StrictJson::original_offset(size_t offset) const {
  // Each quoted token before `offset` added two quotes; inside one, the opening quote.
  size_t added = 0;
  for (const size_t q : quoted) {
    if (q >= offset) break;
    // Within the token: past its opening quote only.
    const size_t closing = q + 1 + (text.find('"', q + 1) - q - 1);
    added += offset > closing ? 2 : 1;
  }
  return offset - added;
}

bool StrictJson::was_python_token(size_t offset) const {
  return std::binary_search(quoted.begin(), quoted.end(), offset);
}

}  // namespace attn
