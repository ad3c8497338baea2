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
      {"check.training",
       "graded against chapter 5's loop: {optimizer}(lr={lr}, weight_decay={weight_decay}), {steps} steps, batch {batch}, "
       "seed {seed}, the gradients of step {grad_step} (--optimizer, --lr, --weight-decay, --steps, --batch, --seed, --grad-step)."},
      {"check.grad_step_moved",
       "Your .grad tensors are step {to}'s, not step {from}'s (a .grad printed after the loop holds the last step's): "
       "they are graded against step {to}'s, as --grad-step {to} shows them."},
      {"check.grad_step_ask",
       "No known mistake gives your {step}, and it is neither step {from}'s gradient nor the last step's ({steps}): "
       "if you printed it at another step, give that step with --grad-step."},
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
       "{step}; attn-walk --stage {stage}{options} --only {step} --explain shows it step by step."},
      {"check.no_diagnosis_shape",
       "no known mistake reproduces your {step}. Compare its shape with the chapter's code for "
       "{step}; attn-walk --stage {stage}{options} --only {step} --explain shows it step by step."},
      {"check.own.rows_sum_to_1", "your {step} itself: every row sums to 1, as the chapter's does (largest |row sum - 1| {diff})"},
      {"check.own.zero_above_diagonal",
       "your {step} itself: 0 above the diagonal, no weight on a later token, as the chapter's (largest |value| there {diff})"},
      {"check.same_numbers",
       " The same numbers come from {others} too: the tensors you gave cannot tell these causes apart; look for each in your code."},
      {"check.over.queries", "over the queries (dim=-2), so each column sums to 1"},
      {"check.over.batch", "over the batch: with {batch} identical copies, every weight not masked is 1/{batch} = {share}, and a masked one nan"},
      {"check.over.heads", "over the heads, so the heads' weights for one query and key sum to 1"},
      {"check.dropout_at.scores_before_mask", "on the scores before the mask (then the softmax)"},
      {"check.dropout_at.scores_after_mask", "on the masked scores (a -inf dropped is -inf * 0 = nan; then the softmax)"},
      {"check.dropout_at.unmasked_weights", "on the unmasked weights, with no mask after it"},
      {"check.dropout_at.before_renormalising", "on the unmasked weights, then masked with mask_simple and renormalised (which undoes its scale)"},
      {"check.same_row", "; that row is now inputs[{other_row}]: the same row twice"},
      {"check.losses_leave", " (your losses leave the chapter's at step {loss_step}: {your_loss} where the chapter has {chapter_loss})"},
      {"check.loss_ratio", " (your first loss is {ratio} times the chapter's)"},
      {"check.losses_spread", " (your losses stay within {spread} of the first)"},
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
      {"check.mistake.input_row_picked_wrong",
       "your x_2 is inputs[{row}], x({x}) \"{token}\": the chapter's 2nd token is inputs[{chapter_row}], "
       "\"{chapter_token}\" (Python counts rows from 0, the book's x(2) from 1). The rest of your cell is the "
       "book's: keys_2 = keys[{chapter_row}], and every tensor you gave agrees."},
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
       "your {step} equals what summing the columns (dim=0) would give, not the rows: write masked_simple.sum(dim=-1, keepdim=True), each query's own weights."},
      {"check.mistake.mask_filled_with_zero",
       "your {step} equals what filling the hidden scores with 0, not -inf, would give: exp(0) = 1 is not 0, so later tokens keep weight after the softmax. Write attn_scores.masked_fill_(mask.bool(), -torch.inf)."},
      {"check.mistake.mask_after_softmax",
       "your {step} equals the softmax of the unmasked scores with the mask filled in afterwards "
       "(masked_fill(mask.bool(), {fill}) on the weights): the rows no longer sum to 1. Mask the scores with "
       "-torch.inf before the softmax."},
      {"check.mistake.cat_wrong_dim",
       "your {step} equals what concatenating the heads along dim={dim} would give: torch.cat([head(x) for head in self.heads], dim=-1) puts them side by side, (b, num_tokens, num_heads * d_out)."},
      {"check.mistake.wrong_seed",
       "your tensors equal what torch.manual_seed({used}) gives where the chapter seeds {chapter}: the "
       "chapter uses 123 before most modules and 789 before SelfAttention_v2 (--seed changes both)."},
      {"check.mistake.bias_left_on",
       "your tensors equal what nn.Linear with bias=True gives, nn.Linear's default: the chapter builds its "
       "layers with bias=qkv_bias, False. Pass bias=qkv_bias, or grade with --qkv-bias, with which every "
       "tensor you gave matches."},
      {"check.mistake.query_key_swapped",
       "your {step} equals what W_query and W_key swapped would give (queries = W_key(x), or the scores as keys @ queries.T): queries must come from W_query and keys from W_key, and the scores are queries @ keys.T (keys.transpose(...) in the classes). In exercise 3.1, copy sa_v2.W_query.weight.T into sa_v1.W_query and sa_v2.W_key.weight.T into sa_v1.W_key."},
      {"check.mistake.scale_missing",
       "your {step} equals what scores not divided by sqrt(d_k) would give: write torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)."},
      {"check.mistake.scale_by_d_k",
       "your {step} equals what dividing the scores by d_k instead of its square root would give: write attn_scores / keys.shape[-1]**0.5, not attn_scores / keys.shape[-1]."},
      {"check.mistake.softmax_wrong_dim",
       "your {step} equals what torch.softmax(..., dim={dim}) would give: it normalises {over}, not each query's row of weights. Use dim=-1."},
      {"check.mistake.normalized_wrong_tensor",
       "your {step} equals what renormalising the wrong tensor would give: divide masked_simple (the masked weights) by its own row sums, row_sums = masked_simple.sum(dim=-1, keepdim=True), not mask_simple or the unmasked attn_weights."},
      {"check.mistake.keepdim_missing",
       "your {step} equals what row_sums without keepdim would give: write masked_simple.sum(dim=-1, keepdim=True); a (T,) vector divides the columns, not the rows."},
      {"check.mistake.mask_wrong_triangle",
       "your {step} equals what masking the wrong triangle would give: keep with torch.tril(torch.ones(T, T)) and hide with torch.triu(torch.ones(T, T), diagonal=1); the diagonal (a token seeing itself) stays visible."},
      {"check.mistake.masked_fill_result_discarded",
       "your {step} equals what scores never masked would give: masked_fill returns a new tensor, so assign it (attn_scores = attn_scores.masked_fill(...)) or use the in-place masked_fill_(...)."},
      {"check.mistake.attn_scores_changed_in_place",
       "your attn_scores equals the scores with the -inf mask already in them: masked_fill_ changes the tensor in place, after you kept it. The attention is right; to dump the scores before masking, keep attn_scores.clone()."},
      {"check.mistake.dropout_scaled_by_p",
       "your {step} equals what kept values scaled by 1/p instead of 1/(1-p) would give: with p = {p}, dropout keeps a share 1-p of the values and multiplies them by 1/(1-p), so the expected value stays the same."},
      {"check.mistake.view_instead_of_transpose",
       "your {step} equals what splitting the heads with a view alone would give: write keys.view(b, num_tokens, num_heads, head_dim).transpose(1, 2) (and the same for queries and values); view(b, num_heads, num_tokens, head_dim) mixes tokens and heads."},
      {"check.mistake.context_not_transposed",
       "your {step} equals what merging the heads without transposing back would give: write (attn_weights @ values).transpose(1, 2) before .contiguous().view(b, num_tokens, d_out)."},
      {"check.mistake.view_result_discarded",
       "your {step} equals what a discarded merge would give: .contiguous().view(...) returns a new tensor, so write context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)."},
      {"check.mistake.out_proj_missing",
       "your {step} equals the merged heads without out_proj: return self.out_proj(context_vec)."},
      {"check.mistake.weights_not_transposed",
       "your {step} equals what copying nn.Linear's weight without .T would give in exercise 3.1: nn.Linear stores its weight as (d_out, d_in), so copy its transpose: sa_v1.W_query = nn.Parameter(sa_v2.W_query.weight.T), and likewise for W_key and W_value."},
      {"check.mistake.same_head_twice",
       "your {step} equals what the first head used twice would give: second_head = a[0, 1, :, :], not a[0, 0, :, :]."},
      {"check.mistake.seed_not_reset",
       "your {step} equals what a module (or dropout call) without torch.manual_seed(...) right before it would give: its weights (or dropout mask) continue the previous module's random stream. Call torch.manual_seed with the chapter's seed ({seed1}, or {seed2} before SelfAttention_v2) right before it."},
      {"check.mistake.layers_declared_out_of_order",
       "your {step} equals what declaring the layers as {order} would give: each layer draws its {draws} values from the generator in the order __init__ declares it, so {first} took the first {draws} draws after torch.manual_seed, those the chapter's W_query takes. Declare W_query, W_key, W_value in the chapter's order."},
      {"check.mistake.queries_transposed_in_scores",
       "your {step} equals what queries.T @ keys would give: shape {got_shape} = (d_k, d_k) with d_k = {d_k}, one score per pair of features, where queries @ keys.T gives one per pair of tokens, ({T}, {T})."},
      {"check.mistake.attn_weights_transposed",
       "your {step} equals what attn_weights.T @ values would give (differing most at token {x}): each context vector must mix the values by its own row of weights, attn_weights @ values, not by a column."},
      {"check.mistake.dropout_misplaced",
       "your {step} equals what dropout {where} would give, with the chapter's random draws ({nans} nan values; rows off 1 by at most {row_sum_off}, not counting nan rows). The chapter applies dropout to the attention weights after the softmax and the mask: attn_weights = self.dropout(attn_weights)."},
      {"check.mistake.input_inferred",
       "your {step} equals what inputs with {count} value(s) changed would give, read back from your {from} (each row of inputs solved from them): the largest change is row {row} (x({x}) \"{token}\"), column {column}: {got} where the book has {expected} (off by {diff}){same_row}. Check that value of your inputs."},
      {"check.mistake.grad_not_zeroed",
       "your {step} equals what chapter 5's loop without optimizer.zero_grad() would give: each loss.backward() adds its gradients to the .grad the steps before left, so the second update uses the first two steps' gradients summed{losses}. Call optimizer.zero_grad() before loss.backward() in every step."},
      {"check.mistake.softmax_before_cross_entropy",
       "your {step} equals what F.cross_entropy(torch.softmax(logits, dim=-1).flatten(0, 1), ...) would give: cross_entropy applies log_softmax itself, so the logits are softmaxed twice and the loss can never fall below log(1 + (V - 1) / e) = {floor} with V = {V} labels{losses}. Pass the logits themselves to cross_entropy."},
      {"check.mistake.targets_not_shifted",
       "your {step} equals what targets equal to the inputs would give: the model learns to repeat the token it sees, not to predict the next one{losses}. The targets are the inputs shifted by one token, token_ids[i + 1 : i + max_length + 1] in chapter 5's data loader."},
      {"check.mistake.adam_instead_of_adamw",
       "your {step} equals what torch.optim.Adam(params, lr, weight_decay={wd}) would give: Adam adds weight_decay * param to the gradient, inside its moments (L2), while AdamW shrinks each parameter by lr * weight_decay apart from them{losses}. Chapter 5 trains with torch.optim.AdamW."},
      {"check.mistake.loss_summed",
       "your {step} equals what F.cross_entropy(..., reduction=\"sum\") would give: the loss and every gradient are N = {N} times the mean's{ratio_text}{losses}. Keep cross_entropy's default, reduction=\"mean\"."},
      {"check.mistake.grad_zeroed_before_step",
       "your {step} equals what chapter 5's loop with optimizer.zero_grad() between loss.backward() and optimizer.step() would give: the step runs on gradients just set to zero, so only the weight decay moves the parameters{losses}. Call optimizer.zero_grad() before loss.backward() (or after optimizer.step()), never between them."},
      {"check.mistake.optimizer_step_forgotten",
       "your {step} equals what chapter 5's loop without optimizer.step() would give (the same as lr = 0): the gradients are computed and never applied, so no parameter moves{spread_text}{losses}. Call optimizer.step() after loss.backward()."},
      {"check.mistake.dropout_off_in_training",
       "your {step} equals what training without the attention dropout would give: model.eval() (to look at the weights, say) with no model.train() after it turns nn.Dropout({attn_p}) off for the whole loop{losses}. Call model.train() before the loop."},
  };
  return t;
}

}  // namespace attn
