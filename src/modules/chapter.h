// The chapter's modules, built the way PyTorch builds them so the random draws line up:
// every constructor takes the generator and draws its parameters in the chapter's order
// (W_query, W_key, W_value, then out_proj). Forward passes run in training mode.
#pragma once

#include <array>
#include <functional>
#include <limits>
#include <optional>
#include <vector>

#include "core/config.h"
#include "core/tensor.h"
#include "torch/torch_random.h"

namespace attn {

// The few choices the chapter's code makes that a learner's mistake changes: which weights
// make the queries, what the scores are divided by, which triangle is hidden, whether a
// result is kept, ... The defaults are the chapter's; `attn-walk check` (src/check/) flips
// one to recompute a learner's mistake with this very code. A module built with the
// defaults runs exactly as it would without them (the fast kernels included).
struct Choices {
  // The order W_query (0), W_key (1) and W_value (2) are declared in __init__, which is the
  // order they draw from the generator: {1, 0, 2} declares W_key first, so it gets the draws
  // the chapter's W_query gets.
  std::array<int, 3> declared = {0, 1, 2};
  bool query_key_swapped = false;  // queries = W_key(x) and keys = W_query(x)
  bool scores_transposed = false;  // attn_scores = keys @ queries.T, not queries @ keys.T
  // attn_scores = queries.T @ keys: (d_k, d_k), not (T, T). Section 3.5.1's cells only: the
  // mask cannot be applied to it, and the notebook stops there.
  bool queries_transposed = false;
  // What the scores are divided by: factor * size ** power, the chapter's keys.shape[-1] ** 0.5.
  // A learner may divide by nothing (power 0), by d_k (power 1), by the number of tokens, by
  // MultiHeadAttention's d_out where head_dim belongs, ...; before the softmax or after it.
  enum class Size { Dk, Tokens, DOut };  // keys.shape[-1], keys.shape[-2], the module's d_out
  Size divisor_size = Size::Dk;
  double divisor_power = 0.5;
  double divisor_factor = 1.0;
  bool scale_after_softmax = false;
  bool softmax_over_queries = false;  // torch.softmax(..., dim=-2): columns sum to 1, not rows
  // torch.softmax(..., dim=0) of batched scores (over the batch), or dim=1 of MultiHeadAttention's
  // four dimensions (over the heads); -1: the last, the chapter's. Counted from the front.
  int64_t softmax_dim = -1;
  // The triangle hidden from each query: the future (triu, diagonal=1), the past
  // (tril/triu swapped: tril(diagonal=-1) hidden, triu kept), or the future and the diagonal.
  enum class Triangle { Future, Past, FutureAndDiagonal } triangle = Triangle::Future;
  bool masked_fill_kept = true;       // attn_scores.masked_fill_(...), not a discarded masked_fill
  float fill = -std::numeric_limits<float>::infinity();  // masked_fill_'s value: -torch.inf
  bool mask_after_softmax = false;    // the mask filled into the weights, not the scores
  bool scores_kept_before_mask = true;  // MultiHeadAttention: attn_scores kept before masked_fill_
  // Where dropout is applied: to the attention weights (the chapter), to the scores before
  // or after the mask (then softmaxed), or, in section 3.5.2's cells, to the unmasked weights
  // (then not masked at all, or masked with mask_simple and renormalised). The same draws.
  enum class DropoutAt { Weights, ScoresBeforeMask, ScoresAfterMask, UnmaskedWeights, BeforeRenormalising };
  DropoutAt dropout_at = DropoutAt::Weights;
  bool context_weights_transposed = false;  // attn_weights.T @ values, not attn_weights @ values
  // MultiHeadAttention's reshapes.
  bool heads_by_transpose = true;   // view(b, T, H, head_dim).transpose(1, 2), not view(b, H, T, head_dim)
  bool context_transposed = true;   // (attn_weights @ values).transpose(1, 2) before merging
  bool merge_kept = true;           // context_vec = context_vec.contiguous().view(...)
  bool out_proj_applied = true;     // return self.out_proj(context_vec)
  int64_t cat_dim = -1;             // the wrapper's torch.cat([...], dim=-1)

