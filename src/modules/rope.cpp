#include "modules/rope.h"

#include <stdexcept>

#include "torch/torch_sleef.h"

namespace attn {

RopeParams compute_rope_params(int64_t head_dim, double theta_base, int64_t context_length) {
  if (head_dim % 2 != 0) throw std::invalid_argument("RoPE needs an even head_dim");
  const int64_t half = head_dim / 2;
  RopeParams p;
  // inv_freq = 1.0 / (theta_base ** (arange(0, head_dim, 2) / head_dim)): the exponents in
  // float, theta_base cast to float, then pow; 1.0 / t is t.reciprocal() * 1.0.
  p.inv_freq = Tensor::zeros({half});
  for (int64_t k = 0; k < half; ++k)
    p.inv_freq(k) = static_cast<float>(2 * k) / static_cast<float>(head_dim);
  kernels::torch_pow_scalar_base(static_cast<float>(theta_base), p.inv_freq.data.data(), half);
  for (float& v : p.inv_freq.data) v = 1.0f / v;

  p.positions = Tensor::zeros({context_length});
  for (int64_t t = 0; t < context_length; ++t) p.positions(t) = static_cast<float>(t);

  // Position t turns pair k by t * inv_freq[k]; cat([angles, angles]) repeats it, because
  // apply_rope pairs dimension k with dimension k + head_dim / 2.
  p.angles = Tensor::zeros({context_length, head_dim});
  p.cos = p.angles;
  p.sin = p.angles;
  for (int64_t t = 0; t < context_length; ++t)
    for (int64_t k = 0; k < head_dim; ++k) {
      const float angle = p.positions(t) * p.inv_freq(k % half);
      p.angles(t, k) = angle;
      p.cos(t, k) = kernels::sleef_cosf(angle);
      p.sin(t, k) = kernels::sleef_sinf(angle);
    }
  return p;
}

Tensor apply_rope(const Tensor& x, const RopeParams& p, int64_t first) {
  const int64_t T = x.size(-2), hd = x.size(-1), half = hd / 2;
  if (hd != p.cos.size(1) || first + T > p.cos.size(0))
    throw std::invalid_argument("apply_rope: x does not fit the RoPE tables");
  Tensor out = x;
  for (int64_t row = 0; row < x.numel() / hd; ++row) {
    const int64_t t = row % T;  // the token's position within the sequence
    const float* in = x.data.data() + row * hd;
    float* o = out.data.data() + row * hd;
    for (int64_t k = 0; k < hd; ++k) {
      // rotated = cat(-x2, x1): dimension k pairs with k + half (its partner, negated) or k - half
      const float rotated = k < half ? -in[k + half] : in[k - half];
      const float c = p.cos(first + t, k), s = p.sin(first + t, k);
      const float x_cos = in[k] * c, rotated_sin = rotated * s;
      o[k] = x_cos + rotated_sin;
    }
  }
  return out;
}

}  // namespace attn
