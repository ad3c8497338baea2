// The chapter's steps of attention (modules/chapter.h), each with the choices a learner's
// mistake changes, and the attention core every module shares.
#include <cmath>
#include <limits>

#include "kernels/softmax.h"
#include "modules/chapter.h"
#include "ops/ops.h"

namespace attn {

// ---- the chapter's choices, and its steps of attention ---------------------------------

bool Choices::chapter() const {
  return declared == std::array<int, 3>{0, 1, 2} && !query_key_swapped && !scores_transposed &&
         !queries_transposed && softmax_dim == -1 && dropout_at == DropoutAt::Weights &&
         !context_weights_transposed && divisor_size == Size::Dk && divisor_power == 0.5 &&
         divisor_factor == 1.0 && !scale_after_softmax &&
         !softmax_over_queries && triangle == Triangle::Future && masked_fill_kept &&
         fill == -std::numeric_limits<float>::infinity() && !mask_after_softmax && scores_kept_before_mask &&
         heads_by_transpose && context_transposed && merge_kept && out_proj_applied && cat_dim == -1;
}

Tensor attention_scores(const Tensor& queries, const Tensor& keys, const Choices& c) {
  if (c.queries_transposed && queries.dim() >= 2) return matmul(transpose(queries, -2, -1), keys);  // (d_k, d_k)
  return c.scores_transposed ? matmul_transposed(keys, queries) : matmul_transposed(queries, keys);
}

namespace {

// torch.tril(torch.ones(T, T), diagonal=-1): strictly below the diagonal.
Tensor strictly_lower(int64_t T) { return transpose2d(triu_ones(T, 1)); }

// softmax over dim=-2 of (..., T, T), in place of x.
Tensor softmax_over_queries(const Tensor& x) {
  return transpose(softmax_lastdim(transpose(x, -2, -1)), -2, -1);
}

// torch.softmax(x, dim) for a dimension counted from the front, other than the last.
Tensor softmax_over(const Tensor& x, int64_t dim) {
  return transpose(softmax_lastdim(transpose(x, dim, -1)), dim, -1);
}

// A learner's softmax over a leading dimension, where the scores have one before the last.
bool softmax_leading(const Tensor& x, const Choices& c) { return c.softmax_dim >= 0 && c.softmax_dim < x.dim() - 1; }

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
  if (softmax_leading(x, c)) return softmax_over(x, c.softmax_dim);
  if (!c.softmax_over_queries || x.dim() < 2) return softmax_lastdim(x);
  return softmax_over_queries(x);
}

Tensor weighted_values(const Tensor& attn_weights, const Tensor& values, const Choices& c) {
  // attn_weights.T of a 1-D tensor is itself (PyTorch warns, and multiplies the same).
  if (c.context_weights_transposed && attn_weights.dim() >= 2) return matmul(transpose(attn_weights, -2, -1), values);
  return matmul(attn_weights, values);
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

// ---- shared attention core -------------------------------------------------------------

Tensor causal_attention_weights(const Tensor& queries, const Tensor& keys, const Tensor& mask,
                                const Tracer& trace, CausalSoftmax softmax, const Choices& c,
                                const DropoutFn& dropout) {
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
  // A learner's dropout on the scores, before or after the mask (-inf dropped is nan).
  if (dropout && c.dropout_at == Choices::DropoutAt::ScoresBeforeMask) attn_weights = dropout(attn_weights);
  if (c.masked_fill_kept && !c.mask_after_softmax) masked_fill_(attn_weights, hidden, c.fill);
  if (trace && !c.scores_kept_before_mask) trace("attn_scores", attn_weights);
  if (trace) trace("attn_scores_masked", attn_weights);
  if (dropout && c.dropout_at == Choices::DropoutAt::ScoresAfterMask) attn_weights = dropout(attn_weights);
  // Divide by sqrt(d_k) so the softmax does not saturate as d_k grows.
  const bool divide = c.divisor_power != 0.0 || c.divisor_factor != 1.0;
  if (divide && !c.scale_after_softmax) div_scalar_(attn_weights, divisor_of(keys, c));
  // As the first ch03.ipynb, --softmax-dim 1: over dim 1 of (b, T, T), the queries. In the
  // 2-D code dim 1 was the last; with the batch in front it is not. Each column sums to 1.
  if (softmax.dim == 1) {
    attn_weights = softmax_dim1(attn_weights, softmax.torch_threads);
  } else if (softmax_leading(attn_weights, c)) {
    attn_weights = softmax_over(attn_weights, c.softmax_dim);
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

}  // namespace attn
