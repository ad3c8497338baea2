#include "kernels/gelu.h"

#include <algorithm>
#include <cmath>

#include "core/cpu.h"
#include "kernels/gelu_detail.h"
#include "kernels/parallel.h"
#include "torch/torch_sleef.h"

namespace attn::kernels {

float gelu_sqrt_2_over_pi() { return std::sqrt(static_cast<float>(2.0 / M_PI)); }

float gelu_reference(float x) {
  const float c = gelu_sqrt_2_over_pi();
  const float p = x * x * x;                                 // torch.pow(x, 3)
  const float inner = x + p * static_cast<float>(0.044715);  // x + 0.044715 * x^3
  const float u = sleef_tanhf(inner * c) + 1.0f;             // 1 + tanh(c * inner)
  return (x * 0.5f) * u;                                     // (0.5 * x) * (...)
}

namespace {

void gelu_run(const float* x, float* out, int64_t n) {
  const Isa isa = active_isa();
  if (isa == Isa::Avx512) return detail::gelu_avx512(x, out, n);
  if (isa == Isa::Avx2) return detail::gelu_avx2(x, out, n);
  for (int64_t i = 0; i < n; ++i) out[i] = gelu_reference(x[i]);
}

}  // namespace

void gelu_values(const float* x, float* out, int64_t n) {
  // Chunks of whole vectors (a multiple of 16), so a chunk's tail is the input's tail only;
  // which thread runs a chunk changes nothing, each value being computed alone.
  constexpr int64_t kChunk = 16 * 1024;
  if (n <= kChunk) return gelu_run(x, out, n);
  parallel_for((n + kChunk - 1) / kChunk, [&](int64_t c) {
    const int64_t begin = c * kChunk;
    gelu_run(x + begin, out + begin, std::min(kChunk, n - begin));
  });
}

}  // namespace attn::kernels
