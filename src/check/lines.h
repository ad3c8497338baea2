// Learners' lines: each writes, into the book's cells (modules/cells.h), a line of chapter 3
// the way a learner wrote it. The diagnoses (diagnoses.cpp) are made of these.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "core/config.h"
#include "modules/cells.h"

namespace attn::lines {

// queries = self.W_key(x), keys = self.W_query(x)
void queries_from_W_key(Cells& c);
// attn_scores = keys @ queries.T
void keys_times_queries(Cells& c);
// Exercise 3.1: sa_v1.W_query = nn.Parameter(sa_v2.W_key.weight.T), and W_key from W_query.
void exercise_copies_swapped(Cells& c);
// Exercise 3.1: nn.Parameter(sa_v2.W_query.weight), without .T.
void exercise_copies_not_transposed(Cells& c);
// attn_scores = queries.T @ keys: (d_k, d_k).
void queries_transposed(Cells& c);
// attn_weights.T @ values
void weights_transposed(Cells& c);

// torch.softmax(attn_scores, dim=-1): not divided at all.
void softmax_unscaled(Cells& c);
// What a learner divides the scores by: `factor * size ** power`, before the softmax or after it.
enum class Size {
  Dk,      // keys.shape[-1]
  Tokens,  // keys.shape[-2]
  DOut     // MultiHeadAttention's d_out
};
void softmax_divided(Cells& c, Size size, double power, double factor, bool after_softmax);
// torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-2): over the queries.
void softmax_over_queries(Cells& c);
// torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=d) for d counted from the front.
void softmax_over_dim(Cells& c, int64_t dim);

// mask_simple / mask_simple.sum(...) or attn_weights / attn_weights.sum(...).
void renormalized_mask_simple(Cells& c);
void renormalized_attn_weights(Cells& c);
// masked_simple.sum(dim=-1) without keepdim=True.
void row_sums_without_keepdim(Cells& c);
// masked_simple.sum(dim=0, keepdim=True): the columns' sums.
void column_sums(Cells& c);

// torch.triu where torch.tril belongs, and the other way round.
void mask_past(Cells& c);
// tril(..., diagonal=-1) kept, triu(..., diagonal=0) hidden: the diagonal hidden too.
void mask_diagonal_too(Cells& c);
// The same in one of the two masks alone: the -inf method's `mask` (and the modules' buffer),
// or section 3.5.1's mask_simple.
void hidden_mask_past(Cells& c);
void hidden_mask_diagonal_too(Cells& c);
void kept_mask_past(Cells& c);
void kept_mask_diagonal_too(Cells& c);
// attn_scores.masked_fill(...) whose result is not assigned.
void masked_fill_discarded(Cells& c);
// masked_fill_(mask.bool(), `fill`) of the scores.
void masked_with(Cells& c, float fill);
// The weights filled with `fill` after the softmax, the scores left unmasked.
void masked_after_softmax(Cells& c, float fill);

// Dropout by hand, kept values times 1/p instead of 1/(1-p).
void dropout_scaled_by_p(Cells& c);
// Dropout on the scores before the mask, or on the masked scores (then the softmax).
void dropout_on_scores(Cells& c, bool after_mask);
// Section 3.5.2's dropout on 3.5.1's unmasked weights: not masked, or masked with
// mask_simple and renormalised.
void dropout_on_unmasked_weights(Cells& c, bool renormalised);

// keys.view(b, num_heads, num_tokens, head_dim), no transpose.
void heads_by_view(Cells& c);
// (attn_weights @ values) without .transpose(1, 2).
void context_not_transposed(Cells& c);
// context_vec.contiguous().view(...) on a line of its own: the result dropped.
void merge_discarded(Cells& c);
// return context_vec, without self.out_proj.
void out_proj_missing(Cells& c);
// torch.cat(..., dim=`dim`).
void cat_along(Cells& c, int64_t dim);
// second_head = a[0, 0, :, :]
void same_head_twice(Cells& c);

// nn.Linear(d_in, d_out) in the class: its default bias=True, wherever the class is used.
void bias_kept(Cells& c);
// W_query, W_key and W_value declared in `order` (0 = W_query, 1 = W_key, 2 = W_value).
void declared(Cells& c, std::array<int, 3> order);
// No torch.manual_seed before `module`: its draws continue the stream (cfg: the walk's).
void seed_not_reset(Cells& c, const std::string& module, const Config& cfg);
// x_2 = inputs[2] for the chapter's 2nd token: the row counted from 0 where the book counts from 1.
void row_counted_from_0(Cells& c);

}  // namespace attn::lines
