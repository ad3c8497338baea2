// English: every text a learner reads. Keys and placeholders: see lang.h. English is
// also the fallback of every other language, so it must have every key.
#include "lang/lang.h"
#include "lang/parts.h"

namespace attn {

// The chapter's texts; lang_en() adds the parts of the features beyond it (parts.cpp).
static LangTable chapter_en() {
  return LangTable{
      "en",
      "English",
      {
          // ---- dot-product: section 3.3.1-3.3.2, attention without trainable weights ----
          {"dot-product/inputs",
           {"the {T} token embeddings, one row per token",
            "Each row x(i) is the embedding vector of one token: {T} tokens of {d_in} numbers, "
            "so inputs has shape ({T}, {d_in}). Self-attention turns every x(i) into a context "
            "vector z(i) that also carries information from the other tokens."}},
          {"dot-product/query",
           {"the query {xq} = inputs[{q}]",
            "We start with one token as the query: {xq}, whose context vector z({query}) we "
            "compute first. Python counts from 0, so x({query}) is inputs[{q}], a vector of "
            "shape ({d_in},)."}},
          {"dot-product/attn_scores_2",
           {"attention scores: {xq} · x(i) for every input x(i)",
            "The attention score ω{query}i = {xq} · x(i) is the dot product of the query with "
            "each input, one score per token: shape ({T},). A dot product is |a| |b| cos θ, so it "
            "grows with how closely two vectors point the same way and with their lengths. Here "
            "the largest score is {xq}'s with itself, ω{query}{query} = {self_score}: no vector "
            "points more the same way as {xq} than {xq}."}},
          {"dot-product/attn_scores_2#longer_wins",
           {"attention scores: {xq} · x(i) for every input x(i)",
            "The attention score ω{query}i = {xq} · x(i) is the dot product of the query with "
            "each input, one score per token: shape ({T},). A dot product is |a| |b| cos θ, so it "
            "grows with the vectors' lengths as well as with how closely they point the same way. "
            "Here {xq} · x({top}) = {top_score} beats {xq} · {xq} = {self_score}, although no "
            "vector points more the same way as {xq} than {xq} itself: x({top}) is longer, "
            "|x({top})| = {top_len} against |{xq}| = {q_len}."}},
          {"dot-product/res",
           {"x(1) · {xq} worked element by element, equal to attn_scores_2[0]",
            "A dot product multiplies two vectors element by element and adds up the products: "
            "x(1) · {xq} = Σ_k x(1)[k] · {xq}[k]. This loop gives the same number as "
            "attn_scores_2[0]; the result is a 0-dim tensor."}},
          {"dot-product/attn_weights_2",
           {"attention weights: softmax(attn_scores_2), they sum to 1",
            "The attention weights α{query}i = exp(ω{query}i) / Σ_j exp(ω{query}j) normalise the "
            "scores: all positive and summing to 1, so they say how much attention {xq} pays to "
            "each token. The shape stays ({T},)."}},
          {"dot-product/context_vec_2",
           {"context vector for {xq}: Σ attn_weights_2[i] · x(i)",
            "The context vector z({query}) = Σ α{query}i x(i) is the attention-weighted sum of all "
            "inputs: {xq}'s embedding enriched with information from every token. It is as wide "
            "as an input: shape ({d_in},)."}},
          {"dot-product/attn_scores",
           {"all attention scores: inputs @ inputs.T",
            "Now every query at once: entry [i, j] is ωij = x(i) · x(j), so row {query} is "
            "attn_scores_2. One matrix product does all the dot products: ({T}, {d_in}) @ "
            "({d_in}, {T}) gives ({T}, {T}). Length counts as much as direction: in row {ci}, "
            "x({ci}) · x({cj}) = {c_score} is larger than x({ci}) · x({ci}) = {c_self}, because "
            "|x({cj})| = {cj_len} is longer than |x({ci})| = {ci_len}."}},
          {"dot-product/attn_scores#self_wins",
           {"all attention scores: inputs @ inputs.T",
            "Now every query at once: entry [i, j] is ωij = x(i) · x(j), so row {query} is "
            "attn_scores_2. One matrix product does all the dot products: ({T}, {d_in}) @ "
            "({d_in}, {T}) gives ({T}, {T}). In these embeddings every token scores highest with "
            "itself: the diagonal holds the largest score of each row."}},
          {"dot-product/attn_weights",
           {"softmax over each row (dim=-1)",
            "torch.softmax(attn_scores, dim=-1) normalises along the last dimension, that is "
            "each row on its own, so row i holds the weights of query x(i). The shape is "
            "unchanged: ({T}, {T})."}},
          {"dot-product/row_2_sum",
           {"the weights of row {query} as printed, added up by Python's sum(): a Python float",
            "The notebook checks one row by hand: it types the {T} printed weights of row {query} "
            "into sum([...]), which adds them up as Python floats. Rounded to 4 decimals they may "
            "miss 1 in the last digits; the next step sums the unrounded float32 weights."}},
          {"dot-product/attn_weights_row_sums",
           {"every row of attn_weights sums to 1",
            "attn_weights.sum(dim=-1) adds up each row: one number per query, shape ({T},), and "
            "every one is 1 up to float32 rounding."}},
          {"dot-product/all_context_vecs",
           {"all context vectors: attn_weights @ inputs; row {query} is context_vec_2",
            "z(i) = Σ_j αij x(j) for every i at once: ({T}, {T}) @ ({T}, {d_in}) gives "
            "({T}, {d_in}), one context vector per token. Row {query} is context_vec_2, which "
            "we computed with a loop above."}},

          // ---- softmax: section 3.3.1, normalising scores ----
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

          // ---- trainable: section 3.4, scaled dot-product attention ----
          {"trainable/x_2",
           {"the query token {xq} = inputs[{q}]",
            "Section 3.4 first computes the context vector of one token, now with trainable "
            "weights. x_2 is that token's embedding, shape ({d_in},)."}},
          {"trainable/W_query",
           {"projects inputs to queries: nn.Parameter(torch.{init}({d_in}, {d_out}), "
            "requires_grad=False), seed {seed1}",
            "The query weight matrix W_q, shape ({d_in}, {d_out}), maps each {d_in}-dimensional "
            "embedding to a {d_out}-dimensional query. It is random now (torch.manual_seed({seed1})) "
            "and would be learned in training; requires_grad=False only keeps the printout short."}},
          {"trainable/W_key",
           {"projects inputs to keys: nn.Parameter(torch.{init}({d_in}, {d_out}), "
            "requires_grad=False), seed {seed1}",
            "W_k maps each embedding to a key, the vector the queries are compared with. It is "
            "drawn right after W_query from the same random generator."}},
          {"trainable/W_value",
           {"projects inputs to values: nn.Parameter(torch.{init}({d_in}, {d_out}), "
            "requires_grad=False), seed {seed1}",
            "W_v maps each embedding to a value, the vector that is actually mixed into the "
            "context vector. Three separate matrices let the model learn one role for matching "
            "(query and key) and another for content (value)."}},
          {"trainable/query_2",
           {"x_2 @ W_query",
            "The query of {xq}: q({query}) = x({query}) W_q. A ({d_in},) vector times a "
            "({d_in}, {d_out}) matrix gives ({d_out},)."}},
          {"trainable/key_2",
           {"x_2 @ W_key", "Its key k({query}) = x({query}) W_k, shape ({d_out},)."}},
          {"trainable/value_2",
           {"x_2 @ W_value", "Its value v({query}) = x({query}) W_v, shape ({d_out},)."}},
          {"trainable/keys",
           {"inputs @ W_key: a key for every token",
            "The query is compared with every token, so every token needs a key: ({T}, {d_in}) "
            "@ ({d_in}, {d_out}) gives ({T}, {d_out}), one key per row."}},
          {"trainable/values",
           {"inputs @ W_value: a value for every token",
            "Likewise one value per token, shape ({T}, {d_out})."}},
          {"trainable/attn_score_22",
           {"query_2 · keys[{q}]: the score of {xq} for itself",
            "One unnormalised attention score, ω{query}{query} = q({query}) · k({query}). The query "
            "is now compared with projected keys, not with the raw embeddings of section 3.3."}},
          {"trainable/attn_scores_2",
           {"query_2 @ keys.T: scores against every key",
            "ω{query}i = q({query}) · k(i) for all i at once: ({d_out},) @ ({d_out}, {T}) gives "
            "({T},)."}},
          {"trainable/attn_weights_2",
           {"softmax(attn_scores_2 / sqrt(d_k)), d_k = {d_k}",
            "Scaled dot-product attention: α{query}i = softmax(ω{query}i / sqrt(d_k)), where "
            "d_k = {d_k} is the width of the keys. Dividing by sqrt(d_k) = {sqrt_d_k} keeps the "
            "scores from growing with d_k, so the softmax does not saturate into a nearly one-hot "
            "vector with tiny gradients."}},
          {"trainable/context_vec_2",
           {"attn_weights_2 @ values",
            "z({query}) = Σ α{query}i v(i): the weighted sum now runs over the values, not the "
            "inputs. ({T},) @ ({T}, {d_out}) gives ({d_out},): the context vector is d_out = "
            "{d_out} wide."}},
          {"trainable/sa_v1_output",
           {"SelfAttention_v1({d_in}, {d_out})(inputs), seed {seed1}: row {query} is context_vec_2",
            "SelfAttention_v1 packs the steps above into an nn.Module and runs them for all tokens "
            "at once: softmax(Q Kᵀ / sqrt(d_k)) V with Q = inputs @ W_query, K and V likewise. Same "
            "seed, same weights: row {query} of the ({T}, {d_out}) output is context_vec_2."}},
          {"trainable/sa_v2.W_query.weight",
           {"SelfAttention_v2 (seed {seed2}): nn.Linear W_query.weight, stored as (d_out, d_in)",
            "SelfAttention_v2 uses nn.Linear layers instead of bare parameters: a better "
            "initialisation (uniform within ±1/sqrt(d_in)) and an optional bias. nn.Linear stores "
            "its weight transposed, shape ({d_out}, {d_in}), and computes x @ weight.T."}},
          {"trainable/sa_v2.W_query.bias",
           {"SelfAttention_v2 (seed {seed2}): nn.Linear W_query.bias",
            "With qkv_bias=True every nn.Linear also adds a bias: queries = x @ weight.T + bias. "
            "Shape ({d_out},), drawn right after its weight."}},
          {"trainable/sa_v2.W_key.weight",
           {"SelfAttention_v2 (seed {seed2}): nn.Linear W_key.weight, stored as (d_out, d_in)",
            "The key projection, drawn after W_query from the same generator, shape "
            "({d_out}, {d_in})."}},
          {"trainable/sa_v2.W_key.bias",
           {"SelfAttention_v2 (seed {seed2}): nn.Linear W_key.bias",
            "The keys' bias, shape ({d_out},)."}},
          {"trainable/sa_v2.W_value.weight",
           {"SelfAttention_v2 (seed {seed2}): nn.Linear W_value.weight, stored as (d_out, d_in)",
            "The value projection, shape ({d_out}, {d_in})."}},
          {"trainable/sa_v2.W_value.bias",
           {"SelfAttention_v2 (seed {seed2}): nn.Linear W_value.bias",
            "The values' bias, shape ({d_out},)."}},
          {"trainable/sa_v2_output",
           {"SelfAttention_v2({d_in}, {d_out}{bias_arg})(inputs)",
            "The same computation as SelfAttention_v1, shape ({T}, {d_out}), but different "
            "numbers: the weights come from another seed ({seed2}) and another initialisation. "
            "Exercise 3.1 below shows the two classes agree once they share weights."}},
          {"trainable/exercise_3_1_sa_v1_output",
           {"Exercise 3.1: SelfAttention_v1 with v2's weights (W_*.weight.T copied in)",
            "Exercise 3.1: build both classes after torch.manual_seed({seed1}), then set "
            "sa_v1.W_query = nn.Parameter(sa_v2.W_query.weight.T), and W_key and W_value "
            "likewise. The .T is needed because nn.Linear stores (d_out, d_in) while v1 multiplies "
            "by a (d_in, d_out) matrix."}},
          {"trainable/exercise_3_1_sa_v2_output",
           {"Exercise 3.1: SelfAttention_v2({d_in}, {d_out})(inputs), seed {seed1}",
            "The answer: SelfAttention_v2 gives exactly the output of v1 above. Both compute "
            "inputs @ W, once with a Parameter and once inside nn.Linear; the two classes differ "
            "only in how they store and initialise their weights."}},

          // ---- causal: section 3.5.1, hiding future tokens ----
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

          // ---- dropout: section 3.5.2-3.5.3 ----
          {"dropout/attn_weights_causal",
           {"the causal attention weights of section 3.5.1",
            "The starting point: causal attention weights, shape ({T}, {T}), each row summing "
            "to 1."}},
          {"dropout/dropout_ones",
           {"torch.nn.Dropout({p})(torch.ones({T}, {T})), seed {seed1}: kept entries become 1/(1-p)",
            "In training, dropout sets each element to 0 with probability p = {p} and multiplies "
            "the kept ones by 1/(1-p) = {scale}, so every element keeps its expected value. On a "
            "matrix of ones you see the mask itself."}},
          {"dropout/dropout_ones#p0",
           {"torch.nn.Dropout({p})(torch.ones({T}, {T})): p = 0 keeps everything",
            "With p = 0 dropout keeps every element and scales by 1/(1-0) = 1: the output is the "
            "input, and no random numbers are drawn."}},
          {"dropout/dropout_ones#p1",
           {"torch.nn.Dropout({p})(torch.ones({T}, {T})): p = 1 drops everything",
            "With p = 1 every element is dropped, so the result is all zeros (PyTorch returns "
            "them without drawing random numbers)."}},
          {"dropout/dropout_attn_weights",
           {"the same dropout on attn_weights_causal, seed {seed1}",
            "The same seed drops the same positions; the kept weights are multiplied by {scale}. "
            "Randomly dropping attention weights keeps the model from relying on a few tokens, "
            "which reduces overfitting."}},
          {"dropout/dropout_attn_weights#p0",
           {"the same dropout (p = 0) on attn_weights_causal",
            "With p = 0 the weights pass through unchanged."}},
          {"dropout/dropout_attn_weights#p1",
           {"the same dropout (p = 1) on attn_weights_causal",
            "With p = 1 every weight becomes 0."}},
          {"dropout/dropout_attn_weights_row_sums",
           {"row sums after dropout: no longer 1",
            "Zeros on one side and the 1/(1-p) scaling on the other: the rows no longer sum to 1, "
            "only their expected value is 1; row {far_row} is farthest from it, at {far_sum}. That "
            "is fine, because dropout is used only in training and switched off for inference "
            "(model.eval())."}},
          {"dropout/dropout_attn_weights_row_sums#zero_row",
           {"row sums after dropout: no longer 1, and row {zero_rows} is empty",
            "Zeros on one side and the 1/(1-p) scaling on the other: the rows no longer sum to 1, "
            "only their expected value is 1. Row {zero_rows} lost every weight, so its sum is 0: "
            "in this training step query x({zero_rows}) gets a context vector of zeros. That is "
            "fine, because dropout is used only in training and switched off for inference "
            "(model.eval())."}},
          {"dropout/dropout_attn_weights_row_sums#zero_rows",
           {"row sums after dropout: no longer 1, and rows {zero_rows} are empty",
            "Zeros on one side and the 1/(1-p) scaling on the other: the rows no longer sum to 1, "
            "only their expected value is 1. Rows {zero_rows} lost every weight, so they sum to 0: "
            "in this training step those queries get context vectors of zeros. That is fine, "
            "because dropout is used only in training and switched off for inference "
            "(model.eval())."}},
          {"dropout/dropout_attn_weights_row_sums#p0",
           {"row sums after dropout with p = 0: still 1",
            "Nothing was dropped, so every row still sums to 1."}},
          {"dropout/dropout_attn_weights_row_sums#p1",
           {"row sums after dropout with p = 1: all 0",
            "Everything was dropped, so every row sums to 0."}},
          {"dropout/batch",
           {"torch.stack((inputs,) * {batch}): a batch of {batch} copies",
            "Modules work on batches: stacking {batch} copies of inputs along a new first "
            "dimension gives shape ({batch}, {T}, {d_in}), that is (batch, num_tokens, d_in)."}},
          {"dropout/causal_attention_context_vecs",
           {"CausalAttention({d_in}, {d_out}, {T}, {attn_p}{bias_arg})(batch), seed {seed1}",
            "CausalAttention puts it all together: projections; scores via keys.transpose(1, 2), "
            "which swaps only the last two dimensions since dim 0 is the batch; masked_fill_ with "
            "-inf; the scaled softmax; dropout with p = {attn_p}; and the weighted sum of values. "
            "Shape ({batch}, {T}, {d_out}): a context vector per token and batch item."}},

          // ---- multi-head: section 3.6 ----
          {"multi-head/batch",
           {"torch.stack((inputs,) * {batch}): a batch of {batch} copies",
            "The batch of section 3.5.3, shape ({batch}, {T}, {d_in})."}},
          {"multi-head/wrapper_context_vecs",
           {"MultiHeadAttentionWrapper({d_in}, {d_out}, {T}, {attn_p}, num_heads={heads}{bias_arg})"
            "(batch), seed {seed1}: {heads} heads x d_out {d_out}",
            "Multi-head attention the simple way: {heads} independent CausalAttention heads, each "
            "with its own weights, on the same input; torch.cat(..., dim=-1) puts their outputs "
            "side by side. Shape ({batch}, {T}, {heads} × {d_out} = {wrapper_width})."}},
          {"multi-head/a",
           {"a tensor of shape (b=1, num_heads=2, num_tokens=3, head_dim=4)",
            "The chapter's small example of a batched matrix product: 1 batch item, 2 heads, "
            "3 tokens, 4 numbers per head and token."}},
          {"multi-head/a_at_a_T",
           {"a @ a.transpose(2, 3): one matrix product per head",
            "With 4-D tensors, @ multiplies the last two dimensions and treats the leading ones "
            "(batch, head) as a batch. a.transpose(2, 3) swaps num_tokens and head_dim, so each "
            "head gets its own (3, 4) @ (4, 3) product: shape (1, 2, 3, 3)."}},
          {"multi-head/first_res",
           {"first_head @ first_head.T, equal to the first block above",
            "The first head alone, a[0, 0, :, :] of shape (3, 4): the same (3, 3) matrix as the "
            "first block of a_at_a_T."}},
          {"multi-head/second_res",
           {"second_head @ second_head.T, equal to the second block",
            "And the second head, a[0, 1, :, :]: the second block. MultiHeadAttention relies on "
            "exactly this to compute all heads in one product."}},
          {"multi-head/keys",
           {"W_key(x) of MultiHeadAttention({d_in}, {d_out}, {T}, {attn_p}, num_heads={heads}"
            "{bias_arg}), seed {seed1}",
            "MultiHeadAttention does the work of all heads with one set of projections: W_query, "
            "W_key and W_value are each one nn.Linear({d_in}, {d_out}). Keys for the whole batch, "
            "shape ({batch}, {T}, {d_out})."}},
          {"multi-head/queries", {"W_query(x)", "Queries, shape ({batch}, {T}, {d_out})."}},
          {"multi-head/values", {"W_value(x)", "Values, shape ({batch}, {T}, {d_out})."}},
          {"multi-head/keys_viewed",
           {"keys.view(b, num_tokens, {heads}, {head_dim}): split d_out into {heads} heads of "
            "{head_dim}",
            "view reads the last dimension d_out = {d_out} as num_heads × head_dim = {heads} × "
            "{head_dim} without moving any data: ({batch}, {T}, {d_out}) becomes ({batch}, {T}, "
            "{heads}, {head_dim}). Each head owns its own slice, {head_dim} wide."}},
          {"multi-head/queries_viewed",
           {"queries.view(b, num_tokens, {heads}, {head_dim}): split d_out into {heads} heads of "
            "{head_dim}",
            "The same split for the queries: ({batch}, {T}, {heads}, {head_dim})."}},
          {"multi-head/values_viewed",
           {"values.view(b, num_tokens, {heads}, {head_dim}): split d_out into {heads} heads of "
            "{head_dim}",
            "And for the values: ({batch}, {T}, {heads}, {head_dim})."}},
          {"multi-head/keys_transposed",
           {"keys.transpose(1, 2): heads become a batch dimension (b, num_heads, num_tokens, "
            "head_dim)",
            "transpose(1, 2) swaps num_tokens and num_heads: ({batch}, {T}, {heads}, {head_dim}) "
            "becomes ({batch}, {heads}, {T}, {head_dim}). Now the last two dimensions are one "
            "head's (tokens, features), so @ handles every head at once, as in a_at_a_T."}},
          {"multi-head/queries_transposed",
           {"queries.transpose(1, 2): heads become a batch dimension (b, num_heads, num_tokens, "
            "head_dim)",
            "The same for the queries: ({batch}, {heads}, {T}, {head_dim})."}},
          {"multi-head/values_transposed",
           {"values.transpose(1, 2): heads become a batch dimension (b, num_heads, num_tokens, "
            "head_dim)",
            "And for the values: ({batch}, {heads}, {T}, {head_dim})."}},
          {"multi-head/attn_scores",
           {"queries @ keys.transpose(2, 3): scores for every head",
            "Each head's ({T}, {head_dim}) queries times its ({head_dim}, {T}) keys: shape "
            "({batch}, {heads}, {T}, {T}), one score matrix per batch item and head."}},
          {"multi-head/attn_scores_masked",
           {"attn_scores.masked_fill_(mask_bool, -torch.inf)",
            "The causal mask, applied to every head in place (the trailing underscore) and before "
            "the softmax: future positions become -inf. The mask buffer is (context_length, "
            "context_length), cut to [:num_tokens, :num_tokens] for shorter inputs."}},
          {"multi-head/attn_weights",
           {"softmax(attn_scores / sqrt(head_dim), dim=-1)",
            "The scaled softmax of every head. Here d_k = head_dim = {head_dim}, so the scores are "
            "divided by sqrt({head_dim}) = {sqrt_d_k}. Each row of each head sums to 1; shape "
            "({batch}, {heads}, {T}, {T})."}},
          {"multi-head/attn_weights#dropout",
           {"dropout(softmax(attn_scores / sqrt(head_dim)))",
            "The scaled softmax of every head (d_k = head_dim = {head_dim}, divided by "
            "sqrt({head_dim}) = {sqrt_d_k}), then dropout with p = {attn_p}: kept weights are "
            "scaled by 1/(1-p), so the rows no longer sum to 1. Shape ({batch}, {heads}, {T}, {T})."}},
          {"multi-head/context_vec",
           {"(attn_weights @ values).transpose(1, 2): back to (b, num_tokens, num_heads, head_dim)",
            "Each head's weighted sum of its values gives ({batch}, {heads}, {T}, {head_dim}); "
            "transpose(1, 2) moves the heads back behind the tokens: ({batch}, {T}, {heads}, "
            "{head_dim})."}},
          {"multi-head/context_vec_merged",
           {"context_vec.contiguous().view(b, num_tokens, d_out): heads side by side",
            "After transpose the numbers are no longer stored row by row in memory, which view "
            "requires, hence .contiguous() (a copy). view then merges the heads: ({batch}, {T}, "
            "{heads}, {head_dim}) becomes ({batch}, {T}, {d_out}), the heads side by side, as "
            "torch.cat did in the wrapper."}},
          {"multi-head/out_proj.weight",
           {"out_proj: nn.Linear(d_out, d_out), always with a bias",
            "A final linear layer mixes the heads' outputs, which the wrapper could not do. Its "
            "weight has shape ({d_out}, {d_out}), drawn after W_query, W_key and W_value."}},
          {"multi-head/out_proj.bias",
           {"out_proj.bias",
            "Its bias, shape ({d_out},): out_proj keeps nn.Linear's default bias=True whatever "
            "qkv_bias is."}},
          {"multi-head/mha_context_vecs",
           {"out_proj(context_vec_merged): the module's output",
            "The context vectors of MultiHeadAttention, shape ({batch}, {T}, {d_out}). In the "
            "wrapper every head produced d_out = {d_out} numbers, {wrapper_width} in all; here "
            "d_out is the total, split into {heads} heads of {head_dim}."}},
          {"multi-head/exercise_3_2_context_vecs",
           {"Exercise 3.2: MultiHeadAttentionWrapper({d_in}, 1, {T}, {attn_p}, num_heads=2"
            "{bias_arg})(batch), seed {seed1}",
            "Exercise 3.2: for 2-dimensional context vectors from 2 heads, give each head "
            "d_out = 1; torch.cat joins the two 1-wide outputs. Shape ({batch}, {T}, 2)."}},
          {"multi-head/exercise_3_3_num_params",
           {"Exercise 3.3: parameters of MultiHeadAttention({ex_d}, {ex_d}, {ex_context}, 0.0, "
            "num_heads={ex_heads}), GPT-2 sized",
            "Exercise 3.3: the smallest GPT-2 has {ex_d}-dimensional embeddings, {ex_heads} heads "
            "and a context of {ex_context} tokens. sum(p.numel() for p in mha.parameters()) gives "
            "{ex_total}: four {ex_d} × {ex_d} matrices plus out_proj's bias. The context length "
            "only sizes the mask, a buffer, not a parameter."}},
      },
      {
          {"softmax_sums_to_1", "the softmax weights sum to 1"},
          {"softmax_rows_sum_to_1", "the softmax weights sum to 1 in every row"},
          {"rows_sum_to_1", "every row sums to 1 again"},
          {"res_equals_attn_scores_2_0", "res equals attn_scores_2[0]"},
          {"all_context_vecs_equal_loop",
           "every row of all_context_vecs equals the loop version Σ_j αij x(j)"},
          {"softmax_naive_equals_torch_softmax", "softmax_naive equals torch.softmax"},
          {"softmax_stays_finite", "torch.softmax(big_scores_2) is finite and sums to 1"},
          {"attn_score_22_in_attn_scores_2", "attn_scores_2[{q}] equals attn_score_22"},
          {"sa_v1_row_equals_context_vec_2",
           "row {query} of sa_v1_output equals context_vec_2: same seed {seed1}, same weights"},
          {"exercise_3_1_outputs_equal",
           "Exercise 3.1: SelfAttention_v1 and SelfAttention_v2 give the same output"},
          {"causal_no_future_weight", "every weight above the diagonal is 0: no attention to future tokens"},
          {"masked_simple_norm_equals_inf_method", "masked_simple_norm equals the -inf method"},
          {"dropout_kept_scaled", "every entry is 0 or 1/(1-p) = {scale}"},
          {"dropout_rows_no_longer_sum_to_1",
           "after dropout, the rows no longer sum to 1, as expected: row {far_row} sums to {far_sum}"},
          {"dropout_p0_rows_still_sum_to_1", "with p = 0, every row still sums to 1"},
          {"wrapper_first_head_equals_causal_attention",
           "the wrapper's first head equals CausalAttention's output: same seed {seed1}, same weights"},
          {"head_products_equal_batched", "first_res and second_res equal the blocks of a_at_a_T"},
          {"exercise_3_3_count_by_hand",
           "Exercise 3.3: the count equals 3 × {ex_d}² + ({ex_d}² + {ex_d}) worked by hand"},
      },
      {
          {"section", "chapter {chapter}, section {section}"},
          {"input", "input"},
          {"note", "note"},
          {"max_diff", "largest difference"},
          // Heatmap and HTML page words (src/render/heatmap_*.cpp, html.cpp).
          {"heatmap.title", "heatmap of {}: rows are queries (i), columns are keys (j)"},
          {"heatmap.scale", "scale"},
          {"heatmap.zero", "exactly 0"},
          {"heatmap.masked", "-inf (masked)"},
          {"heatmap.invalid", "nan or +inf"},
          {"heatmap.batch", "batch {}"},
          {"heatmap.batch_head", "batch {}, head {}"},
          {"heatmap.sampled", "{} tokens: drawing {} evenly spaced rows and columns, from the first token to "
                   "the last; every cell is a real entry"},
          {"heatmap.repeated_one", "batch {} is identical to batch 0 (the batch stacks copies of the same "
                        "inputs), so it is drawn once"},
          {"heatmap.repeated_many", "batches {} are identical to batch 0 (the batch stacks copies of the "
                         "same inputs), so they are drawn once"},
          {"heatmap.left_out", "{} more blocks are not drawn"},
          {"heatmap.colon", ": "},
          {"heatmap.rows", "rows: queries (i)"},
          {"heatmap.cols", "columns: keys (j)"},
          {"page.contents", "Contents"},
          {"page.steps", "{} steps"},
          {"page.all_stages", "all stages"},
          {"page.settings", "settings"},
          {"page.generated", "Generated by attn-walk {}. Tensors are printed as PyTorch prints them."},
          {"page.chapter", "Build a Large Language Model (From Scratch), chapter 3"},
          {"step_prompt", "-- Enter: next step, q: quit -- "},
          {"stage.dot-product", "attention scores as dot products, softmax weights, context vectors"},
          {"stage.softmax", "normalising scores: sum, naive exp, and the stable softmax"},
          {"stage.trainable",
           "W_query, W_key, W_value; scaled dot-product; SelfAttention_v1 and v2; exercise 3.1"},
          {"stage.causal", "masking future tokens: the tril method and the -inf method"},
          {"stage.dropout", "dropout masks on attention weights; the CausalAttention class"},
          {"stage.multi-head",
           "MultiHeadAttentionWrapper and MultiHeadAttention, every intermediate; exercises 3.2 "
           "and 3.3"},
          {"note.dropout_kernel.default",
           "dropout masks: PyTorch's default CPU kernel, as printed in the book (macOS, ARM, AMD, "
           "PyTorch 2.7+)"},
          {"note.dropout_kernel.mkl",
           "dropout masks: the MKL kernel (PyTorch 1.13-2.6 pip/conda builds on Intel x86), so "
           "they differ from the book's"},
          {"word.total", "total"},
      },
  };
}

const LangTable& lang_en() {
  static const LangTable t = with_parts(chapter_en());
  return t;
}

}  // namespace attn
