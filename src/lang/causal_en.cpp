// English texts of the causal stage (src/stages/causal.cpp):
// section 3.5.1, hiding future tokens.
#include "lang/chapter.h"

namespace attn {

LangTable causal_en() {
  LangTable t;
  t.code = "en";
  t.steps = {
      {"causal/queries",
       {"sa_v2.W_query(inputs), seed {seed2}",
        "Section 3.5 continues with SelfAttention_v2 of section 3.4 (seed {seed2}): its "
        "queries, one per token, shape ({T}, {d_out})."}},
      {"causal/keys",
       {"sa_v2.W_key(inputs)", "And its keys, shape ({T}, {d_out})."}},
      {"causal/attn_scores",
       {"queries @ keys.T",
        "All scores ωij = q(i) · k(j): ({T}, {d_out}) @ ({d_out}, {T}) gives ({T}, {T})."}},
      {"causal/attn_weights",
       {"softmax(attn_scores / sqrt(d_k)): every token still sees the future",
        "The scaled softmax of section 3.4 (d_k = {d_k}). Entry [i, j] above the diagonal "
        "(j > i) is the weight token i gives to a later token j; a model that predicts the "
        "next word must not look at those, so they have to go."}},
      {"causal/mask_simple",
       {"torch.tril(torch.ones(T, T)): 1 where j <= i",
        "The causal mask: ones on and below the diagonal (token i and the tokens before it), "
        "zeros above it (the future). torch.tril keeps the lower triangle; shape ({T}, {T})."}},
      {"causal/masked_simple",
       {"attn_weights * mask_simple",
        "Multiplying element by element zeroes every weight on a future token. But now the "
        "rows sum to less than 1."}},
      {"causal/row_sums",
       {"masked_simple.sum(dim=-1, keepdim=True)",
        "The sum of each row; keepdim=True keeps the shape ({T}, 1), so that the division "
        "below broadcasts along each row."}},
      {"causal/masked_simple_norm",
       {"masked_simple / row_sums: rows sum to 1 again",
        "Dividing each row by its sum renormalises it: the weights on the past and present "
        "sum to 1 again. That is method 1: softmax, mask, renormalise."}},
      {"causal/mask",
       {"torch.triu(torch.ones(T, T), diagonal=1): 1 where j > i",
        "Method 2 needs the opposite mask: ones strictly above the diagonal (diagonal=1), "
        "marking the future positions to hide."}},
      {"causal/masked",
       {"attn_scores.masked_fill(mask.bool(), -torch.inf)",
        "The future scores become -inf. The mask is applied before the softmax: exp(-inf) = 0, "
        "so those positions get weight exactly 0, and the softmax's own normalisation makes "
        "the rest sum to 1."}},
      {"causal/attn_weights_causal",
       {"softmax(masked / sqrt(d_k)): equal to masked_simple_norm",
        "The causal attention weights in a single softmax: row i spreads its weight over "
        "tokens 1 to i only. The result equals method 1 and needs one normalisation instead of "
        "two."}},
  };
  t.ui = {
      {"stage.causal", "masking future tokens: the tril method and the -inf method"},
  };
  return t;
}

}  // namespace attn
