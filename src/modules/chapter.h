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
#include "modules/cells.h"
#include "ops/ops.h"
#include "torch/torch_random.h"

namespace attn {

// Three layers (or matrices) drawn by `draw` in the order __init__ declares them
// (cells.declare: the book's W_query, W_key, W_value), returned as (query, key, value).
template <typename T, typename Draw>
std::array<T, 3> declared_in_order(const Cells& cells, Draw draw) {
  std::array<std::optional<T>, 3> made;
  for (const int which : cells.declare()) made.at(static_cast<size_t>(which)).emplace(draw());
  return {std::move(*made[0]), std::move(*made[1]), std::move(*made[2])};
}

// x -> x @ W, for the cells that project (cells.queries, cells.keys).
inline Layer times(const Tensor& W) {
  return [&W](const Tensor& x) { return matmul(x, W); };
}

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

// x -> W(x), for the cells that project (cells.queries, cells.keys).
inline Layer layer(const Linear& W) {
  return [&W](const Tensor& x) { return W(x); };
}

// Sees a module's intermediates as its forward pass computes them: (the chapter's variable
// name, the tensor). The tensor is valid only during the call (the forward pass may go on
// to change it in place, as masked_fill_ does), so a tracer copies what it keeps.
using Tracer = std::function<void(const char* name, const Tensor& value)>;

// nn.Dropout(p) in training mode.
struct Dropout {
  double p;
  DropoutKernel kernel;
  Tensor operator()(TorchGenerator& gen, const Tensor& x) const;
};

// nn.Parameter(torch.rand(d_in, d_out)) or torch.randn(d_in, d_out), per --init.
Tensor init_parameter(TorchGenerator& gen, int64_t d_in, int64_t d_out, InitKind init);
// nn.init.xavier_uniform_ on a fresh (rows, cols) tensor: bound sqrt(6 / (fan_in + fan_out)).
Tensor xavier_uniform(TorchGenerator& gen, int64_t rows, int64_t cols);

// Section 3.4.2: weights as plain parameter matrices (d_in, d_out).
struct SelfAttention_v1 {
  Tensor W_query, W_key, W_value;
  Cells cells;
  SelfAttention_v1(TorchGenerator& gen, int64_t d_in, int64_t d_out, InitKind init, const Cells& c = book_cells());
  Tensor forward(const Tensor& x) const;  // (T, d_in) -> (T, d_out)
};

// Section 3.4.2: the same with nn.Linear layers.
struct SelfAttention_v2 {
  Linear W_query, W_key, W_value;
  Cells cells;
  SelfAttention_v2(TorchGenerator& gen, int64_t d_in, int64_t d_out, bool qkv_bias, const Cells& c = book_cells());
  SelfAttention_v2(std::array<Linear, 3> qkv, const Cells& c);  // W_query, W_key, W_value as drawn
  Tensor forward(const Tensor& x) const;                        // (T, d_in) -> (T, d_out)
};

// Section 3.5.3: causal mask and dropout on the attention weights, batched input.
struct CausalAttention {
  Linear W_query, W_key, W_value;
  Dropout dropout;
  Tensor mask;            // triu(ones(context_length, context_length), diagonal=1): cells.mask
  CausalSoftmax softmax;  // dim=-1 as the chapter; dim=1 as the first ch03.ipynb (config.h)
  Cells cells;
  CausalAttention(TorchGenerator& gen, int64_t d_in, int64_t d_out, int64_t context_length,
                  double dropout, bool qkv_bias, DropoutKernel kernel, CausalSoftmax softmax = {},
                  const Cells& c = book_cells());
  Tensor forward(TorchGenerator& gen, const Tensor& x) const;  // (B, T, d_in) -> (B, T, d_out)

 private:
  CausalAttention(std::array<Linear, 3> qkv, int64_t context_length, double dropout, DropoutKernel kernel,
                  CausalSoftmax softmax, const Cells& c);
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
                            const Cells& c = book_cells());
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
  Cells cells_;
  std::vector<TorchGenerator> head_rng_;  // the generator before head h drew its weights
};

// Section 3.6.2: one set of projections split into heads, plus an output projection.
struct MultiHeadAttention {
  int64_t d_out, num_heads, head_dim;
  Linear W_query, W_key, W_value, out_proj;
  Dropout dropout;
  Tensor mask;
  Cells cells;
  MultiHeadAttention(TorchGenerator& gen, int64_t d_in, int64_t d_out, int64_t context_length,
                     double dropout, int64_t num_heads, bool qkv_bias, DropoutKernel kernel,
                     const Cells& c = book_cells());
  // W_query, W_key and W_value as drawn; out_proj is drawn after them.
  MultiHeadAttention(std::array<Linear, 3> qkv, TorchGenerator& gen, int64_t d_out, int64_t context_length,
                     double dropout, int64_t num_heads, DropoutKernel kernel, const Cells& c);

  // Every intermediate of forward(), for the walk to show.
  struct Trace {
    Tensor keys, queries, values;                       // (B, T, d_out)
    Tensor keys_viewed, queries_viewed, values_viewed;  // (B, T, H, head_dim)
    Tensor keys_t, queries_t, values_t;                 // (B, H, T, head_dim)
    Tensor attn_scores;                                 // (B, H, T, T)
    Tensor attn_scores_masked;                          // (B, H, T, T), -inf above diagonal
    Tensor attn_weights;                                // (B, H, T, T), after dropout
    Tensor context_vec;                                 // (B, T, H, head_dim)
    Tensor context_vec_merged;                          // (B, T, d_out)
    Tensor context_vecs;                                // (B, T, d_out), after out_proj
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

// The attention core every module shares, the book's lines as cells: scores -> causal mask
// -> scaled softmax -> dropout. keys/queries are (..., T, d_k); `mask` is the module's
// buffer, self.mask, of which [:T, :T] is used. Returns the attention weights, dropped by
// `dropout` if given. `trace`, if given, sees "attn_scores" and "attn_scores_masked" on the
// way. `softmax` dim 1 (3-D scores only) normalises over the queries instead (config.h).
Tensor causal_attention_weights(const Tensor& queries, const Tensor& keys, const Tensor& mask,
                                const Tracer& trace = nullptr, CausalSoftmax softmax = {},
                                const Cells& c = book_cells(), const DropoutFn& dropout = nullptr);

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
