// English texts of the dot-product stage (src/stages/dot_product.cpp):
// section 3.3.1-3.3.2, attention without trainable weights.
#include "lang/chapter.h"

namespace attn {

LangTable dot_product_en() {
  LangTable t;
  t.code = "en";
  t.steps = {
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
  };
  t.ui = {
      {"stage.dot-product", "attention scores as dot products, softmax weights, context vectors"},
  };
  return t;
}

}  // namespace attn
