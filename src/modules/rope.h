// Rotary position embeddings as pkg/llms_from_scratch/llama3.py computes them
// (compute_rope_params without Llama 3's frequency scaling, and apply_rope), in float32 with
// PyTorch 1.13's kernels: pow, cos and sin through SLEEF (torch_sleef.h).
#pragma once

#include <cstdint>

#include "core/tensor.h"

namespace attn {

struct RopeParams {
  Tensor inv_freq;   // (head_dim / 2): 1 / theta_base^(2k / head_dim)
  Tensor positions;  // (context_length): 0, 1, 2, ...
  Tensor angles;     // (context_length, head_dim): positions[:, None] * inv_freq, twice
  Tensor cos, sin;   // (context_length, head_dim)
};

// compute_rope_params(head_dim, theta_base, context_length); head_dim must be even.
RopeParams compute_rope_params(int64_t head_dim, double theta_base, int64_t context_length);

// apply_rope(x, cos[first:], sin[first:]): x is (..., T, head_dim); token t is rotated by
// the angles of position first + t. x * cos + cat(-x2, x1) * sin, each product rounded.
Tensor apply_rope(const Tensor& x, const RopeParams& p, int64_t first = 0);

}  // namespace attn
