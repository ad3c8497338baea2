// attn-walk check's dump reader: any bytes must parse or throw InputError, nothing else, and a
// parsed dump holds tensors whose data match their shapes.
#include <cstdint>
#include <string>

#include "check/dump.h"
#include "input/embeddings.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const attn::Dump d = attn::parse_dump(std::string(reinterpret_cast<const char*>(data), size), "<fuzz>");
    for (const auto& [name, t] : d.tensors)
      if (t.numel() != attn::numel_of(t.shape)) __builtin_trap();
  } catch (const attn::InputError&) {
  }
  return 0;
}
