// The last bits of PyTorch 1.13's CPU kernels (AVX2 build, OpenBLAS), reproduced so
// that our float32 results are the same floats, not just close:
//   - exp: SLEEF's expf (u10), which Vectorized<float>::exp() calls;
//   - sum: the cascade sum of ReduceOps/SumKernel.cpp;
//   - softmax's row reductions: vec::reduce_all over 8-lane vectors;
//   - dot: OpenBLAS sdot (float products added in double for short vectors).
#pragma once

#include <cstdint>

namespace attn::kernels {

float sleef_expf(float d);
float cascade_sum(const float* x, int64_t n);
float reduce_all_sum(const float* x, int64_t n);
float reduce_all_max(const float* x, int64_t n);
float blas_sdot(const float* x, const float* y, int64_t n);

}  // namespace attn::kernels
