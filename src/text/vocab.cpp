#include "text/vocab.h"

#include <cstdint>
#include <vector>

#include "text/tables.h"

namespace attn::text {

namespace {

// FNV-1a: a token's bytes to a slot of the table below.
uint32_t hash_bytes(std::string_view bytes) {
  uint32_t h = 2166136261u;
  for (const char c : bytes) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  return h;
}

// The lookup tables, built from the compiled-in bytes and lengths the first time a walk
// tokenizes text, in one pass (about a millisecond, also in the web page's WebAssembly, where
// sorting the tokens took 150 ms), so that a walk without --text, and the page's start, pay
// nothing for them, and the page carries only the bytes and lengths.
struct Index {
  std::vector<uint32_t> offsets;  // token i is kTokenBytes[offsets[i], offsets[i + 1])
  // Open addressing: slot k holds 1 + the id of a token whose hash leads to k (probing on to
  // k + 1, ...), or 0. A power of two over twice the tokens, so probes stay short.
  std::vector<uint32_t> slots;

  std::string_view bytes(size_t id) const { return {kTokenBytes + offsets[id], offsets[id + 1] - offsets[id]}; }
};

const Index& index() {
  static const Index built = [] {
    Index x;
    x.offsets.resize(kVocabSize + 1);
    x.offsets[0] = 0;
    for (size_t i = 0; i < kVocabSize; ++i) x.offsets[i + 1] = x.offsets[i] + kTokenLengths[i];
    size_t size = 1;
    while (size < 2 * kVocabSize) size *= 2;
    x.slots.assign(size, 0);
    const size_t mask = size - 1;
    for (size_t id = 0; id + 1 < kVocabSize; ++id) {  // every id but <|endoftext|>, the last one
      size_t k = hash_bytes(x.bytes(id)) & mask;
      while (x.slots[k] != 0) k = (k + 1) & mask;
      x.slots[k] = static_cast<uint32_t>(id + 1);
    }
    return x;
  }();
  return built;
}

}  // namespace

int64_t vocab_size() { return static_cast<int64_t>(kVocabSize); }

std::string_view token_bytes(int64_t id) { return index().bytes(static_cast<size_t>(id)); }

std::optional<int64_t> rank_of(std::string_view bytes) {
  const Index& x = index();
  const size_t mask = x.slots.size() - 1;
  for (size_t k = hash_bytes(bytes) & mask; x.slots[k] != 0; k = (k + 1) & mask)
    if (x.bytes(x.slots[k] - 1) == bytes) return static_cast<int64_t>(x.slots[k] - 1);
  return std::nullopt;
}

}  // namespace attn::text
