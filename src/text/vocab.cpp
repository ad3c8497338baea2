#include "text/vocab.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "text/tables.h"

namespace attn::text {

namespace {

// The lookup tables, built from the compiled-in bytes and lengths the first time a walk
// tokenizes text (a millisecond or so natively), so that a walk without --text, and the web
// page's start, pay nothing for them, and the page carries only the bytes and lengths.
struct Index {
  std::vector<uint32_t> offsets;   // token i is kTokenBytes[offsets[i], offsets[i + 1])
  std::vector<uint32_t> by_bytes;  // the ids but <|endoftext|>, sorted by their bytes

  std::string_view bytes(size_t id) const {
    return {kTokenBytes + offsets[id], offsets[id + 1] - offsets[id]};
  }
};

const Index& index() {
  static const Index built = [] {
    Index x;
    x.offsets.resize(kVocabSize + 1);
    x.offsets[0] = 0;
    for (size_t i = 0; i < kVocabSize; ++i) x.offsets[i + 1] = x.offsets[i] + kTokenLengths[i];
    x.by_bytes.resize(kVocabSize - 1);  // a rank is a binary search in here
    for (size_t i = 0; i + 1 < kVocabSize; ++i) x.by_bytes[i] = static_cast<uint32_t>(i);
    std::sort(x.by_bytes.begin(), x.by_bytes.end(), [&x](uint32_t a, uint32_t b) { return x.bytes(a) < x.bytes(b); });
    return x;
  }();
  return built;
}

}  // namespace

int64_t vocab_size() { return static_cast<int64_t>(kVocabSize); }

std::string_view token_bytes(int64_t id) { return index().bytes(static_cast<size_t>(id)); }

std::optional<int64_t> rank_of(std::string_view bytes) {
  const Index& x = index();
  const auto it = std::lower_bound(x.by_bytes.begin(), x.by_bytes.end(), bytes,
                                   [&x](uint32_t id, std::string_view b) { return x.bytes(id) < b; });
  if (it == x.by_bytes.end() || x.bytes(*it) != bytes) return std::nullopt;
  return static_cast<int64_t>(*it);
}

}  // namespace attn::text
