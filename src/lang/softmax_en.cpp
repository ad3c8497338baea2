// English texts of the softmax stage (src/stages/softmax.cpp):
// section 3.3.1, normalising scores.
#include "lang/chapter.h"

namespace attn {

LangTable softmax_en() {
  LangTable t;
  t.code = "en";
  t.steps = {
      {"softmax/attn_scores_2",
       {"attention scores of the query {xq}",
        "The scores ω{query}i = {xq} · x(i), shape ({T},). Raw scores can have any size and "
        "sign; this walk compares three ways of turning them into weights."}},
      {"softmax/attn_weights_2_tmp",
       {"attn_scores_2 / attn_scores_2.sum()",
        "The simplest normalisation divides every score by their sum. The result sums to 1, "
        "but a negative score would give a negative weight, and a sum near 0 blows the "
        "weights up: that is why attention uses softmax instead."}},
      {"softmax/attn_weights_2_tmp_sum",
       {"its sum", "All elements added up, a 0-dim tensor: 1, as intended."}},
      {"softmax/attn_weights_2_naive",
       {"softmax_naive: exp(x) / exp(x).sum()",
        "softmax(x)i = exp(xi) / Σ_j exp(xj): exp makes every weight positive and favours "
        "the larger scores. This naive version takes exp of the raw scores, which overflows "
        "float32 as soon as a score exceeds about 88."}},
      {"softmax/attn_weights_2_naive_sum",
       {"its sum", "1 again: softmax always gives weights that sum to 1."}},
      {"softmax/attn_weights_2",
       {"torch.softmax(attn_scores_2, dim=0)",
        "PyTorch computes exp(x - max(x)) / Σ exp(x - max(x)). Subtracting the maximum changes "
        "nothing mathematically (the factor exp(-max) cancels), but the largest exponent is "
        "now exp(0) = 1, so nothing can overflow. The values equal softmax_naive's."}},
      {"softmax/attn_weights_2_sum", {"its sum", "1, up to float32 rounding."}},
      {"softmax/attn_weights",
       {"torch.softmax(inputs @ inputs.T, dim=-1) for every query",
        "The same for all queries: the ({T}, {T}) score matrix, normalised row by row with "
        "dim=-1 (dim=0 would normalise the columns, which is not what attention needs)."}},
      {"softmax/attn_weights_row_sums",
       {"every row sums to 1", "One sum per row (per query), shape ({T},)."}},
      {"softmax/overflow_scale",
       {"a scale that makes exp(score) overflow float32",
        "The smallest power of ten that, multiplied into these scores, makes exp overflow: "
        "float32 ends near 3.4e38 = exp(88.7). Large scores do happen, since dot products grow "
        "with the embedding size."}},
      {"softmax/overflow_scale#no_overflow",
       {"no scale makes exp overflow for these scores; 100 is used",
        "Multiplying these scores by powers of ten never makes exp overflow before the scores "
        "themselves do (for example, when all scores are 0), so the walk uses 100 for the "
        "steps that follow."}},
      {"softmax/big_scores_2",
       {"attn_scores_2 * {big_scale}",
        "The same scores, {big_scale} times larger: their order is unchanged, but the largest "
        "are now too big for exp in float32."}},
      {"softmax/big_scores_2#no_overflow",
       {"attn_scores_2 * {big_scale}",
        "The same scores, {big_scale} times larger: their order is unchanged."}},
      {"softmax/big_weights_2_naive",
       {"softmax_naive(big_scores_2): exp overflows to inf; inf / inf is nan, finite / inf is 0",
        "The exp of {n_nan} of these scores is inf in float32, so the sum is inf too. Those "
        "{n_nan} entries are inf / inf = nan; the exp of the other {n_zero} is finite, and a "
        "finite number divided by inf is 0. Either way the naive softmax breaks down."}},
      {"softmax/big_weights_2_naive#all_nan",
       {"softmax_naive(big_scores_2): exp overflows to inf, inf / inf is nan",
        "The exp of every one of these scores is inf in float32, so the sum is inf too, and "
        "each entry is inf / inf = nan: the naive softmax breaks down."}},
      {"softmax/big_weights_2_naive#no_overflow",
       {"softmax_naive(big_scores_2)",
        "exp does not overflow for these scores, so the naive softmax still works here."}},
      {"softmax/big_weights_2",
       {"torch.softmax(big_scores_2, dim=0): still finite, sums to 1",
        "With the maximum subtracted every exponent is at most 0, so exp stays between 0 and "
        "1: finite weights that sum to 1. Such large scores concentrate the weight on the "
        "largest few: here {w1_tok} gets {w1} and {w2_tok} {w2}; the others together get "
        "{rest}."}},
      {"softmax/big_weights_2#one_hot",
       {"torch.softmax(big_scores_2, dim=0): still finite, sums to 1",
        "With the maximum subtracted every exponent is at most 0, so exp stays between 0 and "
        "1: finite weights that sum to 1. Such large scores make the softmax nearly one-hot: "
        "{w1_tok} gets {w1}, the others together {rest}."}},
      {"softmax/big_weights_2#many",
       {"torch.softmax(big_scores_2, dim=0): still finite, sums to 1",
        "With the maximum subtracted every exponent is at most 0, so exp stays between 0 and "
        "1: finite weights that sum to 1. The weight is shared by {n_shared} tokens that each "
        "get at least 0.01; the largest, {w1_tok}, gets {w1}."}},
      {"softmax/attn_weights_2_sharp",
       {"torch.softmax(attn_scores_2 / 0.5): sharper, closer to one-hot",
        "Dividing by a number below 1 spreads the scores apart, so the largest takes more of "
        "the weight. Large scores do the same, which is why section 3.4 divides by sqrt(d_k)."}},
      {"softmax/attn_weights_2_flat",
       {"torch.softmax(attn_scores_2 / 2.0): flatter, closer to uniform",
        "Dividing by 2 pulls the scores together and the weights even out. Scaled "
        "dot-product attention divides by sqrt(d_k) for this reason: to keep the softmax out "
        "of its saturated, nearly one-hot region, where gradients vanish."}},
  };
  t.ui = {
      {"stage.softmax", "normalising scores: sum, naive exp, and the stable softmax"},
  };
  return t;
}

}  // namespace attn
