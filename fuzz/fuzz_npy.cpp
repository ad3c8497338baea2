// The .npy loader: any bytes must load or throw InputError, nothing else. Read through the
// real file path (header validated before the data is read) and parsed from memory.
#include <cstdint>
#include <string>

#include "input/embeddings.h"
#include "fuzz_input.h"
#include "input/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  attn::fuzz::MemFile file(data, size);
  if (!file.ok()) return 0;
  for (const uint64_t limit : {uint64_t{1} << 20, uint64_t{64}}) {
    try {
      const attn::Embeddings e = attn::load_embeddings(file.path(), limit);
      if (e.tokens.size() != static_cast<size_t>(e.inputs.size(0))) __builtin_trap();
    } catch (const attn::InputError&) {
    }
  }
  try {
    const attn::Embeddings e = attn::parse_npy(bytes, "<fuzz>.npy");
    // What parse_npy accepts, the header-first reader must accept too, with the same values.
    const attn::Embeddings f = attn::load_embeddings(file.path(), uint64_t{1} << 20);
    if (f.inputs.data != e.inputs.data) __builtin_trap();
  } catch (const attn::InputError&) {
  }
  return 0;
}
