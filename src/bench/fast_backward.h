// MultiHeadAttention's backward after a PreparedMultiHeadAttention forward, for
// `attn-walk bench --backward`: the gradients of mha_backward_reference(), bit for bit,
// without the (B, H, T, T) tensors: the attention's part is kernels::causal_attention_backward
// (the weights recomputed block by block), the Linears' parts OpenBLAS's blocked products
// through kernels::sgemm, read straight from the forward's kept buffers.
#pragma once

#include "bench/fast_forward.h"
#include "bench/mha_backward.h"

namespace attn {

// Where one backward's time went, in milliseconds of the wall clock, part by part in the order
// it runs them (attn-walk bench --backward reports the median of each).
struct BackwardParts {
  double out_proj = 0.0;   // out_proj's weight and bias gradients, and context's: grad_y @ W
  double attention = 0.0;  // the heads (kernels::causal_attention_backward)
  double weights = 0.0;    // the three projections' weight gradients, grad.T @ x
  double inputs = 0.0;     // x's gradient: the three grad @ W, added as autograd adds them
};

// The module's weights packed once for the products of its backward, x.grad = grad @ W (W as
// it is stored, where the forward packed W.T), as the forward is prepared once.
class PreparedMhaBackward {
 public:
  explicit PreparedMhaBackward(const MultiHeadAttention& mha);
  // The gradients for grad_y (B, T, d_out) after forward.forward(gen, x, y). Returns false,
  // computing nothing, where the fused backward does not reproduce autograd (the forward was
  // not fused, or kernels::causal_attention_backward declines); then use the reference.
  // The gradients' storage is reused when it has the right sizes.
  // With `parts`, each part's time too.
  bool backward(const PreparedMultiHeadAttention& forward, const Tensor& x, const Tensor& grad_y,
                MhaGradients& grads, BackwardParts* parts = nullptr);

 private:
  const MultiHeadAttention& mha_;
  kernels::PackedB query_, key_, value_, out_;  // W (d_out, d_in) as B of grad @ W
};

}  // namespace attn
