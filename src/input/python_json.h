// Python's json module writes float('nan') and the infinities as NaN, Infinity and
// -Infinity (json.dump's allow_nan=True, its default), which strict JSON has no words for.
// A learner's json.dump({"masked": masked.tolist()}, f) holds them, so the readers accept
// them as Python's json.load does: the text is made strict by quoting those three tokens
// (outside strings), and offsets in the strict text map back to the original for messages.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace attn {

struct StrictJson {
  std::string text;            // the input with NaN, Infinity, -Infinity quoted: "NaN", ...
  std::vector<size_t> quoted;  // where each quoted token's opening quote is in `text`, ascending

  // The offset in the original text of `offset` in `text`.
  size_t original_offset(size_t offset) const;
  // Whether the string starting at `offset` of `text` was one of Python's bare tokens.
  bool was_python_token(size_t offset) const;
};

StrictJson python_json_to_strict(const std::string& text);

// Whether `s` is one of Python's three tokens, as json.load reads them.
inline bool is_python_nonfinite(const std::string& s) {
  return s == "NaN" || s == "Infinity" || s == "-Infinity";
}

}  // namespace attn
