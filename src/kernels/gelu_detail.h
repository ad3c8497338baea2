// Internal: the vector GELU (gelu_avx2.cpp, gelu_avx512.cpp), used by gelu.cpp when the CPU has
// AVX2 and FMA (and AVX-512F). Both compute gelu_reference (gelu.h) lane by lane.
#pragma once

#include <cstdint>

namespace attn::kernels::detail {

void gelu_avx2(const float* x, float* out, int64_t n);
void gelu_avx512(const float* x, float* out, int64_t n);

}  // namespace attn::kernels::detail
