// The SLEEF functions (beyond expf, torch_kernels.h) that RoPE's tables need, as PyTorch
// 1.13's CPU kernels (AVX2 build: 8-lane vectors, fused multiply-adds) reach them:
//   - torch.sin/torch.cos on float32: every element through SLEEF's sinf_u10/cosf_u10
//     (Vectorized<float>::sin/cos; vec::map pads the tail into a vector);
//   - base ** tensor (torch.pow with a scalar base): the vectorised loop of cpu_kernel_vec
//     runs SLEEF's powf_u10 on each full 16 elements, and the rest through the C library's
//     powf (std::pow), as its scalar tail loop does.
#pragma once

namespace attn::kernels {

// Bit for bit SLEEF's xsinf_u1/xcosf_u1 for |d| < 125 (Cody-Waite reduction by pi in
// three parts, a double-float polynomial). From 125 on SLEEF switches whole vectors to its
// Payne-Hanek reduction, which is not reproduced: there the value is the correctly rounded
// double result, within 1 ulp of SLEEF's (docs/fidelity.md).
float sleef_sinf(float d);
float sleef_cosf(float d);

// Where sleef_sinf/sleef_cosf are PyTorch's bits: |d| < 125.
constexpr float kSleefTrigExactBelow = 125.0f;

// SLEEF's xlogf_u1 (Sleef_logf8_u10, Vectorized<float>::log() of the AVX2 build): log(d) as
// m * 2^e, 0.75 <= m < 1.5, through x = (m - 1) / (m + 1) in double-float. cross_entropy's
// log_softmax takes the log of each row's sum of exponentials with it.
float sleef_logf(float d);

// SLEEF's xpowf (u10) for a base x > 0 and a finite exponent y: exp(y * log(x)) through
// double-float logk/expk. Bit for bit for those arguments.
float sleef_powf(float x, float y);

// SLEEF's xtanhf (Sleef_tanhf8_u10, Vectorized<float>::tanh() of the AVX2 build): through the
// double-float exp of |x| (expk2f), (e - 1/e) / (e + 1/e); 1 with x's sign from |x| > 8.664339742.
// torch.tanh runs every element through it (vml's vec::map pads the tail into a vector).
float sleef_tanhf(float x);

// torch.pow(base, exponents) for a float base and a float32 tensor's values, in place:
// SLEEF for each full 16 elements from the start, std::pow for the rest.
void torch_pow_scalar_base(float base, float* values, long n);

}  // namespace attn::kernels
