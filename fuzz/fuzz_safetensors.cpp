// The safetensors reader and the GPT mapping: any bytes read as a model or throw WeightsError,
// nothing else; every view of a model that reads lies inside the file or its buffers.
#include <cstdint>
#include <string>

#include "fuzz_input.h"
#include "weights/gpt_weights.h"
#include "weights/safetensors.h"

namespace {

float fuzz_weights_touch(const attn::ParamView& v) {  // reads every element (ASan checks each)
  float sum = 0;
  for (int64_t i = 0; i < v.numel(); ++i)
    sum += v.shape.size() == 2 ? v.at(i / v.shape[1], i % v.shape[1]) : v.data[i];
  return sum;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const auto tensors = attn::weights::read_safetensors({data, size}, "<fuzz>");
    for (const auto& t : tensors)
      if (t.dtype != attn::weights::DType::Other && attn::numel_of(t.shape) > 0)
        (void)t.element(attn::numel_of(t.shape) - 1);  // the last byte is inside the input
  } catch (const attn::WeightsError&) {
  }
  attn::fuzz::MemFile file(data, size);
  if (!file.ok()) return 0;
  for (const std::optional<int64_t> heads : {std::optional<int64_t>{}, std::optional<int64_t>{1}}) {
    try {
      const attn::GptParams p = attn::load_gpt_weights(file.path(), heads);
      float sum = fuzz_weights_touch(p.tok_emb) + fuzz_weights_touch(p.out_head);
      for (const auto& b : p.blocks) sum += fuzz_weights_touch(b.W_query_w) + fuzz_weights_touch(b.ff2_w);
      if (p.cfg.n_heads < 1 || p.cfg.emb_dim % p.cfg.n_heads != 0) __builtin_trap();
      (void)sum;
    } catch (const attn::WeightsError&) {
    }
  }
  return 0;
}
