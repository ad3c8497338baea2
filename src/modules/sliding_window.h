// Sliding-window attention (ch04/06_swa/gpt_with_kv_swa.py, MultiHeadAttentionWithSWA):
// the chapter's MultiHeadAttention, same parameters drawn in the same order, whose causal
// mask also hides every key W or more tokens back.
#pragma once

#include <cstdint>

#include "modules/chapter.h"
#include "core/tensor.h"

namespace attn {

// mask_bool = (diff < 0) | (diff >= W) with diff = q_position - k_position, as 0/1 floats:
// (T, T), 1 where query i may not see key j (j > i, or i - j >= W). W >= T gives the
// chapter's causal mask.
Tensor sliding_window_mask(int64_t T, int64_t W);

// MultiHeadAttentionWithSWA(d_in, d_out, dropout=0.0, num_heads, qkv_bias,
// sliding_window_size=W) on sequences of T tokens, without the KV cache: the chapter's
// module (its forward computes the same products) with the banded mask.
MultiHeadAttention sliding_window_attention(TorchGenerator& gen, int64_t d_in, int64_t d_out,
                                            int64_t T, int64_t num_heads, bool qkv_bias,
                                            int64_t W);

}  // namespace attn
