// ch03/02_bonus_efficient-multihead-attention: MultiHeadAttentionCombinedQKV. One Linear
// `qkv` (d_in -> 3 * d_out) replaces W_query, W_key and W_value; its output is viewed as
// (b, T, 3, H, head_dim), permuted to (3, b, H, T, head_dim) and unbound into queries, keys
// and values. Parameters drawn in its order: qkv, then proj.
#pragma once

#include "modules/chapter.h"
#include "core/tensor.h"
#include "torch/torch_random.h"

namespace attn {

struct MultiHeadAttentionCombinedQKV {
  int64_t d_out, num_heads, head_dim;
  Linear qkv, proj;
  MultiHeadAttentionCombinedQKV(TorchGenerator& gen, int64_t d_in, int64_t d_out, int64_t num_heads,
                                bool qkv_bias);
  // The chapter module's weights copied in: qkv.weight = cat(W_query, W_key, W_value) (rows),
  // proj = out_proj. The same function, so the same outputs.
  void copy_from(const MultiHeadAttention& m);

  struct Trace {
    Tensor qkv;                    // (b, T, 3 * d_out)
    Tensor qkv_viewed;             // (b, T, 3, H, head_dim)
    Tensor qkv_permuted;           // (3, b, H, T, head_dim)
    Tensor queries, keys, values;  // (b, H, T, head_dim): qkv.unbind(0)
    Tensor attn_scores;            // (b, H, T, T), -inf above the diagonal
    Tensor attn_weights;           // (b, H, T, T)
    Tensor context_vec;            // (b, T, d_out), after proj
  };
  Trace forward_traced(const Tensor& x) const;
};

}  // namespace attn
