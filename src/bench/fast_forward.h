// MultiHeadAttention's forward pass when only its output is wanted: the numbers of
// MultiHeadAttention::forward_traced(gen, x).context_vecs, bit for bit, without
// materialising the (b, H, T, T) scores and weights (kernels/attention.h).
#pragma once

#include "modules.h"

namespace attn {

// Falls back to the step-by-step forward where the fused pass does not apply
// (attention dropout, or sizes small enough for OpenBLAS's small-matrix kernels).
Tensor multi_head_attention_output(const MultiHeadAttention& mha, TorchGenerator& gen, const Tensor& x);

}  // namespace attn
