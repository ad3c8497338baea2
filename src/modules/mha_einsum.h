// ch03/02_bonus_efficient-multihead-attention: MHAEinsum. Plain (d_out, d_in) parameters
// W_query, W_key, W_value drawn by torch.randn, then out_proj (nn.Linear), then
// reset_parameters() redraws the three with kaiming_uniform_(a=sqrt(5)) (and the biases
// uniform in ±1/sqrt(d_in)). Every product is a torch.einsum, which PyTorch 1.13 turns into
// one torch.bmm on permuted and reshaped operands.
#pragma once

#include <optional>
#include <string>

#include "modules/chapter.h"
#include "core/tensor.h"
#include "torch/torch_random.h"

namespace attn {

struct MHAEinsum {
  int64_t d_out, num_heads, head_dim;
  // The projection's equation. The notebook's "bnd,di->bni" contracts x's last dimension with
  // W's first (d_out), so it runs only with d_in == d_out and multiplies by W itself; otherwise
  // "bnd,id->bni", x @ W.T as nn.Linear does with the same (d_out, d_in) weight.
  std::string proj_eq;
  Tensor W_query, W_key, W_value;                // (d_out, d_in)
  std::optional<Tensor> bias_q, bias_k, bias_v;  // (d_out)
  Linear out_proj;
  MHAEinsum(TorchGenerator& gen, int64_t d_in, int64_t d_out, int64_t num_heads, bool qkv_bias);
  bool multiplies_by_w() const { return proj_eq == "bnd,di->bni"; }
  // The chapter module's weights copied in (transposed where the equation multiplies by W).
  void copy_from(const MultiHeadAttention& m);

  struct Trace {
    Tensor Q;             // (b, n, d_out): einsum(proj_eq, x, W_query) (+ bias_q)
    Tensor scores;        // (b, H, n, n): einsum("bhnd,bhmd->bhnm", Q, K), before the scaling
    Tensor attn_weights;  // (b, H, n, n)
    Tensor context_vec;   // (b, n, d_out), after out_proj
  };
  Trace forward_traced(const Tensor& x) const;
};

}  // namespace attn
