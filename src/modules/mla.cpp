#include "modules/mla.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "ops/ops.h"

namespace attn {

MultiHeadLatentAttention::MultiHeadLatentAttention(TorchGenerator& gen, int64_t d_in, int64_t d_out_,
                                                   int64_t num_heads_, bool qkv_bias, int64_t latent_dim_)
    : d_out(d_out_), num_heads(num_heads_), head_dim(d_out_ / num_heads_), latent_dim(latent_dim_),
      W_query(gen, d_in, d_out_, qkv_bias),      // per-head queries
      W_DKV(gen, d_in, latent_dim_, qkv_bias),   // down to the latent c_kv
      W_UK(gen, latent_dim_, d_out_, qkv_bias),  // latent -> per-head keys
      W_UV(gen, latent_dim_, d_out_, qkv_bias),  // latent -> per-head values
      out_proj(gen, d_out_, d_out_, true) {
  if (d_out_ % num_heads_ != 0) throw std::invalid_argument("d_out must be divisible by num_heads");
}

MultiHeadLatentAttention::Trace MultiHeadLatentAttention::forward_traced(const Tensor& x, Tensor* cache) const {
  Trace t;
  const int64_t b = x.size(0), num_tokens = x.size(1);
  t.queries_all = W_query(x);  // (b, T, d_out)
  t.latent = W_DKV(x);         // (b, T, latent_dim)
  // With a cache the keys and values come from every latent row so far.
  const int64_t start = cache && cache->numel() ? cache->size(1) : 0;
  if (cache) *cache = start ? cat({*cache, t.latent}, 1) : t.latent;
  const Tensor& latent_total = cache ? *cache : t.latent;
  t.keys_all = W_UK(latent_total);  // (b, T_k, d_out)
  t.values_all = W_UV(latent_total);
  // _reshape_to_heads: (b, T, d_out) -> (b, H, T, head_dim), made contiguous
  auto heads = [&](const Tensor& p) { return transpose(view(p, {b, p.size(1), num_heads, head_dim}), 1, 2); };
  const Tensor queries = heads(t.queries_all), keys = heads(t.keys_all), values = heads(t.values_all);
  // torch.matmul(queries, keys.transpose(-2, -1)): keys are contiguous, so the transpose stays
  // a view even when matmul folds the batch and heads together.
  t.attn_scores = matmul_transposed(queries, keys);
  // mask_bool = q_positions[:, None] < k_positions[None, :], queries at start, start + 1, ...
  const int64_t T_k = keys.size(2);
  Tensor mask = Tensor::zeros({num_tokens, T_k});
  for (int64_t i = 0; i < num_tokens; ++i)
    for (int64_t j = 0; j < T_k; ++j) mask.data[i * T_k + j] = start + i < j ? 1.0f : 0.0f;
  masked_fill_(t.attn_scores, mask, -std::numeric_limits<float>::infinity());
  t.attn_weights = softmax_lastdim(div_scalar(t.attn_scores, std::sqrt(static_cast<double>(head_dim))));
  const Tensor context = transpose(matmul(t.attn_weights, values), 1, 2);  // (b, T, H, head_dim)
  t.context_vec = out_proj(view(context, {b, num_tokens, d_out}));
  return t;
}

}  // namespace attn
