// English texts of attn-walk check (src/check/, src/render/check_*.cpp).
#include "lang/check_texts.h"

namespace attn {

LangTable check_en() {
  LangTable t;
  t.code = "en";
  t.ui = {
      {"check.heading", "attn-walk check: stage {stage} (section {section}), {chosen_by}"},
      {"check.chosen_by.option", "as --stage asked."},
      {"check.chosen_by.dump", "the stage of the attn-walk output given."},
      {"check.chosen_by.names", "chosen because its steps include {matched} of the {given} names given (--stage picks another)."},
      {"check.tolerance", "close means |yours - expected| <= {atol} + {rtol} * |expected| everywhere (--atol, --rtol)."},
      {"check.equal", "equal"},
      {"check.close", "close"},
      {"check.differs", "differs"},
      {"check.not_given", "not given"},
      {"check.max_diff", "largest difference {diff} at {index}"},
      {"check.shape", "shape {given}, expected {expected}"},
      {"check.passed", "All {n} tensors given match the chapter: equal or close."},
      {"check.first", "First difference: {step}"},
      {"check.first_shape", "your tensor has shape {given}; the chapter's has shape {expected}."},
      {"check.first_at", "largest difference {diff} at {index}: expected {expected}, yours {got}."},
      {"check.expected_rows", "expected (the chapter, as PyTorch computes it):"},
      {"check.your_rows", "yours (* marks values that are not close):"},
      {"check.diagnoses", "Diagnosis:"},
      {"check.no_diagnosis",
       "no known mistake reproduces your {step}. Compare the rows above with the chapter's code for "
       "{step}; attn-walk --stage {stage} --only {step} --explain shows it step by step."},
      {"check.no_diagnosis_shape",
       "no known mistake reproduces your {step}. Compare its shape with the chapter's code for "
       "{step}; attn-walk --stage {stage} --only {step} --explain shows it step by step."},
      {"check.own.rows_sum_to_1", "your {step} itself: every row sums to 1, as the chapter's does (largest |row sum - 1| {diff})"},
      {"check.own.zero_above_diagonal",
       "your {step} itself: 0 above the diagonal, no weight on a later token, as the chapter's (largest |value| there {diff})"},
      {"check.same_numbers",
       " The same numbers come from {others} too: the tensors you gave cannot tell these causes apart; look for each in your code."},
      {"check.aside", " ({text})"},  // words in brackets after a value
      {"check.size.tokens", "{size} is the number of tokens"},
      {"check.size.d_in", "the width of each input, d_in"},
      {"check.size.d_out_all_heads", "d_out, all heads together; each head's keys have head_dim = {d_k}"},
      {"check.size.heads", "the number of heads"},
      {"check.size.precedence", "Python reads attn_scores / keys.shape[-1]**1/2 as attn_scores / keys.shape[-1] / 2"},
      {"check.size.half", "keys.shape[-1]**1/2 is keys.shape[-1] / 2, not its square root"},
      {"check.size.negative_power", "keys.shape[-1]**-0.5 is 1/sqrt(d_k): dividing by it multiplies"},
      {"check.mistake.picked_wrong_row",
       "your {step} is inputs[{row}], x({x}) \"{token}\"; the chapter's query x({chapter_x}) is inputs[{chapter_row}] "
       "(Python counts from 0), and every tensor you gave agrees with that query."},
      {"check.mistake.input_typed_wrong",
       "{count} value(s) of your inputs differ from the book's; the largest: row {row} (x({x}) \"{token}\"), column "
       "{column}: yours {got}, the book's {expected} (off by {diff}). Every tensor you gave equals what your inputs give."},
      {"check.mistake.wrong_divisor",
       "your {step} equals what dividing the scores by {value} = {expression}, that is {code}{what}, would give "
       "(measured from your weights: {measured}). The chapter divides by sqrt(d_k) = sqrt({d_k}) = {chapter_value}: "
       "attn_scores / keys.shape[-1]**0.5."},
      {"check.mistake.scaled_after_softmax",
       "your {step} equals torch.softmax(attn_scores, dim=-1) / {value} ({expression}, {code}{what}): the division "
       "comes after the softmax, so each row sums to {row_sum}, not 1. Divide the scores first: "
       "torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)."},
      {"check.mistake.sum_wrong_dim",
       "row_sums sums the columns (dim=0), not the rows: write masked_simple.sum(dim=-1, keepdim=True), each "
       "query's own weights."},
      {"check.mistake.mask_filled_with_zero",
       "the hidden scores are filled with 0, not -inf: exp(0) = 1 is not 0, so later tokens keep weight after the "
       "softmax. Write attn_scores.masked_fill_(mask.bool(), -torch.inf)."},
      {"check.mistake.mask_after_softmax",
       "your {step} equals the softmax of the unmasked scores with the mask filled in afterwards "
       "(masked_fill(mask.bool(), {fill}) on the weights): the rows no longer sum to 1. Mask the scores with "
       "-torch.inf before the softmax."},
      {"check.mistake.cat_wrong_dim",
       "the heads are concatenated along dim={dim}: torch.cat([head(x) for head in self.heads], dim=-1) puts "
       "them side by side, (b, num_tokens, num_heads * d_out)."},
      {"check.mistake.wrong_seed",
       "your tensors equal what torch.manual_seed({used}) gives where the chapter seeds {chapter}: the "
       "chapter uses 123 before most modules and 789 before SelfAttention_v2 (--seed changes both)."},
      {"check.mistake.bias_left_on",
       "your tensors equal what nn.Linear with bias=True gives, nn.Linear's default: the chapter builds its "
       "layers with bias=qkv_bias, False. Pass bias=qkv_bias, or grade with --qkv-bias, with which every "
       "tensor you gave matches."},
      {"check.mistake.query_key_swapped",
       "W_query and W_key are swapped: queries must come from W_query and keys from W_key, and the "
       "scores are queries @ keys.T (keys.transpose(...) in the classes), not keys @ queries.T. In "
       "exercise 3.1, copy sa_v2.W_query.weight.T into sa_v1.W_query and sa_v2.W_key.weight.T into sa_v1.W_key."},
      {"check.mistake.scale_missing",
       "the scores are not divided by sqrt(d_k): write torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)."},
      {"check.mistake.scale_by_d_k",
       "the scores are divided by d_k instead of its square root: write attn_scores / keys.shape[-1]**0.5, "
       "not attn_scores / keys.shape[-1]."},
      {"check.mistake.softmax_wrong_dim",
       "the softmax runs over the wrong dimension, so columns sum to 1 instead of rows: use dim=-1 "
       "(each query's row of weights), not dim=0 or dim=-2."},
      {"check.mistake.normalized_wrong_tensor",
       "the wrong tensor is renormalised: divide masked_simple (the masked weights) by its own row sums, "
       "row_sums = masked_simple.sum(dim=-1, keepdim=True), not mask_simple or the unmasked attn_weights."},
      {"check.mistake.keepdim_missing",
       "row_sums lost its keepdim: write masked_simple.sum(dim=-1, keepdim=True); a (T,) vector divides "
       "the columns, not the rows."},
      {"check.mistake.mask_wrong_triangle",
       "the wrong triangle is masked: keep with torch.tril(torch.ones(T, T)) and hide with "
       "torch.triu(torch.ones(T, T), diagonal=1); the diagonal (a token seeing itself) stays visible."},
      {"check.mistake.masked_fill_result_discarded",
       "the mask never reaches the scores: masked_fill returns a new tensor, so assign it "
       "(attn_scores = attn_scores.masked_fill(...)) or use the in-place masked_fill_(...)."},
      {"check.mistake.attn_scores_changed_in_place",
       "your attn_scores already holds the -inf mask: masked_fill_ changes the tensor in place, after "
       "you kept it. The attention is right; to dump the scores before masking, keep attn_scores.clone()."},
      {"check.mistake.dropout_scaled_by_p",
       "kept values are scaled by 1/p instead of 1/(1-p): with p = {p}, dropout keeps a share 1-p of the "
       "values and multiplies them by 1/(1-p), so the expected value stays the same."},
      {"check.mistake.view_instead_of_transpose",
       "the heads are split with a view alone: write keys.view(b, num_tokens, num_heads, head_dim)"
       ".transpose(1, 2) (and the same for queries and values); view(b, num_heads, num_tokens, head_dim) "
       "mixes tokens and heads."},
      {"check.mistake.context_not_transposed",
       "the heads are merged without transposing back: write (attn_weights @ values).transpose(1, 2) "
       "before .contiguous().view(b, num_tokens, d_out)."},
      {"check.mistake.view_result_discarded",
       "the merge is discarded: .contiguous().view(...) returns a new tensor, so write "
       "context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)."},
      {"check.mistake.out_proj_missing",
       "out_proj is missing: return self.out_proj(context_vec), not the merged heads."},
      {"check.mistake.weights_not_transposed",
       "exercise 3.1: nn.Linear stores its weight as (d_out, d_in), so copy its transpose: "
       "sa_v1.W_query = nn.Parameter(sa_v2.W_query.weight.T), and likewise for W_key and W_value."},
      {"check.mistake.same_head_twice",
       "the first head is used twice: second_head = a[0, 1, :, :], not a[0, 0, :, :]."},
      {"check.mistake.seed_not_reset",
       "{step} comes from a module (or dropout call) without torch.manual_seed(...) right before it, so "
       "its weights (or dropout mask) continue the previous module's random stream: call "
       "torch.manual_seed with the chapter's seed ({seed1}, or {seed2} before SelfAttention_v2) right before it."},
  };
  return t;
}

}  // namespace attn
