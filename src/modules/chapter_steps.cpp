// The book's lines of chapter 3 (modules/cells.h), and the attention core every module
// shares, which runs them in the book's order.
#include <cmath>
#include <limits>

#include "kernels/softmax.h"
#include "modules/cells.h"
#include "modules/chapter.h"
#include "ops/ops.h"
#include "torch/torch_random.h"

namespace attn {

namespace book {

std::array<int, 3> declaration_order() { return {0, 1, 2}; }

bool bias(bool qkv_bias) { return qkv_bias; }

Tensor queries(const Tensor& x, const Layer& W_query, const Layer&) { return W_query(x); }

Tensor keys(const Tensor& x, const Layer&, const Layer& W_key) { return W_key(x); }

Tensor score(const Tensor& queries, const Tensor& keys) {
  // queries @ keys.transpose(-2, -1): PyTorch multiplies by the transposed view, except for
  // 4-D heads with a batch of more than one, where matmul's reshape to 3-D copies it.
  const bool copied = keys.dim() == 4 && keys.size(0) > 1;
  return copied ? matmul(queries, transpose(keys, -2, -1)) : matmul_transposed(queries, keys);
}

Tensor mask_simple(int64_t T) { return tril_ones(T); }

Tensor mask(int64_t T) { return triu_ones(T, 1); }

Tensor masked(Tensor attn_scores, const Self& self) {
  // -inf becomes exactly 0 after exp.
  masked_fill_(attn_scores, self.mask, -std::numeric_limits<float>::infinity());
  return attn_scores;
}

Tensor softmax(Tensor attn_scores, const Self& self) {
  // Divide by sqrt(d_k) so the softmax does not saturate as d_k grows; in place, as the
  // scores can be large.
  div_scalar_(attn_scores, std::sqrt(static_cast<double>(self.keys.size(-1))));
  const int64_t n = attn_scores.dim() == 0 ? 1 : attn_scores.size(-1);
  if (n > 0) kernels::softmax_rows(attn_scores.data.data(), attn_scores.numel() / n, n);
  return attn_scores;
}

Tensor dropout(Tensor attn_weights, const Self& self) { return self.dropout(attn_weights); }

Tensor context(const Tensor& attn_weights, const Tensor& values) { return matmul(attn_weights, values); }

Tensor view_heads(Tensor x, int64_t b, int64_t num_tokens, int64_t num_heads, int64_t head_dim) {
  return view(std::move(x), {b, num_tokens, num_heads, head_dim});
}

Tensor heads_first(Tensor viewed) { return transpose(viewed, 1, 2); }

Tensor tokens_first(Tensor context_vec) { return transpose(context_vec, 1, 2); }

Tensor merge(Tensor context_vec, int64_t b, int64_t num_tokens, int64_t d_out) {
  return view(std::move(context_vec), {b, num_tokens, d_out});
}

Tensor project_out(const Linear& out_proj, const Tensor& context_vec) { return out_proj(context_vec); }

Tensor concat(std::vector<Tensor> heads) { return cat(heads, -1); }

void seed(TorchGenerator& gen, uint64_t seed, const char*) { gen.manual_seed(seed); }

Tensor token_row(const Tensor& inputs, int64_t token) { return inputs[token - 1]; }

std::pair<Tensor, Tensor> renormalize(const Tensor&, const Tensor&, const Tensor& masked_simple) {
  Tensor row_sums = sum_lastdim(masked_simple, true);  // (T, 1)
  Tensor norm = div_keepdim(masked_simple, row_sums);
  return {std::move(row_sums), std::move(norm)};
}

Tensor nn_dropout(const Tensor& x, const Dropout& dropout, TorchGenerator& gen) { return dropout(gen, x); }

Tensor drop_weights(const CausalWeights& w, const DropoutFn& dropout) { return dropout(w.attn_weights_causal); }

std::array<Tensor, 3> copy_weights(const Tensor& W_query, const Tensor& W_key, const Tensor& W_value) {
  return {transpose2d(W_query), transpose2d(W_key), transpose2d(W_value)};
}

Tensor second_head(const Tensor& a) { return a[0][1]; }

}  // namespace book

bool Cells::book() const {
  return declare.is_book() && bias.is_book() && queries.is_book() && keys.is_book() && score.is_book() && mask_simple.is_book() &&
         mask.is_book() && masked.is_book() && softmax.is_book() && dropout.is_book() && context.is_book() &&
         view_heads.is_book() && heads_first.is_book() && tokens_first.is_book() && merge.is_book() &&
         project_out.is_book() && concat.is_book() && seed.is_book() && token_row.is_book() &&
         renormalize.is_book() && nn_dropout.is_book() && drop_weights.is_book() && copy_weights.is_book() &&
         second_head.is_book();
}

const Cells& book_cells() {
  static const Cells cells;
  return cells;
}

Self notebook_self(const Tensor& keys) {
  static const Tensor no_mask;
  static const DropoutFn no_dropout = [](const Tensor& t) { return t; };
  return {keys, no_mask, no_dropout};
}

// ---- shared attention core -------------------------------------------------------------

Tensor causal_attention_weights(const Tensor& queries, const Tensor& keys, const Tensor& mask,
                                const Tracer& trace, CausalSoftmax softmax, const Cells& cells,
                                const DropoutFn& dropout) {
  static const DropoutFn no_dropout = [](const Tensor& t) { return t; };
  const int64_t T = queries.size(-2);
  // self.mask.bool()[:T, :T]: the buffer itself when the input fills the context.
  const Tensor cut = T == mask.size(0) ? Tensor() : cells.mask(T);
  const Self self{keys, T == mask.size(0) ? mask : cut, dropout ? dropout : no_dropout};
  // One (..., T, T) tensor, masked, scaled and softmaxed in place: these can be large.
  Tensor attn_scores = cells.score(queries, keys);  // (..., T, T)
  if (trace) trace("attn_scores", attn_scores);
  attn_scores = cells.masked(std::move(attn_scores), self);
  if (trace) trace("attn_scores_masked", attn_scores);
  Tensor attn_weights;
  if (softmax.dim == 1) {
    // As the first ch03.ipynb, --softmax-dim 1: over dim 1 of (b, T, T), the queries. In the
    // 2-D code dim 1 was the last; with the batch in front it is not. Each column sums to 1.
    div_scalar_(attn_scores, std::sqrt(static_cast<double>(keys.size(-1))));
    attn_weights = softmax_dim1(attn_scores, softmax.torch_threads);
  } else {
    attn_weights = cells.softmax(std::move(attn_scores), self);
  }
  return cells.dropout(std::move(attn_weights), self);
}

}  // namespace attn
