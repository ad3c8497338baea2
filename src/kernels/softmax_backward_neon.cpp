// Softmax's backward on causal rows with aarch64's Advanced SIMD (NEON): the float operations
// of softmax_backward_avx2.cpp, its 8 lanes as two vectors of 4 (lo for lanes 0-3, hi for 4-7),
// vfmaq_f32 rounding once as _mm256_fmadd_ps does. So the sums and the scores' gradient are the
// x86 kernels' bits, and those of ops_backward.cpp's softmax_backward.
#include "kernels/softmax.h"
#include "kernels/softmax_detail.h"

#if defined(__aarch64__) && defined(__ARM_NEON)

#include <arm_neon.h>

namespace attn::kernels::detail {

namespace {

// Values [at, at + 4) of p that lie below `valid`, zeros past it (maskload's zeros).
float32x4_t load_below_neon(const float* p, int64_t at, int64_t valid) {
  if (at + 4 <= valid) return vld1q_f32(p + at);
  float t[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int64_t i = at; i < valid; ++i) t[i - at] = p[i];
  return vld1q_f32(t);
}

// out[j] = ((g[j] - sum) * w[j]) / divisor for j < valid; ByReciprocal: * (1 / divisor), the
// same floats for a power-of-two divisor (grad_scale in softmax_backward_avx2.cpp).
template <bool ByReciprocal>
void grad_scale(const float* g, const float* w, float sum, float divisor, float* out, int64_t valid) {
  const float by = ByReciprocal ? 1.0f / divisor : divisor;
  const float32x4_t s = vdupq_n_f32(sum), v = vdupq_n_f32(by);
  int64_t j = 0;
  for (; j + 4 <= valid; j += 4) {
    const float32x4_t x = vmulq_f32(vsubq_f32(vld1q_f32(g + j), s), vld1q_f32(w + j));
    vst1q_f32(out + j, ByReciprocal ? vmulq_f32(x, v) : vdivq_f32(x, v));
  }
  for (; j < valid; ++j) {
    const float x = (g[j] - sum) * w[j];
    out[j] = ByReciprocal ? x * by : x / by;
  }
}

}  // namespace

float causal_grad_dot_neon(const float* g, const float* w, int64_t valid) {
  // The first 8 products rounded on their own; past `valid` they are 0 * 0.
  float32x4_t lo = vmulq_f32(load_below_neon(g, 0, valid), load_below_neon(w, 0, valid));
  float32x4_t hi = vmulq_f32(load_below_neon(g, 4, valid), load_below_neon(w, 4, valid));
  int64_t j = 8;
  for (; j + 8 <= valid; j += 8) {
    lo = vfmaq_f32(lo, vld1q_f32(g + j), vld1q_f32(w + j));
    hi = vfmaq_f32(hi, vld1q_f32(g + j + 4), vld1q_f32(w + j + 4));
  }
  if (j < valid) {  // the last, partial 8: every lane takes its product, 0 * 0 past `valid`
    lo = vfmaq_f32(lo, load_below_neon(g, j, valid), load_below_neon(w, j, valid));
    hi = vfmaq_f32(hi, load_below_neon(g, j + 4, valid), load_below_neon(w, j + 4, valid));
  }
  float lanes[8];
  vst1q_f32(lanes, lo);
  vst1q_f32(lanes + 4, hi);
  return fold_sum_neon(lanes);
}

void causal_grad_scale_neon(const float* g, const float* w, float sum, float divisor, float* out, int64_t valid) {
  // A power-of-two divisor by multiplying with its reciprocal, the same floats (as x86's).
  int scale_exp = 0;
  if (division_is_scaling(divisor, scale_exp)) grad_scale<true>(g, w, sum, divisor, out, valid);
  else grad_scale<false>(g, w, sum, divisor, out, valid);
}

}  // namespace attn::kernels::detail

#else

#include <cstdlib>

namespace attn::kernels::detail {
// Not built for this instruction set (x86 or the page): never selected at run time.
float causal_grad_dot_neon(const float*, const float*, int64_t) { std::abort(); }
void causal_grad_scale_neon(const float*, const float*, float, float, float*, int64_t) { std::abort(); }
}  // namespace attn::kernels::detail

#endif
