#include "modules.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

#include "kernels/attention.h"
#include "kernels/softmax.h"
#include "ops.h"

namespace attn {

// ---- nn.Linear -------------------------------------------------------------------------

Linear::Linear(TorchGenerator& gen, int64_t in_features, int64_t out_features, bool has_bias) {
  // reset_parameters(): kaiming_uniform_(weight, a=sqrt(5)). Its bound is computed in
  // Python doubles exactly like this (gain = sqrt(2 / (1 + a^2)), std = gain/sqrt(fan_in),
  // bound = sqrt(3) * std), which is 1/sqrt(in) up to the last bit.
  const double a = std::sqrt(5.0);
  const double gain = std::sqrt(2.0 / (1.0 + a * a));
  const double w_bound = std::sqrt(3.0) * (gain / std::sqrt(static_cast<double>(in_features)));
  weight = uniform(gen, {out_features, in_features}, -w_bound, w_bound);
  if (has_bias) {
    const double b_bound = in_features > 0 ? 1.0 / std::sqrt(static_cast<double>(in_features)) : 0.0;
    bias = uniform(gen, {out_features}, -b_bound, b_bound);
  }
}

Tensor Linear::operator()(const Tensor& x) const {
  // x @ W.T (+ b): addmm with the transposed weight as a view, as F.linear does.
  return linear(x, weight, bias ? &*bias : nullptr);
}

int64_t Linear::parameter_count() const {
  return weight.numel() + (bias ? bias->numel() : 0);
}

// ---- nn.Dropout ------------------------------------------------------------------------

Tensor Dropout::operator()(TorchGenerator& gen, const Tensor& x) const {
  if (p == 0.0 || x.numel() == 0) return x;          // no draw at all
  if (p == 1.0) return mul_scalar(x, 0.0);            // all zeros, no draw
  const auto keep = dropout_keep_mask(gen, x.numel(), p, kernel);
  // noise = bernoulli(1 - p) / (1 - p), then input * noise: kept values are scaled
  // by 1/(1-p) so the expected value is unchanged.
  const float scale = 1.0f / static_cast<float>(1.0 - p);
  Tensor out = x;
  for (int64_t i = 0; i < x.numel(); ++i) out.data[i] *= keep[i] ? scale : 0.0f;
  return out;
}

// ---- initialisers ----------------------------------------------------------------------

Tensor init_parameter(TorchGenerator& gen, int64_t d_in, int64_t d_out, InitKind init) {
  return init == InitKind::Rand ? rand(gen, {d_in, d_out}) : randn(gen, {d_in, d_out});
}

Tensor xavier_uniform(TorchGenerator& gen, int64_t rows, int64_t cols) {
  // For a 2-D tensor fan_in = cols and fan_out = rows; gain 1.
  const double bound = std::sqrt(3.0) * std::sqrt(2.0 / static_cast<double>(rows + cols));
  return uniform(gen, {rows, cols}, -bound, bound);
}

// ---- shared attention core -------------------------------------------------------------

Tensor causal_attention_weights(const Tensor& queries, const Tensor& keys, const Tensor& mask,
                                Tensor* masked_scores_out, Tensor* scores_out) {
  const int64_t T = queries.size(-2);
  // queries @ keys.transpose(-2, -1): PyTorch multiplies by the transposed view, except
  // for 4-D heads with a batch of more than one, where matmul's reshape to 3-D copies it.
  const bool copied = keys.dim() == 4 && keys.size(0) > 1;
  Tensor attn_scores = copied ? matmul(queries, transpose(keys, -2, -1))
                              : matmul_transposed(queries, keys);  // (..., T, T)
  // Mask before the softmax: -inf becomes exactly 0 after exp.
  const Tensor mask_T = T == mask.size(0) ? mask : triu_ones(T, 1);
  Tensor masked = masked_fill(attn_scores, mask_T, -std::numeric_limits<float>::infinity());
  if (scores_out) *scores_out = std::move(attn_scores);  // (moved: these can be large)
  // Divide by sqrt(d_k) so the softmax does not saturate as d_k grows.
  const double d_k = static_cast<double>(keys.size(-1));
  Tensor attn_weights = div_scalar(masked, std::sqrt(d_k));
  if (masked_scores_out) *masked_scores_out = std::move(masked);
  if (T > 0) kernels::softmax_rows(attn_weights.data.data(), attn_weights.numel() / T, T);  // in place
  return attn_weights;
}

// ---- SelfAttention_v1 / v2 ---------------------------------------------------------------

SelfAttention_v1::SelfAttention_v1(TorchGenerator& gen, int64_t d_in, int64_t d_out, InitKind init)
    : W_query(init_parameter(gen, d_in, d_out, init)),
      W_key(init_parameter(gen, d_in, d_out, init)),
      W_value(init_parameter(gen, d_in, d_out, init)) {}

Tensor SelfAttention_v1::forward(const Tensor& x) const {
  const Tensor keys = matmul(x, W_key);        // (T, d_out)
  const Tensor queries = matmul(x, W_query);   // (T, d_out)
  const Tensor values = matmul(x, W_value);    // (T, d_out)
  const Tensor attn_scores = matmul_transposed(queries, keys);  // queries @ keys.T: (T, T)
  const Tensor attn_weights =
      softmax_lastdim(div_scalar(attn_scores, std::sqrt(static_cast<double>(keys.size(-1)))));
  return matmul(attn_weights, values);         // (T, d_out)
}

SelfAttention_v2::SelfAttention_v2(TorchGenerator& gen, int64_t d_in, int64_t d_out, bool qkv_bias)
    : W_query(gen, d_in, d_out, qkv_bias), W_key(gen, d_in, d_out, qkv_bias),
      W_value(gen, d_in, d_out, qkv_bias) {}

Tensor SelfAttention_v2::forward(const Tensor& x) const {
  const Tensor keys = W_key(x);
  const Tensor queries = W_query(x);
  const Tensor values = W_value(x);
  const Tensor attn_scores = matmul_transposed(queries, keys);  // queries @ keys.T
  const Tensor attn_weights =
      softmax_lastdim(div_scalar(attn_scores, std::sqrt(static_cast<double>(keys.size(-1)))));
  return matmul(attn_weights, values);
}

// ---- CausalAttention ---------------------------------------------------------------------

CausalAttention::CausalAttention(TorchGenerator& gen, int64_t d_in, int64_t d_out,
                                 int64_t context_length, double p, bool qkv_bias,
                                 DropoutKernel kernel)
    : W_query(gen, d_in, d_out, qkv_bias), W_key(gen, d_in, d_out, qkv_bias),
      W_value(gen, d_in, d_out, qkv_bias), dropout{p, kernel},
      mask(triu_ones(context_length, 1)) {}

Tensor CausalAttention::forward(TorchGenerator& gen, const Tensor& x) const {
  const Tensor keys = W_key(x);        // (B, T, d_out)
  const Tensor queries = W_query(x);   // (B, T, d_out)
  const Tensor values = W_value(x);    // (B, T, d_out)
  const int64_t b = x.size(0), T = x.size(1), d_out = keys.size(-1);
  if (dropout.p == 0.0 && T <= mask.size(0) && kernels::causal_attention_fusable(b, T, d_out)) {
    // Only the output is wanted: the same numbers from the fused kernel, which computes
    // just the unmasked scores and never holds the (B, T, T) weights (kernels/attention.h).
    Tensor context_vecs = Tensor::zeros({b, T, d_out});
    kernels::causal_attention(queries.data.data(), keys.data.data(), values.data.data(),
                              context_vecs.data.data(), b, T, /*H=*/1, d_out);
    return context_vecs;  // (B, T, d_out)
  }
  Tensor attn_weights = causal_attention_weights(queries, keys, mask);  // (B, T, T)
  attn_weights = dropout(gen, attn_weights);
  return matmul(attn_weights, values);  // (B, T, d_out)
}

// ---- MultiHeadAttentionWrapper -----------------------------------------------------------

MultiHeadAttentionWrapper::MultiHeadAttentionWrapper(TorchGenerator& gen, int64_t d_in,
                                                     int64_t d_out, int64_t context_length,
                                                     double p, int64_t num_heads, bool qkv_bias,
                                                     DropoutKernel kernel) {
  // nn.ModuleList([...]) builds every head before any forward pass.
  for (int64_t h = 0; h < num_heads; ++h)
    heads.emplace_back(gen, d_in, d_out, context_length, p, qkv_bias, kernel);
}

Tensor MultiHeadAttentionWrapper::forward(TorchGenerator& gen, const Tensor& x) const {
  std::vector<Tensor> outs;
  for (const auto& head : heads) outs.push_back(head.forward(gen, x));
  return cat_lastdim(outs);
}

// ---- MultiHeadAttention ------------------------------------------------------------------

MultiHeadAttention::MultiHeadAttention(TorchGenerator& gen, int64_t d_in, int64_t d_out_,
                                       int64_t context_length, double p, int64_t num_heads_,
                                       bool qkv_bias, DropoutKernel kernel)
    : d_out(d_out_), num_heads(num_heads_), head_dim(d_out_ / num_heads_),
      W_query(gen, d_in, d_out_, qkv_bias), W_key(gen, d_in, d_out_, qkv_bias),
      W_value(gen, d_in, d_out_, qkv_bias), out_proj(gen, d_out_, d_out_, true),
      dropout{p, kernel}, mask(triu_ones(context_length, 1)) {
  if (d_out_ % num_heads_ != 0) throw std::invalid_argument("d_out must be divisible by num_heads");
}

MultiHeadAttention::Trace MultiHeadAttention::forward_traced(TorchGenerator& gen,
                                                             const Tensor& x) const {
  Trace t;
  const int64_t b = x.size(0), num_tokens = x.size(1);
  t.keys = W_key(x);                   // (b, T, d_out)
  t.queries = W_query(x);
  t.values = W_value(x);
  // Split the last dimension into heads: (b, T, d_out) -> (b, T, H, head_dim)
  t.keys_viewed = view(t.keys, {b, num_tokens, num_heads, head_dim});
  t.queries_viewed = view(t.queries, {b, num_tokens, num_heads, head_dim});
  t.values_viewed = view(t.values, {b, num_tokens, num_heads, head_dim});
  // Heads become a batch dimension: (b, H, T, head_dim)
  t.keys_t = transpose(t.keys_viewed, 1, 2);
  t.queries_t = transpose(t.queries_viewed, 1, 2);
  t.values_t = transpose(t.values_viewed, 1, 2);
  // Scores for every head at once, masked, then the scaled softmax: (b, H, T, T)
  t.attn_weights = causal_attention_weights(t.queries_t, t.keys_t, mask, &t.attn_scores_masked,
                                            &t.attn_scores);
  if (dropout.p != 0.0) t.attn_weights = dropout(gen, t.attn_weights);  // p = 0: unchanged, no draw
  // (b, H, T, head_dim) -> (b, T, H, head_dim) -> (b, T, d_out)
  t.context_vec = transpose(matmul(t.attn_weights, t.values_t), 1, 2);
  t.context_vec_merged = view(t.context_vec, {b, num_tokens, d_out});
  t.context_vecs = out_proj(t.context_vec_merged);
  return t;
}

int64_t MultiHeadAttention::parameter_count() const {
  return W_query.parameter_count() + W_key.parameter_count() + W_value.parameter_count() +
         out_proj.parameter_count();
}

}  // namespace attn

namespace attn {

std::vector<NamedShape> named_parameter_shapes(const MultiHeadAttention& m) {
  std::vector<NamedShape> out;
  for (const auto& [name, layer] : {std::pair<const char*, const Linear*>{"W_query", &m.W_query},
                                    {"W_key", &m.W_key},
                                    {"W_value", &m.W_value},
                                    {"out_proj", &m.out_proj}}) {
    out.push_back({std::string(name) + ".weight", layer->weight.shape});
    if (layer->bias) out.push_back({std::string(name) + ".bias", layer->bias->shape});
  }
  return out;
}

}  // namespace attn
