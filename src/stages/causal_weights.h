// The causal attention weights of section 3.5.1, which section 3.5.2 reuses.
#pragma once

#include "core/config.h"
#include "core/tensor.h"
#include "modules/chapter.h"
#include "torch/torch_random.h"

namespace attn {

// Section 3.5.1's tensors with SelfAttention_v2's weights (seed2), computed with `cells`:
// its queries, keys, scores, unmasked weights, and softmax(masked attn_scores / sqrt(d_k)).
CausalWeights causal_weights(const Config& cfg, const Cells& cells = book_cells());

// Section 3.4.2's sa_v2, whose W_query and W_key section 3.5.1 uses: built right after
// torch.manual_seed(seed2), or, in a notebook with no seed there (cells.seed), on the stream as
// section 3.4's cells before it leave it.
SelfAttention_v2 notebook_sa_v2(const Config& cfg, const Cells& cells);

// The generator as section 3.5.3 leaves it: torch.manual_seed(seed1), then CausalAttention
// built and run on the batch. A module built after it without a seed of its own draws on.
void continue_after_causal_attention(TorchGenerator& gen, const Config& cfg);

// "grad_fn=<...>" of what nn.Dropout(p) returns for an input that had `input_grad_fn`.
const char* dropout_grad_fn(double p, const char* input_grad_fn);

// A note for walks that draw dropout masks: which PyTorch kernel they reproduce. It is
// the key of its text in src/lang/ ("note.dropout_kernel.default" / ".mkl").
const char* dropout_kernel_note(DropoutKernel kernel);

}  // namespace attn
