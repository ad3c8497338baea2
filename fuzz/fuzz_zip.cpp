// The stored-only zip reader and torch.save's format on top of it: any bytes read or throw
// WeightsError; every entry it returns lies inside the input.
#include <cstdint>

#include "fuzz_input.h"
#include "weights/gpt_weights.h"
#include "weights/torch_zip.h"
#include "weights/zip_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    for (const auto& e : attn::weights::read_zip({data, size}, "<fuzz>")) {
      if (e.data.size && (e.data.data < data || e.data.data + e.data.size > data + size)) __builtin_trap();
      try {
        attn::weights::check_zip_crc(e, "<fuzz>");
      } catch (const attn::WeightsError&) {
      }
    }
  } catch (const attn::WeightsError&) {
  }
  try {
    for (const auto& t : attn::weights::read_torch_zip({data, size}, "<fuzz>"))
      if (t.dtype != attn::weights::DType::Other && attn::numel_of(t.shape) > 0)
        (void)t.element(attn::numel_of(t.shape) - 1);  // the last element lies in its record
  } catch (const attn::WeightsError&) {
  }
  attn::fuzz::MemFile file(data, size);
  if (!file.ok()) return 0;
  try {
    (void)attn::load_gpt_weights(file.path(), 1);
  } catch (const attn::WeightsError&) {
  }
  return 0;
}
