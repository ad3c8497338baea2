#include "modules/chapter.h"

#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <stdexcept>
#include <utility>

#include "kernels/attention.h"
#include "kernels/softmax.h"
#include "ops/ops.h"

namespace attn {

// ---- the chapter's choices, and its steps of attention ---------------------------------

bool Choices::chapter() const {
  return !query_key_swapped && !scores_transposed && divisor_size == Size::Dk && divisor_power == 0.5 &&
         divisor_factor == 1.0 && !scale_after_softmax &&
         !softmax_over_queries && triangle == Triangle::Future && masked_fill_kept &&
         fill == -std::numeric_limits<float>::infinity() && !mask_after_softmax && scores_kept_before_mask &&
         heads_by_transpose && context_transposed && merge_kept && out_proj_applied && cat_dim == -1;
}

Tensor attention_scores(const Tensor& queries, const Tensor& keys, const Choices& c) {
  return c.scores_transposed ? matmul_transposed(keys, queries) : matmul_transposed(queries, keys);
}

namespace {

// torch.tril(torch.ones(T, T), diagonal=-1): strictly below the diagonal.
Tensor strictly_lower(int64_t T) { return transpose2d(triu_ones(T, 1)); }

// softmax over dim=-2 of (..., T, T), in place of x.
Tensor softmax_over_queries(const Tensor& x) {
  return transpose(softmax_lastdim(transpose(x, -2, -1)), -2, -1);
}

}  // namespace

double divisor_of(const Tensor& keys, const Choices& c) {
  const int64_t d_k = keys.size(-1);
  const int64_t size = c.divisor_size == Choices::Size::Tokens ? keys.size(-2)
                       : c.divisor_size == Choices::Size::DOut && keys.dim() == 4 ? keys.size(1) * d_k
                                                                                  : d_k;
  if (c.divisor_power == 0.5 && c.divisor_factor == 1.0) return std::sqrt(static_cast<double>(size));
  return c.divisor_factor * std::pow(static_cast<double>(size), c.divisor_power);
}

Tensor scaled(const Tensor& attn_scores, const Tensor& keys, const Choices& c) {
  if (c.divisor_power == 0.0 && c.divisor_factor == 1.0) return attn_scores;  // not divided at all
  return div_scalar(attn_scores, divisor_of(keys, c));
}

Tensor attention_softmax(const Tensor& x, const Choices& c) {
  // A 1-D tensor has one dimension only: dim=-2 does not exist there.
  if (!c.softmax_over_queries || x.dim() < 2) return softmax_lastdim(x);
  return softmax_over_queries(x);
}

Tensor scaled_softmax(const Tensor& attn_scores, const Tensor& keys, const Choices& c) {
  if (c.scale_after_softmax) return scaled(attention_softmax(attn_scores, c), keys, c);
  return attention_softmax(scaled(attn_scores, keys, c), c);
}

Tensor kept_mask(int64_t T, const Choices& c) {
  switch (c.triangle) {
    case Choices::Triangle::Past: return triu_ones(T, 0);                 // torch.triu(ones)
    case Choices::Triangle::FutureAndDiagonal: return strictly_lower(T);  // tril(ones, diagonal=-1)
    default: return tril_ones(T);
  }
}

Tensor hidden_mask(int64_t T, const Choices& c) {
  switch (c.triangle) {
    case Choices::Triangle::Past: return strictly_lower(T);               // tril(ones, diagonal=-1)
    case Choices::Triangle::FutureAndDiagonal: return triu_ones(T, 0);    // triu(ones): diagonal too
    default: return triu_ones(T, 1);
  }
}

Tensor masked(const Tensor& attn_scores, const Tensor& mask, const Choices& c) {
  if (!c.masked_fill_kept || c.mask_after_softmax) return attn_scores;
  return masked_fill(attn_scores, mask, c.fill);
}

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

int64_t Linear::draws(int64_t in_features, int64_t out_features, bool bias) {
  return out_features * in_features + (bias ? out_features : 0);
}

// ---- nn.Dropout ------------------------------------------------------------------------

Tensor Dropout::operator()(TorchGenerator& gen, const Tensor& x) const {
  if (p == 0.0 || x.numel() == 0) return x;          // no draw at all
  if (p == 1.0) return mul_scalar(x, 0.0);            // all zeros, no draw
  const auto keep = dropout_keep_mask(gen, x.numel(), p, kernel);
  // noise = bernoulli(1 - p) / (1 - p), then input * noise: kept values are scaled
  // by 1/(1-p) so the expected value is unchanged.
  const float scale = scaled_by_p ? static_cast<float>(1.0 / p) : 1.0f / static_cast<float>(1.0 - p);
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
                                const Tracer& trace, CausalSoftmax softmax, const Choices& c) {
  const int64_t T = queries.size(-2);
  // queries @ keys.transpose(-2, -1): PyTorch multiplies by the transposed view, except
  // for 4-D heads with a batch of more than one, where matmul's reshape to 3-D copies it.
  const bool copied = keys.dim() == 4 && keys.size(0) > 1;
  const Tensor& left = c.scores_transposed ? keys : queries;   // queries @ keys.T
  const Tensor& right = c.scores_transposed ? queries : keys;
  // One (..., T, T) tensor, masked, scaled and softmaxed in place: these can be large.
  Tensor attn_weights = copied ? matmul(left, transpose(right, -2, -1))
                               : matmul_transposed(left, right);  // the scores, (..., T, T)
  // A reference kept before masked_fill_ sees the mask (the learner's mistake): shown after it.
  if (trace && c.scores_kept_before_mask) trace("attn_scores", attn_weights);
  const Tensor& hidden = c.triangle != Choices::Triangle::Future ? hidden_mask(T, c)
                         : T == mask.size(0)                     ? mask
                                                                 : triu_ones(T, 1);
  // Mask before the softmax: -inf becomes exactly 0 after exp.
  if (c.masked_fill_kept && !c.mask_after_softmax) masked_fill_(attn_weights, hidden, c.fill);
  if (trace && !c.scores_kept_before_mask) trace("attn_scores", attn_weights);
  if (trace) trace("attn_scores_masked", attn_weights);
  // Divide by sqrt(d_k) so the softmax does not saturate as d_k grows.
  const bool divide = c.divisor_power != 0.0 || c.divisor_factor != 1.0;
  if (divide && !c.scale_after_softmax) div_scalar_(attn_weights, divisor_of(keys, c));
  // As the first ch03.ipynb, --softmax-dim 1: over dim 1 of (b, T, T), the queries. In the
  // 2-D code dim 1 was the last; with the batch in front it is not. Each column sums to 1.
  if (softmax.dim == 1) {
    attn_weights = softmax_dim1(attn_weights, softmax.torch_threads);
  } else if (c.softmax_over_queries) {
    attn_weights = softmax_over_queries(attn_weights);
  } else if (T > 0) {
    kernels::softmax_rows(attn_weights.data.data(), attn_weights.numel() / T, T);  // in place
  }
  // A learner's mistakes after the softmax.
  if (divide && c.scale_after_softmax) div_scalar_(attn_weights, divisor_of(keys, c));
  if (c.masked_fill_kept && c.mask_after_softmax) masked_fill_(attn_weights, hidden, c.fill);
  return attn_weights;
}

// ---- SelfAttention_v1 / v2 ---------------------------------------------------------------

SelfAttention_v1::SelfAttention_v1(TorchGenerator& gen, int64_t d_in, int64_t d_out, InitKind init,
                                   Choices c)
    : W_query(init_parameter(gen, d_in, d_out, init)),
      W_key(init_parameter(gen, d_in, d_out, init)),
      W_value(init_parameter(gen, d_in, d_out, init)), choices(c) {}

Tensor SelfAttention_v1::forward(const Tensor& x) const {
  const Tensor keys = matmul(x, key_weights(W_query, W_key, choices));        // (T, d_out)
  const Tensor queries = matmul(x, query_weights(W_query, W_key, choices));   // (T, d_out)
  const Tensor values = matmul(x, W_value);    // (T, d_out)
  const Tensor attn_scores = attention_scores(queries, keys, choices);  // queries @ keys.T: (T, T)
  const Tensor attn_weights = scaled_softmax(attn_scores, keys, choices);
  return matmul(attn_weights, values);         // (T, d_out)
}

SelfAttention_v2::SelfAttention_v2(TorchGenerator& gen, int64_t d_in, int64_t d_out, bool qkv_bias,
                                   Choices c)
    : W_query(gen, d_in, d_out, qkv_bias), W_key(gen, d_in, d_out, qkv_bias),
      W_value(gen, d_in, d_out, qkv_bias), choices(c) {}

Tensor SelfAttention_v2::forward(const Tensor& x) const {
  const Tensor keys = key_weights(W_query, W_key, choices)(x);
  const Tensor queries = query_weights(W_query, W_key, choices)(x);
  const Tensor values = W_value(x);
  const Tensor attn_scores = attention_scores(queries, keys, choices);  // queries @ keys.T
  const Tensor attn_weights = scaled_softmax(attn_scores, keys, choices);
  return matmul(attn_weights, values);
}

// ---- CausalAttention ---------------------------------------------------------------------

CausalAttention::CausalAttention(TorchGenerator& gen, int64_t d_in, int64_t d_out,
                                 int64_t context_length, double p, bool qkv_bias,
                                 DropoutKernel kernel, CausalSoftmax softmax_, Choices c)
    : W_query(gen, d_in, d_out, qkv_bias), W_key(gen, d_in, d_out, qkv_bias),
      W_value(gen, d_in, d_out, qkv_bias), dropout{p, kernel},
      mask(triu_ones(context_length, 1)), softmax(softmax_), choices(c) {}

Tensor CausalAttention::forward(TorchGenerator& gen, const Tensor& x) const {
  const Tensor keys = key_weights(W_query, W_key, choices)(x);        // (B, T, d_out)
  const Tensor queries = query_weights(W_query, W_key, choices)(x);   // (B, T, d_out)
  const Tensor values = W_value(x);    // (B, T, d_out)
  const int64_t b = x.size(0), T = x.size(1), d_out = keys.size(-1);
  // The fused kernel normalises rows: the first ch03.ipynb's softmax over dim=1 takes the
  // general path, as does a learner's mistake.
  if (softmax.dim == -1 && dropout.p == 0.0 && T <= mask.size(0) && choices.chapter() &&
      kernels::causal_attention_fusable(b, T, d_out)) {
    // Only the output is wanted: the same numbers from the fused kernel, which computes
    // just the unmasked scores and never holds the (B, T, T) weights (kernels/attention.h).
    Tensor context_vecs = Tensor::zeros({b, T, d_out});
    kernels::causal_attention(queries.data.data(), keys.data.data(), values.data.data(),
                              context_vecs.data.data(), b, T, /*H=*/1, d_out);
    return context_vecs;  // (B, T, d_out)
  }
  Tensor attn_weights = causal_attention_weights(queries, keys, mask, nullptr, softmax, choices);  // (B, T, T)
  attn_weights = dropout(gen, attn_weights);
  return matmul(attn_weights, values);  // (B, T, d_out)
}

// ---- MultiHeadAttentionWrapper -----------------------------------------------------------

MultiHeadAttentionWrapper::MultiHeadAttentionWrapper(TorchGenerator& gen, int64_t d_in,
                                                     int64_t d_out, int64_t context_length,
                                                     double p, int64_t num_heads, bool qkv_bias,
                                                     DropoutKernel kernel, CausalSoftmax softmax,
                                                     Choices c)
    : d_in_(d_in), d_out_(d_out), context_length_(context_length), dropout_(p),
      qkv_bias_(qkv_bias), kernel_(kernel), softmax_(softmax), choices_(c) {
  // nn.ModuleList([...]) builds every head before any forward pass: each draws W_query,
  // W_key and W_value in turn. Remember where each head starts and skip its draws.
  for (int64_t h = 0; h < num_heads; ++h) {
    head_rng_.push_back(gen);
    gen.discard(static_cast<uint64_t>(3 * Linear::draws(d_in, d_out, qkv_bias)));
  }
}

CausalAttention MultiHeadAttentionWrapper::head(int64_t h) const {
  TorchGenerator gen = head_rng_.at(static_cast<size_t>(h));
  return CausalAttention(gen, d_in_, d_out_, context_length_, dropout_, qkv_bias_, kernel_, softmax_,
                         choices_);
}

Tensor MultiHeadAttentionWrapper::forward(TorchGenerator& gen, const Tensor& x) const {
  // torch.cat([head(x) for head in self.heads], dim=-1), each head's output copied into
  // its columns as soon as it is computed.
  Shape shape = x.shape;
  shape.back() = num_heads() * d_out_;
  Tensor out = Tensor::zeros(shape);  // (B, T, num_heads * d_out)
  if (choices_.cat_dim != -1) {  // a learner's torch.cat along another dimension
    std::vector<Tensor> outs;
    for (int64_t h = 0; h < num_heads(); ++h) outs.push_back(head(h).forward(gen, x));
    return cat(outs, choices_.cat_dim);
  }
  for (int64_t h = 0; h < num_heads(); ++h) copy_into_lastdim(out, head(h).forward(gen, x), h * d_out_);
  return out;
}

// ---- MultiHeadAttention ------------------------------------------------------------------

MultiHeadAttention::MultiHeadAttention(TorchGenerator& gen, int64_t d_in, int64_t d_out_,
                                       int64_t context_length, double p, int64_t num_heads_,
                                       bool qkv_bias, DropoutKernel kernel, Choices c)
    : d_out(d_out_), num_heads(num_heads_), head_dim(d_out_ / num_heads_),
      W_query(gen, d_in, d_out_, qkv_bias), W_key(gen, d_in, d_out_, qkv_bias),
      W_value(gen, d_in, d_out_, qkv_bias), out_proj(gen, d_out_, d_out_, true),
      dropout{p, kernel}, mask(triu_ones(context_length, 1)), choices(c) {
  if (d_out_ % num_heads_ != 0) throw std::invalid_argument("d_out must be divisible by num_heads");
}

Tensor MultiHeadAttention::forward(TorchGenerator& gen, const Tensor& x, const Tracer& trace) const {
  const Choices& c = choices;
  const int64_t b = x.size(0), num_tokens = x.size(1);
  // Each tensor below is moved on once shown, so only the latest form of keys, queries and
  // values is held.
  Tensor keys = key_weights(W_query, W_key, c)(x);        // (b, T, d_out)
  Tensor queries = query_weights(W_query, W_key, c)(x);
  Tensor values = W_value(x);
  trace("keys", keys);
  trace("queries", queries);
  trace("values", values);
  // Split the last dimension into heads: (b, T, d_out) -> (b, T, H, head_dim)
  // (a learner's keys.view(b, H, T, head_dim) reads the same memory in another order).
  const Shape heads_shape = c.heads_by_transpose ? Shape{b, num_tokens, num_heads, head_dim}
                                                 : Shape{b, num_heads, num_tokens, head_dim};
  Tensor keys_viewed = view(std::move(keys), heads_shape);
  Tensor queries_viewed = view(std::move(queries), heads_shape);
  Tensor values_viewed = view(std::move(values), heads_shape);
  trace("keys_viewed", keys_viewed);
  trace("queries_viewed", queries_viewed);
  trace("values_viewed", values_viewed);
  // Heads become a batch dimension: (b, H, T, head_dim)
  const auto heads_first = [&](Tensor viewed) {
    return c.heads_by_transpose ? transpose(viewed, 1, 2) : viewed;
  };
  const Tensor keys_t = heads_first(std::exchange(keys_viewed, {}));
  const Tensor queries_t = heads_first(std::exchange(queries_viewed, {}));
  const Tensor values_t = heads_first(std::exchange(values_viewed, {}));
  trace("keys_transposed", keys_t);
  trace("queries_transposed", queries_t);
  trace("values_transposed", values_t);
  // Scores for every head at once, masked, then the scaled softmax: (b, H, T, T)
  Tensor attn_weights = causal_attention_weights(queries_t, keys_t, mask, trace, {}, c);
  if (dropout.p != 0.0) attn_weights = dropout(gen, attn_weights);  // p = 0: unchanged, no draw
  trace("attn_weights", attn_weights);
  // (b, H, T, head_dim) -> (b, T, H, head_dim) -> (b, T, d_out)
  Tensor context_vec = matmul(attn_weights, values_t);
  if (c.context_transposed) context_vec = transpose(context_vec, 1, 2);
  attn_weights = Tensor();  // done with the largest tensor
  trace("context_vec", context_vec);
  // A view whose result is discarded leaves the four dimensions.
  const Tensor context_vec_merged =
      c.merge_kept ? view(std::move(context_vec), {b, num_tokens, d_out}) : std::move(context_vec);
  trace("context_vec_merged", context_vec_merged);
  if (!c.out_proj_applied) return context_vec_merged;
  // nn.Linear(d_out, d_out) takes the 4-D context_vec only when head_dim == d_out; PyTorch
  // would stop with an error otherwise: nothing to return.
  if (context_vec_merged.size(-1) != d_out) return Tensor();
  return out_proj(context_vec_merged);
}

MultiHeadAttention::Trace MultiHeadAttention::forward_traced(TorchGenerator& gen,
                                                             const Tensor& x) const {
  Trace t;
  const std::map<std::string, Tensor*> member = {
      {"keys", &t.keys},
      {"queries", &t.queries},
      {"values", &t.values},
      {"keys_viewed", &t.keys_viewed},
      {"queries_viewed", &t.queries_viewed},
      {"values_viewed", &t.values_viewed},
      {"keys_transposed", &t.keys_t},
      {"queries_transposed", &t.queries_t},
      {"values_transposed", &t.values_t},
      {"attn_scores", &t.attn_scores},
      {"attn_scores_masked", &t.attn_scores_masked},
      {"attn_weights", &t.attn_weights},
      {"context_vec", &t.context_vec},
      {"context_vec_merged", &t.context_vec_merged}};
  t.context_vecs = forward(gen, x, [&](const char* name, const Tensor& value) { *member.at(name) = value; });
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

std::vector<NamedShape> named_parameter_shapes(int64_t d_in, int64_t d_out, bool qkv_bias) {
  std::vector<NamedShape> out;
  for (const char* name : {"W_query", "W_key", "W_value"}) {
    out.push_back({std::string(name) + ".weight", {d_out, d_in}});  // nn.Linear(d_in, d_out)
    if (qkv_bias) out.push_back({std::string(name) + ".bias", {d_out}});
  }
  out.push_back({"out_proj.weight", {d_out, d_out}});  // nn.Linear(d_out, d_out), with a bias
  out.push_back({"out_proj.bias", {d_out}});
  return out;
}

}  // namespace attn
