#include "text/vocab.h"

#include <algorithm>

#include "text/tables.h"

namespace attn::text {

int64_t vocab_size() { return static_cast<int64_t>(kVocabSize); }

std::string_view token_bytes(int64_t id) {
  const auto i = static_cast<size_t>(id);
  return {kTokenBytes + kTokenOffsets[i], kTokenOffsets[i + 1] - kTokenOffsets[i]};
}

std::optional<int64_t> rank_of(std::string_view bytes) {
  const uint32_t* begin = kIdsByBytes;
  const uint32_t* end = kIdsByBytes + (kVocabSize - 1);
  const uint32_t* it =
      std::lower_bound(begin, end, bytes, [](uint32_t id, std::string_view b) { return token_bytes(id) < b; });
  if (it == end || token_bytes(*it) != bytes) return std::nullopt;
  return static_cast<int64_t>(*it);
}

}  // namespace attn::text
