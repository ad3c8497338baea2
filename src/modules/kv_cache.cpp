#include "modules/kv_cache.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "ops/ops.h"

namespace attn {

CachedForward forward_with_cache(const MultiHeadAttention& m, KVCache& cache, const Tensor& x) {
  CachedForward f;
  const int64_t b = x.size(0), num_tokens = x.size(1), H = m.num_heads, hd = m.head_dim;
  if (num_tokens != 1) throw std::invalid_argument("forward_with_cache: one token at a time");
  f.keys_new = m.W_key(x);  // (b, 1, d_out)
  f.values_new = m.W_value(x);
  f.queries = m.W_query(x);
  // Unroll the last dimension into heads: (b, 1, d_out) -> (b, 1, H, head_dim)
  const Tensor keys_new = view(f.keys_new, {b, num_tokens, H, hd});
  const Tensor values_new = view(f.values_new, {b, num_tokens, H, hd});
  const Tensor queries = transpose(view(f.queries, {b, num_tokens, H, hd}), 1, 2);  // (b, H, 1, hd)
  // NEW: append to the cache along the token dimension: (b, t - 1, H, hd) -> (b, t, H, hd)
  if (cache.empty()) {
    cache.cache_k = keys_new;
    cache.cache_v = values_new;
  } else {
    cache.cache_k = cat({cache.cache_k, keys_new}, 1);
    cache.cache_v = cat({cache.cache_v, values_new}, 1);
  }
  const int64_t t = cache.cache_k.size(1);
  f.keys = transpose(cache.cache_k, 1, 2);  // (b, H, t, hd)
  f.values = transpose(cache.cache_v, 1, 2);
  // One query against every cached key: (b, H, 1, hd) @ (b, H, hd, t) -> (b, H, 1, t).
  // matmul copies the transposed cache when its batch dimensions cannot fold into one
  // (b > 1 and t > 1), else it multiplies by the transposed view.
  const bool copied = b > 1 && t > 1;
  f.attn_scores = copied ? matmul(queries, transpose(f.keys, -2, -1)) : matmul_transposed(queries, f.keys);
  // mask[:1, :1] is False: the newest token may see every cached one, so nothing is masked.
  f.attn_weights = softmax_lastdim(div_scalar(f.attn_scores, std::sqrt(static_cast<double>(hd))));
  // (b, H, 1, hd) -> (b, 1, H, hd) -> (b, 1, d_out), then the output projection
  const Tensor context = view(transpose(matmul(f.attn_weights, f.values), 1, 2), {b, num_tokens, m.d_out});
  f.context_vec = m.out_proj(context);
  return f;
}

}  // namespace attn
