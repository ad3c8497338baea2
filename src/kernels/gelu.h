// The book's GELU (chapter 4's GELU module) on float32 values, fused into one pass:
//   0.5 * x * (1 + torch.tanh(torch.sqrt(torch.tensor(2.0 / torch.pi)) * (x + 0.044715 * torch.pow(x, 3))))
// is, in PyTorch 1.13, a chain of separate elementwise ops, each rounded to float32:
//   p = (x * x) * x                 torch.pow(x, 3)
//   a = p * 0.044715f               0.044715 * ...
//   inner = x + a
//   m = inner * c                   c = sqrt(float(2 / pi)), a float32 tensor's sqrt
//   t = sleef_tanhf(m)              torch.tanh (SLEEF's tanhf_u10, src/torch/torch_sleef.h)
//   u = t + 1.0f                    1 + ...
//   h = x * 0.5f                    0.5 * x
//   gelu = h * u
// Each element's chain is independent of the others, so the vector paths (gelu_avx2.cpp,
// gelu_avx512.cpp) run the same float operations lane by lane and give the same bits as
// gelu_reference, which stays the reference (tests/test_gpt_ops.cpp compares them).
#pragma once

#include <cstdint>

namespace attn::kernels {

// The chain above for one value: the reference.
float gelu_reference(float x);
// c above: torch.sqrt(torch.tensor(2.0 / torch.pi)), the double rounded to float32, then its sqrt.
float gelu_sqrt_2_over_pi();

// out[i] = gelu_reference(x[i]) for i < n, with the vectors the CPU has (active_isa()), over
// the pool's threads for long inputs. out may be x.
void gelu_values(const float* x, float* out, int64_t n);

}  // namespace attn::kernels
