// The causal attention weights of section 3.5.1, which section 3.5.2 reuses.
#pragma once

#include "core/config.h"
#include "core/tensor.h"

namespace attn {

// softmax(masked attn_scores / sqrt(d_k)) with SelfAttention_v2's weights (seed2).
Tensor causal_attn_weights(const Config& cfg);

// "grad_fn=<...>" of what nn.Dropout(p) returns for an input that had `input_grad_fn`.
const char* dropout_grad_fn(double p, const char* input_grad_fn);

// A note for walks that draw dropout masks: which PyTorch kernel they reproduce. It is
// the key of its text in src/lang/ ("note.dropout_kernel.default" / ".mkl").
const char* dropout_kernel_note(DropoutKernel kernel);

}  // namespace attn
