// The backward pass of the chapter's MultiHeadAttention for `attn-walk bench --backward`:
//
//   y = mha(x)                      # x (B, T, d_in) requires grad; no dropout
//   y.backward(grad_y)              # grad_y = torch.randn_like(y), drawn after the forward
//
// giving the gradients of x, W_query, W_key, W_value and out_proj (weight and bias), equal bit
// for bit to PyTorch 1.13's autograd (docs/fidelity.md, "Backward" and "At GPT-2 size").
// mha_backward_reference() is the definition, step by step through ops/ops_backward.h with
// every (B, H, T, T) intermediate materialised; bench/fast_backward.h computes the same bits
// without them.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"
#include "modules/chapter.h"

namespace attn {

struct MhaGradients {
  Tensor x;                               // (B, T, d_in)
  Tensor W_query, W_key, W_value;         // (d_out, d_in)
  Tensor out_proj_weight, out_proj_bias;  // (d_out, d_out), (d_out)
  // (name as PyTorch calls the parameter or tensor, gradient), in a fixed order.
  std::vector<std::pair<std::string, const Tensor*>> named() const;
};

// The gradients from the forward's intermediates (mha.forward_traced(gen, x)), as autograd
// reaches them. For a module without attention dropout (the bench's); with qkv_bias the
// listed gradients are still autograd's, and the biases' own are not returned.
MhaGradients mha_backward_reference(const MultiHeadAttention& mha, const Tensor& x, const MultiHeadAttention::Trace& t,
                                    const Tensor& grad_y);

// Whether a projection's (B*T, d_out) gradient reaches its Linear's backward column-major:
// it leaves bmm as a contiguous block and goes back through the forward's transposes and
// reshapes as views where ATen can (a batch of one): the keys' (whose bmm operand was the
// transposed one), and with head_dim 1 the queries' and values' too.
bool projection_grad_column_major(int64_t B, int64_t T, int64_t d_out, int64_t head_dim, bool keys);

// 64-bit FNV-1a of the floats' bytes (little-endian), as 16 hex digits: the digest the
// goldens and bench_compare.py compare gradients by.
std::string fnv1a64(const float* data, size_t n);

}  // namespace attn
