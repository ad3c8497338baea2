// The restricted unpickler: any bytes build a state dict or throw WeightsError, in bounded
// memory, and nothing a pickle names is ever called.
#include <cstdint>

#include "weights/gpt_weights.h"
#include "weights/unpickler.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    for (const auto& t : attn::weights::unpickle_state_dict({data, size}, "<fuzz>")) {
      if (t.shape.size() != t.stride.size() || t.storage_offset < 0 || t.storage_offset > t.storage_numel)
        __builtin_trap();
    }
  } catch (const attn::WeightsError&) {
  }
  return 0;
}