  bool chapter() const;  // every choice the chapter's
};

// The layer (or matrix) that makes the queries, and the one that makes the keys.
template <typename W>
const W& query_weights(const W& W_query, const W& W_key, const Choices& c) {
  return c.query_key_swapped ? W_key : W_query;
}
template <typename W>
const W& key_weights(const W& W_query, const W& W_key, const Choices& c) {
  return c.query_key_swapped ? W_query : W_key;
}

// Three layers (or matrices) drawn by `draw` in the order the choices declare them,
// returned as (query, key, value).
template <typename T, typename Draw>
std::array<T, 3> declared_in_order(const Choices& c, Draw draw) {
  std::array<std::optional<T>, 3> made;
  for (const int which : c.declared) made.at(static_cast<size_t>(which)).emplace(draw());
  return {std::move(*made[0]), std::move(*made[1]), std::move(*made[2])};
}

// A dropout the attention core applies where the choices put it (Choices::dropout_at).
using DropoutFn = std::function<Tensor(const Tensor&)>;

// The chapter's steps of attention, each with its choices.
// attn_scores = queries @ keys.T: (..., T, T).
Tensor attention_scores(const Tensor& queries, const Tensor& keys, const Choices& c = {});
// attn_scores / keys.shape[-1] ** 0.5.
Tensor scaled(const Tensor& attn_scores, const Tensor& keys, const Choices& c = {});
// keys.shape[-1] ** 0.5, or what the choices divide by (keys: (..., T, d_k), heads in dim 1
// of four).
double divisor_of(const Tensor& keys, const Choices& c);
// torch.softmax(x, dim=-1).
Tensor attention_softmax(const Tensor& x, const Choices& c = {});
// attn_weights @ values (or attn_weights.T @ values, a learner's).
Tensor weighted_values(const Tensor& attn_weights, const Tensor& values, const Choices& c = {});
// torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1).
Tensor scaled_softmax(const Tensor& attn_scores, const Tensor& keys, const Choices& c = {});
// Section 3.5.1's mask_simple, the weights kept: torch.tril(torch.ones(T, T)).
Tensor kept_mask(int64_t T, const Choices& c = {});
// The -inf method's mask, the weights hidden: torch.triu(torch.ones(T, T), diagonal=1).
Tensor hidden_mask(int64_t T, const Choices& c = {});
// attn_scores.masked_fill_(mask.bool(), -torch.inf), or the scores unchanged when the
// result was discarded.
Tensor masked(const Tensor& attn_scores, const Tensor& mask, const Choices& c = {});

// nn.Linear(in, out, bias): weight (out, in) then bias (out), both U(-1/sqrt(in), 1/sqrt(in)).
struct Linear {
  Tensor weight;               // (out_features, in_features), as PyTorch stores it
  std::optional<Tensor> bias;  // (out_features)
  Linear(TorchGenerator& gen, int64_t in_features, int64_t out_features, bool bias);
  Tensor operator()(const Tensor& x) const;  // x @ weight.T + bias
  int64_t parameter_count() const;
  // How many values of the generator the constructor draws: one uniform_ per parameter.
  static int64_t draws(int64_t in_features, int64_t out_features, bool bias);
};

// Sees a module's intermediates as its forward pass computes them: (the chapter's variable
// name, the tensor). The tensor is valid only during the call (the forward pass may go on
// to change it in place, as masked_fill_ does), so a tracer copies what it keeps.
using Tracer = std::function<void(const char* name, const Tensor& value)>;

// nn.Dropout(p) in training mode.
struct Dropout {
  double p;
  DropoutKernel kernel;
  bool scaled_by_p = false;  // a learner's mistake (check): kept values times 1/p, not 1/(1-p)
  Tensor operator()(TorchGenerator& gen, const Tensor& x) const;
};

// nn.Parameter(torch.rand(d_in, d_out)) or torch.randn(d_in, d_out), per --init.
Tensor init_parameter(TorchGenerator& gen, int64_t d_in, int64_t d_out, InitKind init);
// nn.init.xavier_uniform_ on a fresh (rows, cols) tensor: bound sqrt(6 / (fan_in + fan_out)).
Tensor xavier_uniform(TorchGenerator& gen, int64_t rows, int64_t cols);

// Section 3.4.2: weights as plain parameter matrices (d_in, d_out).
struct SelfAttention_v1 {
  Tensor W_query, W_key, W_value;
  Choices choices;
  SelfAttention_v1(TorchGenerator& gen, int64_t d_in, int64_t d_out, InitKind init, Choices c = {});
  Tensor forward(const Tensor& x) const;  // (T, d_in) -> (T, d_out)
};

// Section 3.4.2: the same with nn.Linear layers.
struct SelfAttention_v2 {
  Linear W_query, W_key, W_value;
  Choices choices;
  SelfAttention_v2(TorchGenerator& gen, int64_t d_in, int64_t d_out, bool qkv_bias, Choices c = {});
  SelfAttention_v2(std::array<Linear, 3> qkv, Choices c);  // W_query, W_key, W_value as drawn
  Tensor forward(const Tensor& x) const;  // (T, d_in) -> (T, d_out)
};

// Section 3.5.3: causal mask and dropout on the attention weights, batched input.
struct CausalAttention {
  Linear W_query, W_key, W_value;
  Dropout dropout;
  Tensor mask;  // triu(ones(context_length, context_length), diagonal=1)
  CausalSoftmax softmax;  // dim=-1 as the chapter; dim=1 as the first ch03.ipynb (config.h)
  Choices choices;
  CausalAttention(TorchGenerator& gen, int64_t d_in, int64_t d_out, int64_t context_length,
                  double dropout, bool qkv_bias, DropoutKernel kernel, CausalSoftmax softmax = {},
                  Choices c = {});
  Tensor forward(TorchGenerator& gen, const Tensor& x) const;  // (B, T, d_in) -> (B, T, d_out)

