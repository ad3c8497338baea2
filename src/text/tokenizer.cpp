#include "text/tokenizer.h"

#include <fmt/format.h>

#include "core/utf8.h"
#include "input/embeddings.h"
#include "text/bpe.h"
#include "text/pretokenize.h"
#include "text/vocab.h"

namespace attn::text {

namespace {

void encode_ordinary(std::string_view text, size_t offset, const std::string& source, Encoding& out) {
  size_t bad = 0;
  const auto chars = decode_utf8(text, &bad);
  if (!chars)
    throw InputError(fmt::format("{}: byte {}: invalid UTF-8 (byte 0x{:02x})", source, offset + bad,
                                 static_cast<unsigned char>(text[bad])));
  for (const std::string_view piece : pretokenize(text, *chars))
    for (const int64_t id : bpe_encode(piece)) {
      out.ids.push_back(id);
      out.bytes.emplace_back(token_bytes(id));
    }
}

}  // namespace

Encoding encode(std::string_view text, const std::string& source) {
  Encoding out;
  size_t start = 0;
  while (true) {
    const size_t special = text.find(kEndOfTextString, start);
    encode_ordinary(text.substr(start, special - start), start, source, out);
    if (special == std::string_view::npos) break;
    out.ids.push_back(kEndOfText);
    out.bytes.emplace_back(kEndOfTextString);
    start = special + kEndOfTextString.size();
  }
  return out;
}

std::string decode(const std::vector<int64_t>& ids) {
  std::string out;
  for (const int64_t id : ids) out += token_bytes(id);
  return out;
}

}  // namespace attn::text
