#include "torch/random_fill.h"

#include <cmath>

#include "core/cpu.h"
#include "torch/fma32.h"

namespace attn::kernels {

void uniform_from_bits(const uint32_t* bits, float* out, int64_t n, float from, float to) {
  if (x86_vectors(active_isa())) {
    detail::uniform_from_bits_avx2(bits, out, n, from, to);
    return;
  }
  const float range = to - from;
  for (int64_t i = 0; i < n; ++i)
    out[i] = fma32(static_cast<float>(bits[i] & 0xFFFFFFu) * (1.0f / 16777216.0f), range, from);
}

}  // namespace attn::kernels