 private:
  CausalAttention(std::array<Linear, 3> qkv, int64_t context_length, double dropout, DropoutKernel kernel,
                  CausalSoftmax softmax, Choices c);
};

// Section 3.6.1: one CausalAttention per head, outputs concatenated.
// nn.ModuleList builds every head, drawing all their weights, before any forward pass. Twelve
// GPT-2-sized heads hold 81 MiB of weights, so instead of keeping them the wrapper keeps the
// generator as it was before each head's draws, and forward() builds each head again from it
// when its turn comes: the same draws give the same weights, one head in memory at a time.
struct MultiHeadAttentionWrapper {
  MultiHeadAttentionWrapper(TorchGenerator& gen, int64_t d_in, int64_t d_out,
                            int64_t context_length, double dropout, int64_t num_heads,
                            bool qkv_bias, DropoutKernel kernel, CausalSoftmax softmax = {},
                            Choices c = {});
  int64_t num_heads() const { return static_cast<int64_t>(head_rng_.size()); }
  CausalAttention head(int64_t h) const;  // self.heads[h]
  // -> (B, T, num_heads * d_out). head_done(h), if given, as each head's output is in.
  Tensor forward(TorchGenerator& gen, const Tensor& x, const std::function<void(int64_t h)>& head_done = {}) const;

 private:
  int64_t d_in_, d_out_, context_length_;
  double dropout_;
  bool qkv_bias_;
  DropoutKernel kernel_;
  CausalSoftmax softmax_;
  Choices choices_;
  std::vector<TorchGenerator> head_rng_;  // the generator before head h drew its weights
};

// Section 3.6.2: one set of projections split into heads, plus an output projection.
struct MultiHeadAttention {
  int64_t d_out, num_heads, head_dim;
  Linear W_query, W_key, W_value, out_proj;
  Dropout dropout;
  Tensor mask;
  Choices choices;
  MultiHeadAttention(TorchGenerator& gen, int64_t d_in, int64_t d_out, int64_t context_length,
                     double dropout, int64_t num_heads, bool qkv_bias, DropoutKernel kernel,
                     Choices c = {});
  // W_query, W_key and W_value as drawn; out_proj is drawn after them.
  MultiHeadAttention(std::array<Linear, 3> qkv, TorchGenerator& gen, int64_t d_out, int64_t context_length,
                     double dropout, int64_t num_heads, DropoutKernel kernel, Choices c);

  // Every intermediate of forward(), for the walk to show.
  struct Trace {
    Tensor keys, queries, values;                        // (B, T, d_out)
    Tensor keys_viewed, queries_viewed, values_viewed;   // (B, T, H, head_dim)
    Tensor keys_t, queries_t, values_t;                  // (B, H, T, head_dim)
    Tensor attn_scores;                                  // (B, H, T, T)
    Tensor attn_scores_masked;                           // (B, H, T, T), -inf above diagonal
    Tensor attn_weights;                                 // (B, H, T, T), after dropout
    Tensor context_vec;                                  // (B, T, H, head_dim)
    Tensor context_vec_merged;                           // (B, T, d_out)
    Tensor context_vecs;                                 // (B, T, d_out), after out_proj
  };
  Trace forward_traced(TorchGenerator& gen, const Tensor& x) const;
  Tensor forward(TorchGenerator& gen, const Tensor& x) const {
    return forward(gen, x, [](const char*, const Tensor&) {});
  }
  // The forward pass, showing `trace` every intermediate in the order of Trace's members
  // (named "keys", ..., "attn_weights", "context_vec", "context_vec_merged") as soon as it
  // is computed. Only one (b, H, T, T) tensor is alive at a time: scores are masked, scaled
  // and softmaxed in place. Returns context_vecs.
  Tensor forward(TorchGenerator& gen, const Tensor& x, const Tracer& trace) const;
  int64_t parameter_count() const;
};

// The attention core every module shares: scores -> causal mask -> scaled softmax.
// Returns the attention weights before dropout. keys/queries are (..., T, d_k). `trace`, if
// given, sees "attn_scores" and "attn_scores_masked" on the way.
// `softmax` dim 1 (3-D scores only) normalises over the queries instead (config.h).
// `dropout`, if given, is applied where c.dropout_at puts it on the scores (else the caller
// drops the weights, as the chapter does).
Tensor causal_attention_weights(const Tensor& queries, const Tensor& keys, const Tensor& mask,
                                const Tracer& trace = nullptr, CausalSoftmax softmax = {},
                                const Choices& c = {}, const DropoutFn& dropout = nullptr);

}  // namespace attn

namespace attn {

// mha.named_parameters() as PyTorch lists them: "W_query.weight" (d_out, d_in), its bias
// if any, then W_key, W_value, "out_proj.weight" and "out_proj.bias".
struct NamedShape {
  std::string name;
  Shape shape;
};
std::vector<NamedShape> named_parameter_shapes(const MultiHeadAttention& m);
// The same list for MultiHeadAttention(d_in, d_out, ..., qkv_bias) without building it: the
// shapes its nn.Linear layers allocate. Exercise 3.3 needs the count, not the 2.4 million
// random draws of a GPT-2-sized module (most of a multi-head walk's time in the web page).
std::vector<NamedShape> named_parameter_shapes(int64_t d_in, int64_t d_out, bool qkv_bias);

}  // namespace attn
