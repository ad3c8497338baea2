// ch04/04_gqa/gpt_with_kv_gqa.py: GroupedQueryAttention. Queries keep num_heads heads; keys
// and values have only num_kv_groups, each shared by group_size = num_heads / num_kv_groups
// heads. Its parameters are drawn in the reference's order: W_key, W_value, W_query, then
// out_proj without a bias.
#pragma once

#include "modules/chapter.h"
#include "core/tensor.h"
#include "torch/torch_random.h"

namespace attn {

struct GroupedQueryAttention {
  int64_t d_out, num_heads, head_dim, num_kv_groups, group_size;
  Linear W_key, W_value, W_query, out_proj;  // declared in the order they are drawn
  GroupedQueryAttention(TorchGenerator& gen, int64_t d_in, int64_t d_out, int64_t num_heads,
                        int64_t num_kv_groups, bool qkv_bias);

  // Every intermediate of forward(x) without a cache, x (b, T, d_in).
  struct Trace {
    Tensor queries;               // (b, H, T, head_dim)
    Tensor keys_new, values_new;  // (b, G, T, head_dim)
    Tensor keys, values;          // (b, H, T, head_dim): repeat_interleave(group_size, dim=1)
    Tensor attn_scores;           // (b, H, T, T), -inf above the diagonal
    Tensor attn_weights;          // (b, H, T, T)
    Tensor context_vec;           // (b, T, d_out), after out_proj
  };
  Trace forward_traced(const Tensor& x) const;
};

}  // namespace attn
