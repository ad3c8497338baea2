// ch04/03_kv-cache/gpt_with_kv_cache.py: the chapter's MultiHeadAttention with a key/value
// cache. Its parameters are the chapter module's (same draws: W_query, W_key, W_value,
// out_proj), so the module is MultiHeadAttention itself; the cache is what is new.
#pragma once

#include "modules/chapter.h"
#include "core/tensor.h"

namespace attn {

// register_buffer("cache_k"/"cache_v"): the keys and values of every token fed so far,
// (b, t, num_heads, head_dim) as the reference stores them (before the transpose).
struct KVCache {
  Tensor cache_k, cache_v;  // empty until the first token
  bool empty() const { return cache_k.data.empty(); }
};

// forward(x, use_cache=True) on new tokens x (b, n, d_in), n = 1 in generation: every
// intermediate, in the reference's order.
struct CachedForward {
  Tensor keys_new, values_new, queries;  // (b, n, d_out): the new rows
  Tensor keys, values;                   // (b, H, t, head_dim): the whole cache, transposed
  Tensor attn_scores;                    // (b, H, n, t)
  Tensor attn_weights;                   // (b, H, n, t)
  Tensor context_vec;                    // (b, n, d_out), after out_proj
};
CachedForward forward_with_cache(const MultiHeadAttention& m, KVCache& cache, const Tensor& x);

}  // namespace attn
