#include "modules/gqa.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "ops/ops.h"

namespace attn {

GroupedQueryAttention::GroupedQueryAttention(TorchGenerator& gen, int64_t d_in, int64_t d_out_,
                                             int64_t num_heads_, int64_t num_kv_groups_, bool qkv_bias)
    : d_out(d_out_), num_heads(num_heads_), head_dim(d_out_ / num_heads_),
      num_kv_groups(num_kv_groups_), group_size(num_heads_ / num_kv_groups_),
      W_key(gen, d_in, num_kv_groups_ * head_dim, qkv_bias),
      W_value(gen, d_in, num_kv_groups_ * head_dim, qkv_bias),
      W_query(gen, d_in, d_out_, qkv_bias), out_proj(gen, d_out_, d_out_, false) {
  if (d_out_ % num_heads_ != 0) throw std::invalid_argument("d_out must be divisible by num_heads");
  if (num_heads_ % num_kv_groups_ != 0)
    throw std::invalid_argument("num_heads must be divisible by num_kv_groups");
}

GroupedQueryAttention::Trace GroupedQueryAttention::forward_traced(const Tensor& x) const {
  Trace t;
  const int64_t b = x.size(0), num_tokens = x.size(1);
  // Projections, then split into heads (queries) and groups (keys, values), heads first:
  // (b, T, H * head_dim) -> (b, H, T, head_dim); (b, T, G * head_dim) -> (b, G, T, head_dim)
  t.queries = transpose(view(W_query(x), {b, num_tokens, num_heads, head_dim}), 1, 2);
  t.keys_new = transpose(view(W_key(x), {b, num_tokens, num_kv_groups, head_dim}), 1, 2);
  t.values_new = transpose(view(W_value(x), {b, num_tokens, num_kv_groups, head_dim}), 1, 2);
  // Each group repeated for its group_size heads in a row: [K1, K2] -> [K1, K1, K2, K2]
  t.keys = repeat_interleave(t.keys_new, group_size, 1);
  t.values = repeat_interleave(t.values_new, group_size, 1);
  // repeat_interleave made keys contiguous, so keys.transpose(2, 3) reaches the matrix
  // product as a transposed view for every batch size (unlike the chapter's module).
  const Tensor scores = matmul_transposed(t.queries, t.keys);  // (b, H, T, T)
  // mask = q_positions.unsqueeze(-1) < k_positions.unsqueeze(0): the future, as triu(1)
  t.attn_scores = masked_fill(scores, triu_ones(num_tokens, 1), -std::numeric_limits<float>::infinity());
  t.attn_weights = softmax_lastdim(div_scalar(t.attn_scores, std::sqrt(static_cast<double>(head_dim))));
  // (b, H, T, head_dim) -> (b, T, H, head_dim) -> (b, T, d_out), then out_proj (no bias)
  const Tensor context = transpose(matmul(t.attn_weights, t.values), 1, 2);
  t.context_vec = out_proj(view(context, {b, num_tokens, d_out}));
  return t;
}

}  // namespace attn
