// The causal attention weights of section 3.5.1, which section 3.5.2 reuses.
#pragma once

#include "core/config.h"
#include "core/tensor.h"
#include "modules/chapter.h"
#include "torch/torch_random.h"

namespace attn {

// softmax(masked attn_scores / sqrt(d_k)) with SelfAttention_v2's weights (seed2), as
// section 3.5.1 computes it with the choices `c`.
Tensor causal_attn_weights(const Config& cfg, const Choices& c = {});

// dropout(attn_weights) of section 3.5.2 where a learner placed it (Choices::dropout_at): on
// the scores before or after the mask, on the unmasked weights (then not masked, or masked
// with mask_simple and renormalised). `dropout` draws the mask, as the chapter's would.
Tensor causal_attn_weights_dropped(const Config& cfg, const Choices& c, const DropoutFn& dropout);

// The generator as section 3.5.3 leaves it: torch.manual_seed(seed1), then CausalAttention
// built and run on the batch. A module built after it without a seed of its own draws on.
void continue_after_causal_attention(TorchGenerator& gen, const Config& cfg);

// "grad_fn=<...>" of what nn.Dropout(p) returns for an input that had `input_grad_fn`.
const char* dropout_grad_fn(double p, const char* input_grad_fn);

// A note for walks that draw dropout masks: which PyTorch kernel they reproduce. It is
// the key of its text in src/lang/ ("note.dropout_kernel.default" / ".mkl").
const char* dropout_kernel_note(DropoutKernel kernel);

}  // namespace attn
