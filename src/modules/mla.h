// ch04/05_mla/gpt_with_kv_mla.py: MultiHeadLatentAttention (DeepSeek's multi-head latent
// attention). Keys and values are not projected from x directly: x is first compressed to a
// small latent c_kv = W_DKV(x) (latent_dim per token), and the keys and values of every head
// are up-projected from it (W_UK, W_UV). A cache then keeps only the latent. Parameters drawn
// as the reference declares them: W_query, W_DKV, W_UK, W_UV, then out_proj.
#pragma once

#include "modules/chapter.h"
#include "core/tensor.h"
#include "torch/torch_random.h"

namespace attn {

struct MultiHeadLatentAttention {
  int64_t d_out, num_heads, head_dim, latent_dim;
  Linear W_query, W_DKV, W_UK, W_UV, out_proj;
  MultiHeadLatentAttention(TorchGenerator& gen, int64_t d_in, int64_t d_out, int64_t num_heads, bool qkv_bias,
                           int64_t latent_dim);

  struct Trace {
    Tensor queries_all;   // (b, T, d_out)
    Tensor latent;        // (b, T, latent_dim): W_DKV(x), the new latent rows
    Tensor keys_all;      // (b, T_k, d_out): W_UK(latent_total)
    Tensor values_all;    // (b, T_k, d_out)
    Tensor attn_scores;   // (b, H, T, T_k), -inf where a key lies after the query
    Tensor attn_weights;  // (b, H, T, T_k)
    Tensor context_vec;   // (b, T, d_out), after out_proj
  };
  // forward(x, use_cache): with a cache, `cache` holds the latent rows seen so far (b, t, latent)
  // and grows by x's; the queries sit at positions t, t + 1, ... Without one (cache == nullptr),
  // positions start at 0.
  Trace forward_traced(const Tensor& x, Tensor* cache = nullptr) const;
};

}  // namespace attn
