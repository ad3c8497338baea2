#include "modules/chapter.h"

#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <stdexcept>
#include <utility>

#include "kernels/attention.h"
#include "ops/ops.h"

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

int64_t Linear::draws(int64_t in_features, int64_t out_features, bool bias) {
  return out_features * in_features + (bias ? out_features : 0);
}

// ---- nn.Dropout ------------------------------------------------------------------------

Tensor Dropout::operator()(TorchGenerator& gen, const Tensor& x) const {
  if (p == 0.0 || x.numel() == 0) return x;  // no draw at all
  if (p == 1.0) return mul_scalar(x, 0.0);   // all zeros, no draw
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

// ---- SelfAttention_v1 / v2 ---------------------------------------------------------------

SelfAttention_v1::SelfAttention_v1(TorchGenerator& gen, int64_t d_in, int64_t d_out, InitKind init,
                                   const Cells& c)
    : cells(c) {
  // Drawn in the order they are declared: W_query, W_key, W_value.
  auto drawn = declared_in_order<Tensor>(c, [&] { return init_parameter(gen, d_in, d_out, init); });
  W_query = std::move(drawn[0]);
  W_key = std::move(drawn[1]);
  W_value = std::move(drawn[2]);
}

Tensor SelfAttention_v1::forward(const Tensor& x) const {
  const Tensor keys = cells.keys(x, times(W_query), times(W_key));        // x @ self.W_key: (T, d_out)
  const Tensor queries = cells.queries(x, times(W_query), times(W_key));  // x @ self.W_query
  const Tensor values = matmul(x, W_value);                               // x @ self.W_value
  const Tensor attn_scores = cells.score(queries, keys);                  // queries @ keys.T: (T, T)
  const Tensor attn_weights = cells.softmax(attn_scores, notebook_self(keys));
  return cells.context(attn_weights, values);  // attn_weights @ values: (T, d_out)
}

SelfAttention_v2::SelfAttention_v2(TorchGenerator& gen, int64_t d_in, int64_t d_out, bool qkv_bias,
                                   const Cells& c)
    : SelfAttention_v2(declared_in_order<Linear>(c, [&] { return Linear(gen, d_in, d_out, c.bias(qkv_bias)); }), c) {}

SelfAttention_v2::SelfAttention_v2(std::array<Linear, 3> qkv, const Cells& c)
    : W_query(std::move(qkv[0])), W_key(std::move(qkv[1])), W_value(std::move(qkv[2])), cells(c) {}

Tensor SelfAttention_v2::forward(const Tensor& x) const {
  const Tensor keys = cells.keys(x, layer(W_query), layer(W_key));        // self.W_key(x)
  const Tensor queries = cells.queries(x, layer(W_query), layer(W_key));  // self.W_query(x)
  const Tensor values = W_value(x);
  const Tensor attn_scores = cells.score(queries, keys);  // queries @ keys.T
  const Tensor attn_weights = cells.softmax(attn_scores, notebook_self(keys));
  return cells.context(attn_weights, values);
}

// ---- CausalAttention ---------------------------------------------------------------------

CausalAttention::CausalAttention(TorchGenerator& gen, int64_t d_in, int64_t d_out,
                                 int64_t context_length, double p, bool qkv_bias,
                                 DropoutKernel kernel, CausalSoftmax softmax_, const Cells& c)
    : CausalAttention(declared_in_order<Linear>(c, [&] { return Linear(gen, d_in, d_out, c.bias(qkv_bias)); }),
                      context_length, p, kernel, softmax_, c) {}

CausalAttention::CausalAttention(std::array<Linear, 3> qkv, int64_t context_length, double p,
                                 DropoutKernel kernel, CausalSoftmax softmax_, const Cells& c)
    : W_query(std::move(qkv[0])), W_key(std::move(qkv[1])), W_value(std::move(qkv[2])), dropout{p, kernel},
      mask(c.mask(context_length)), softmax(softmax_), cells(c) {}

Tensor CausalAttention::forward(TorchGenerator& gen, const Tensor& x) const {
  const Tensor keys = cells.keys(x, layer(W_query), layer(W_key));        // (B, T, d_out)
  const Tensor queries = cells.queries(x, layer(W_query), layer(W_key));  // (B, T, d_out)
  const Tensor values = W_value(x);                                       // (B, T, d_out)
  const int64_t b = x.size(0), T = x.size(1), d_out = keys.size(-1);
  // The fused kernel normalises rows: the first ch03.ipynb's softmax over dim=1 takes the
  // general path, as does a learner's line (any cell not the book's).
  if (softmax.dim == -1 && dropout.p == 0.0 && T <= mask.size(0) && cells.book() &&
      kernels::causal_attention_fusable(b, T, d_out)) {
    // Only the output is wanted: the same numbers from the fused kernel, which computes
    // just the unmasked scores and never holds the (B, T, T) weights (kernels/attention.h).
    Tensor context_vecs = Tensor::zeros({b, T, d_out});
    kernels::causal_attention(queries.data.data(), keys.data.data(), values.data.data(),
                              context_vecs.data.data(), b, T, /*H=*/1, d_out);
    return context_vecs;  // (B, T, d_out)
  }
  // Masked, scaled, softmaxed and dropped: (B, T, T).
  const DropoutFn drop = [&](const Tensor& t) { return dropout(gen, t); };
  const Tensor attn_weights = causal_attention_weights(queries, keys, mask, nullptr, softmax, cells, drop);
  return cells.context(attn_weights, values);  // attn_weights @ values: (B, T, d_out)
}

// ---- MultiHeadAttentionWrapper -----------------------------------------------------------

MultiHeadAttentionWrapper::MultiHeadAttentionWrapper(TorchGenerator& gen, int64_t d_in,
                                                     int64_t d_out, int64_t context_length,
                                                     double p, int64_t num_heads, bool qkv_bias,
                                                     DropoutKernel kernel, CausalSoftmax softmax,
                                                     const Cells& c)
    : d_in_(d_in), d_out_(d_out), context_length_(context_length), dropout_(p),
      qkv_bias_(qkv_bias), kernel_(kernel), softmax_(softmax), cells_(c) {
  // nn.ModuleList([...]) builds every head before any forward pass: each draws W_query,
  // W_key and W_value in turn. Remember where each head starts and skip its draws.
  for (int64_t h = 0; h < num_heads; ++h) {
    head_rng_.push_back(gen);
    gen.discard(static_cast<uint64_t>(3 * Linear::draws(d_in, d_out, c.bias(qkv_bias))));
  }
}

CausalAttention MultiHeadAttentionWrapper::head(int64_t h) const {
  TorchGenerator gen = head_rng_.at(static_cast<size_t>(h));
  return CausalAttention(gen, d_in_, d_out_, context_length_, dropout_, qkv_bias_, kernel_, softmax_,
                         cells_);
}

Tensor MultiHeadAttentionWrapper::forward(TorchGenerator& gen, const Tensor& x,
                                          const std::function<void(int64_t h)>& head_done) const {
  // torch.cat([head(x) for head in self.heads], dim=-1). The book's: each head's output is
  // copied into its columns as soon as it is computed, one head's output alive at a time.
  if (cells_.concat.is_book()) {
    Shape shape = x.shape;
    shape.back() = num_heads() * d_out_;
    Tensor out = Tensor::zeros(shape);  // (B, T, num_heads * d_out)
    for (int64_t h = 0; h < num_heads(); ++h) {
      copy_into_lastdim(out, head(h).forward(gen, x), h * d_out_);
      if (head_done) head_done(h);
    }
    return out;
  }
  std::vector<Tensor> outs;
  for (int64_t h = 0; h < num_heads(); ++h) {
    outs.push_back(head(h).forward(gen, x));
    if (head_done) head_done(h);
  }
  return cells_.concat(std::move(outs));
}

// ---- MultiHeadAttention ------------------------------------------------------------------

MultiHeadAttention::MultiHeadAttention(TorchGenerator& gen, int64_t d_in, int64_t d_out_,
                                       int64_t context_length, double p, int64_t num_heads_,
                                       bool qkv_bias, DropoutKernel kernel, const Cells& c)
    : MultiHeadAttention(declared_in_order<Linear>(c, [&] { return Linear(gen, d_in, d_out_, c.bias(qkv_bias)); }), gen,
                         d_out_, context_length, p, num_heads_, kernel, c) {}

MultiHeadAttention::MultiHeadAttention(std::array<Linear, 3> qkv, TorchGenerator& gen, int64_t d_out_,
                                       int64_t context_length, double p, int64_t num_heads_, DropoutKernel kernel,
                                       const Cells& c)
    : d_out(d_out_), num_heads(num_heads_), head_dim(d_out_ / num_heads_), W_query(std::move(qkv[0])),
      W_key(std::move(qkv[1])), W_value(std::move(qkv[2])), out_proj(gen, d_out_, d_out_, true),
      dropout{p, kernel}, mask(c.mask(context_length)), cells(c) {
  if (d_out_ % num_heads_ != 0) throw std::invalid_argument("d_out must be divisible by num_heads");
}

Tensor MultiHeadAttention::forward(TorchGenerator& gen, const Tensor& x, const Tracer& trace) const {
  const int64_t b = x.size(0), num_tokens = x.size(1);
  // Each tensor below is moved on once shown, so only the latest form of keys, queries and
  // values is held.
  Tensor keys = cells.keys(x, layer(W_query), layer(W_key));  // (b, T, d_out)
  Tensor queries = cells.queries(x, layer(W_query), layer(W_key));
  Tensor values = W_value(x);
  trace("keys", keys);
  trace("queries", queries);
  trace("values", values);
  // Split the last dimension into heads: (b, T, d_out) -> (b, T, H, head_dim)
  Tensor keys_viewed = cells.view_heads(std::move(keys), b, num_tokens, num_heads, head_dim);
  Tensor queries_viewed = cells.view_heads(std::move(queries), b, num_tokens, num_heads, head_dim);
  Tensor values_viewed = cells.view_heads(std::move(values), b, num_tokens, num_heads, head_dim);
  trace("keys_viewed", keys_viewed);
  trace("queries_viewed", queries_viewed);
  trace("values_viewed", values_viewed);
  // Heads become a batch dimension: .transpose(1, 2) -> (b, H, T, head_dim)
  const Tensor keys_t = cells.heads_first(std::exchange(keys_viewed, {}));
  const Tensor queries_t = cells.heads_first(std::exchange(queries_viewed, {}));
  const Tensor values_t = cells.heads_first(std::exchange(values_viewed, {}));
  trace("keys_transposed", keys_t);
  trace("queries_transposed", queries_t);
  trace("values_transposed", values_t);
  // Scores for every head at once, masked, scaled, softmaxed and dropped: (b, H, T, T)
  const DropoutFn drop = [&](const Tensor& t) { return dropout.p != 0.0 ? dropout(gen, t) : t; };
  Tensor attn_weights = causal_attention_weights(queries_t, keys_t, mask, trace, {}, cells, drop);
  trace("attn_weights", attn_weights);
  // (attn_weights @ values).transpose(1, 2): (b, H, T, head_dim) -> (b, T, H, head_dim)
  Tensor context_vec = cells.tokens_first(cells.context(attn_weights, values_t));
  attn_weights = Tensor();  // done with the largest tensor
  trace("context_vec", context_vec);
  // Merge the heads: (b, T, d_out)
  const Tensor context_vec_merged = cells.merge(std::move(context_vec), b, num_tokens, d_out);
  trace("context_vec_merged", context_vec_merged);
  return cells.project_out(out_proj, context_vec_merged);  // self.out_proj(context_vec)
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
