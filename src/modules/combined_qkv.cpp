#include "modules/combined_qkv.h"

#include <stdexcept>
#include <string>

#include "ops/ops.h"

namespace attn {

MultiHeadAttentionCombinedQKV::MultiHeadAttentionCombinedQKV(TorchGenerator& gen, int64_t d_in,
                                                             int64_t d_out_, int64_t num_heads_,
                                                             bool qkv_bias)
    : d_out(d_out_), num_heads(num_heads_), head_dim(d_out_ / num_heads_),
      qkv(gen, d_in, 3 * d_out_, qkv_bias), proj(gen, d_out_, d_out_, true) {
  if (d_out_ % num_heads_ != 0) throw std::invalid_argument("d_out is indivisible by num_heads");
}

void MultiHeadAttentionCombinedQKV::copy_from(const MultiHeadAttention& m) {
  qkv.weight = cat({m.W_query.weight, m.W_key.weight, m.W_value.weight}, 0);  // (3 * d_out, d_in)
  if (qkv.bias) qkv.bias = cat({*m.W_query.bias, *m.W_key.bias, *m.W_value.bias}, 0);
  proj = m.out_proj;
}

MultiHeadAttentionCombinedQKV::Trace MultiHeadAttentionCombinedQKV::forward_traced(const Tensor& x) const {
  Trace t;
  const int64_t b = x.size(0), num_tokens = x.size(1);
  t.qkv = qkv(x);  // (b, T, 3 * d_out): queries, keys and values side by side
  t.qkv_viewed = view(t.qkv, {b, num_tokens, 3, num_heads, head_dim});
  // (b, T, 3, H, head_dim) -> (3, b, H, T, head_dim): the kind first, then heads as a batch
  t.qkv_permuted = permute(t.qkv_viewed, {2, 0, 3, 1, 4});
  t.queries = t.qkv_permuted[0];  // unbind(0)
  t.keys = t.qkv_permuted[1];
  t.values = t.qkv_permuted[2];
  // The chapter's scaled, masked softmax; its matrix-product rule holds here too (keys are a
  // permuted view that folds into one batch only when b == 1).
  t.attn_weights = causal_attention_weights(t.queries, t.keys, triu_ones(num_tokens, 1),
                                            [&t](const char* name, const Tensor& v) {
                                              if (std::string(name) == "attn_scores_masked") t.attn_scores = v;
                                            });
  // (b, H, T, head_dim) -> (b, T, H, head_dim) -> (b, T, d_out), then proj
  const Tensor context = transpose(matmul(t.attn_weights, t.values), 1, 2);
  t.context_vec = proj(view(context, {b, num_tokens, d_out}));
  return t;
}

}  // namespace attn
