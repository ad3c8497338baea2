// Bulk conversion of MT19937 draws to torch.rand / uniform_ floats, vectorised where the CPU
// allows, with the same bits as TorchGenerator::uniform_float on each draw.
#pragma once

#include <cstdint>

namespace attn::kernels {

// out[i] = fma(float(bits[i] & 0xFFFFFF) * 2^-24, to - from, from) for i < n.
void uniform_from_bits(const uint32_t* bits, float* out, int64_t n, float from, float to);

namespace detail {
void uniform_from_bits_avx2(const uint32_t* bits, float* out, int64_t n, float from, float to);
}  // namespace detail

}  // namespace attn::kernels
