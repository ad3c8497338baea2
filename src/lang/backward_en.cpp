// English texts of the backward stage (src/stages/backward.cpp): chapter 5's loss around
// chapter 3's MultiHeadAttention, every gradient with its rule, and the training steps.
#include "lang/backward.h"

namespace attn {

LangTable backward_en() {
  LangTable t;
  t.code = "en";
  t.steps = {
      // ---- forward ----
      {"backward/batch",
       {"batch: the first {T} tokens, {batch} copies (the inputs)",
        "Chapter 5's data loader shifts the text by one token: the inputs are tokens 1..{T}, the "
        "targets tokens 2..{T}+1. Shape ({batch}, {T}, {d_in})."}},
      {"backward/targets",
       {"targets: the next token of every input, as ids",
        "Each distinct label of the input gets an id in order of first appearance ({V} labels). "
        "Position t's target is the id of token t + 1."}},
      {"backward/batch#text",
       {"batch = tok_emb(ids) + pos_emb(arange({T})): the first {T} tokens, {batch} copies",
        "Chapter 5's data loader shifts the text by one token: the inputs are tokens 1..{T}, the "
        "targets tokens 2..{T}+1. tok_emb and pos_emb are the tables --text drew the input "
        "embeddings from, and here they are parameters: the loss reaches them through this sum. "
        "Shape ({batch}, {T}, {d_in})."}},
      {"backward/targets#text",
       {"targets: the next token of every input, as GPT-2 ids",
        "The ids are the tokenizer's: out_head scores all {V} tokens of GPT-2's vocabulary, as "
        "GPTModel's does. Position t's target is the id of token t + 1."}},
      {"backward/keys", {"keys = W_key(batch)", "The forward pass of MultiHeadAttention starts as in section 3.6.2."}},
      {"backward/queries", {"queries = W_query(batch)", "(b, T, d_out)."}},
      {"backward/values", {"values = W_value(batch)", "(b, T, d_out)."}},
      {"backward/keys_viewed", {"keys.view(b, T, {heads}, {head_dim})", "The last dimension split into heads."}},
      {"backward/queries_viewed", {"queries.view(b, T, {heads}, {head_dim})", "The same split for queries."}},
      {"backward/values_viewed", {"values.view(b, T, {heads}, {head_dim})", "The same split for values."}},
      {"backward/keys_transposed", {"keys.transpose(1, 2)", "Heads become a batch dimension: (b, {heads}, T, {head_dim})."}},
      {"backward/queries_transposed", {"queries.transpose(1, 2)", "(b, {heads}, T, {head_dim})."}},
      {"backward/values_transposed", {"values.transpose(1, 2)", "(b, {heads}, T, {head_dim})."}},
      {"backward/attn_scores", {"attn_scores = queries @ keys.transpose(2, 3)", "Every head's scores: (b, {heads}, T, T)."}},
      {"backward/attn_scores_masked",
       {"attn_scores masked with -inf above the diagonal", "The future is hidden before the softmax."}},
      {"backward/attn_weights",
       {"attn_weights = softmax(attn_scores / √{head_dim}), then dropout",
        "With --attn-dropout the model trains in training mode: the mask is drawn now and the "
        "backward pass multiplies by the same mask."}},
      {"backward/context_vec", {"context_vec = (attn_weights @ values).transpose(1, 2)", "(b, T, {heads}, {head_dim})."}},
      {"backward/context_vec_merged", {"context_vec.contiguous().view(b, T, {d_out})", "The heads merged again."}},
      {"backward/context_vecs", {"context_vecs = out_proj(context_vec_merged)", "mha's output: (b, T, {d_out})."}},
      {"backward/logits",
       {"logits = out_head(context_vecs): one score per label",
        "out_head = nn.Linear({d_out}, {V}, bias=False), drawn right after mha from the same "
        "random stream, as GPTModel's out_head: (b, T, {V})."}},
      {"backward/logits#text",
       {"logits = out_head(context_vecs): one score per GPT-2 token",
        "out_head = nn.Linear({d_out}, {V}, bias=False), drawn right after mha from the same "
        "random stream, as GPTModel's out_head: (b, T, {V})."}},
      {"backward/loss#text",
       {"loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten()) (step {grad_step})",
        "Chapter 5's calc_loss_batch: log_softmax over all {V} tokens, then the mean over the {N} "
        "positions of -log p(target). Here {loss}; guessing uniformly would give ln {V} = 10.82."}},
      {"backward/loss",
       {"loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten()) (step {grad_step})",
        "Chapter 5's calc_loss_batch: log_softmax over the {V} labels, then the mean over the {N} "
        "positions of -log p(target). Here {loss}; guessing uniformly would give ln {V}."}},
      // ---- backward ----
      {"backward/logits.grad",
       {"logits.grad = (softmax(logits) - one_hot(targets)) / {N} (step {grad_step})",
        "d loss / d logits: the mean over N = {N} positions puts 1/N in front, and the "
        "derivative of -log softmax is p - one_hot. Position 1: its target {target0} has p = "
        "{p_target0}, so its gradient is ({p_target0} - 1) / {N} = {logits_grad_target0}; label "
        "{other0} has p = {p_other0}, so {p_other0} / {N} = {logits_grad_other0}. Each row sums to 0. "
        "These gradients, and the forward pass above them, are training step {grad_step}'s of "
        "{steps} (--grad-step): a .grad printed after the loop is the last step's."}},
      {"backward/logits.grad#nonfinite",
       {"logits.grad = (softmax(logits) - one_hot(targets)) / {N} (step {grad_step})",
        "d loss / d logits: the mean over N = {N} positions puts 1/N in front, and the "
        "derivative of -log softmax is p - one_hot. Here the logits are not all finite: a float32 "
        "overflowed in the forward pass, softmax gives NaN (position 1: p = {p_target0} for its "
        "target {target0}), and so does every gradient it reaches. These are training step "
        "{grad_step}'s of {steps} (--grad-step)."}},
      {"backward/out_head.weight.grad",
       {"out_head.weight.grad = logits.grad.T @ context_vecs, summed over batch and tokens (step {grad_step})",
        "For y = x @ W.T, dW = grad_yᵀ · x: every position adds the outer product of its gradient "
        "and its input. Shape ({V}, {d_out}), as the weight."}},
      {"backward/context_vecs.grad",
       {"context_vecs.grad = logits.grad @ out_head.weight (step {grad_step})",
        "For y = x @ W.T, dx = grad_y · W: the gradient flows back through the same weights."}},
      {"backward/out_proj.weight.grad",
       {"out_proj.weight.grad = context_vecs.grad.T @ context_vec_merged (step {grad_step})",
        "A Linear's weight.grad is grad_outᵀ · input, summed over batch and tokens."}},
      {"backward/out_proj.bias.grad",
       {"out_proj.bias.grad = context_vecs.grad summed over batch and tokens (step {grad_step})",
        "The bias is added to every position, so its gradient is the sum of their gradients."}},
      {"backward/context_vec_merged.grad",
       {"context_vec_merged.grad = context_vecs.grad @ out_proj.weight (step {grad_step})",
        "Back through out_proj; view and transpose only move these numbers to (b, {heads}, T, {head_dim})."}},
      {"backward/attn_weights.grad",
       {"attn_weights.grad = context_vec.grad @ values.T (step {grad_step})",
        "context = attn_weights @ values, so d attn_weights = grad · valuesᵀ: weight (i, j) gets "
        "the dot product of query i's gradient with value j. Masked weights get a gradient too: "
        "they were 0, but moving them would change the output."}},
      {"backward/attn_scores.grad",
       {"attn_scores.grad: softmax's backward, / √{head_dim}, ±0 at the mask (step {grad_step})",
        "A softmax's backward is w ⊙ (g − Σ g⊙w): each weight's gradient minus the weighted "
        "average of the row's gradients, times the weight. So every row sums to 0 (raising all "
        "scores of a row equally changes nothing), and the masked scores get 0: they were "
        "overwritten with -inf, so their weight w is 0 and the loss does not depend on them. "
        "Then 1/√{head_dim} from the scaling. The book masks in place (attn_scores.masked_fill_), "
        "so this is the masked tensor's gradient, and a 0 keeps the sign of the product: +0 × "
        "(g − Σ g⊙w) prints as -0.0000e+00 where that difference is negative ({masked_negative_zeros} "
        "of the {masked_entries} masked entries here). masked_fill's backward hands +0 on to the "
        "queries and keys."}},
      {"backward/values.grad",
       {"values.grad = attn_weights.T @ context_vec.grad, heads merged (step {grad_step})",
        "Value j's gradient is the sum of the context gradients of the queries that attend to "
        "it, weighted by their attention: the last token's value gets only its own."}},
      {"backward/W_value.weight.grad",
       {"W_value.weight.grad = values.grad.T @ batch (step {grad_step})",
        "grad_outᵀ · input, summed over batch and tokens: ({d_out}, {d_in})."}},
      {"backward/W_value.bias.grad", {"W_value.bias.grad: values.grad summed over batch and tokens (step {grad_step})", "qkv_bias=True."}},
      {"backward/queries.grad",
       {"queries.grad = attn_scores.grad @ keys, heads merged (step {grad_step})",
        "scores = q · kᵀ, so dq = grad · k. The first query sees only the first key, whose "
        "weight is always 1: its gradient is 0."}},
      {"backward/queries.grad#nonfinite",
       {"queries.grad = attn_scores.grad @ keys, heads merged (step {grad_step})",
        "scores = q · kᵀ, so dq = grad · k. The scores' gradient is not finite here, so neither is "
        "this one. With finite numbers the first query's gradient is 0: it sees only the first "
        "key, whose weight is always 1."}},
      {"backward/W_query.weight.grad",
       {"W_query.weight.grad = queries.grad.T @ batch (step {grad_step})", "grad_outᵀ · input, summed over batch and tokens."}},
      {"backward/W_query.bias.grad", {"W_query.bias.grad: queries.grad summed (step {grad_step})", "qkv_bias=True."}},
      {"backward/keys.grad",
       {"keys.grad = attn_scores.grad.T @ queries, heads merged (step {grad_step})", "scores = q · kᵀ, so dk = gradᵀ · q."}},
      {"backward/W_key.weight.grad",
       {"W_key.weight.grad = keys.grad.T @ batch (step {grad_step})", "grad_outᵀ · input, summed over batch and tokens."}},
      {"backward/W_key.bias.grad", {"W_key.bias.grad: keys.grad summed (step {grad_step})", "qkv_bias=True."}},
      {"backward/pos_emb.weight.grad",
       {"pos_emb.weight.grad: batch.grad summed over the {batch} copies, one row per position (step {grad_step})",
        "batch = tok_emb(ids) + pos_emb(positions): the sum passes its gradient to both. The "
        "positions' (T, D) table was broadcast over the copies, so its gradient is batch.grad "
        "summed over them; nn.Embedding's backward puts row t at position t. The last row is "
        "0: token {T}+1 is only a target, never an input."}},
      {"backward/tok_emb.weight.grad",
       {"tok_emb.weight.grad: each input's gradient added into its token's row (step {grad_step})",
        "nn.Embedding's backward adds batch.grad at every position into the row of the id "
        "there, in order: a repeated token's row gets the sum of its positions' gradients. "
        "Here row {tok_id} ('{tok_piece}', {tok_count}× in the inputs, so at {tok_positions} "
        "positions with the copies) is the sum of {tok_positions} rows of batch.grad. Only the "
        "{tok_rows} rows of the input ids can be nonzero; the other {zero_rows} are exactly 0. "
        "So the print() here is of those {tok_rows} rows, tok_emb.weight.grad[[ids]], as the "
        "label says: print() of the whole table would show its first 3 and last 3 rows, all 0."}},
      // ---- the first update ----
      {"backward/step1.exp_avg",
       {"AdamW step 1, W_query.weight: exp_avg = 0.9·0 + 0.1·grad",
        "The first moment: a running mean of the gradient (β₁ = 0.9)."}},
      {"backward/step1.exp_avg_sq",
       {"exp_avg_sq = 0.999·0 + 0.001·grad²",
        "The second moment: a running mean of the squared gradient (β₂ = 0.999)."}},
      {"backward/step1.update",
       {"the update of W_query.weight in step 1 (after − before)",
        "param·(1 − lr·wd) − lr/(1 − β₁) · exp_avg / (√(exp_avg_sq/(1 − β₂)) + ε): after bias "
        "correction, step 1 moves every weight by about −lr·sign(grad) = ∓{lr}, whatever the "
        "gradient's size, plus the decay lr·wd·param."}},
      {"backward/step1.update#nonfinite",
       {"the update of W_query.weight in step 1 (after − before)",
        "param·(1 − lr·wd) − lr/(1 − β₁) · exp_avg / (√(exp_avg_sq/(1 − β₂)) + ε). Where the "
        "gradient is not finite, neither is the update. A finite gradient moves its weight by "
        "about −lr·sign(grad) = ∓{lr} in step 1, plus the decay lr·wd·param."}},
      {"backward/step1.update#sgd",
       {"the update of W_query.weight in step 1 (after − before)",
        "SGD: −lr · (grad + wd·param) = −{lr} · (grad + {weight_decay}·param). torch.optim.SGD adds "
        "its weight_decay to the gradient (L2), and its default is 0: then the update is −lr · grad."}},
      {"backward/step1.W_query.weight", {"W_query.weight after step 1", "before + update."}},
      // ---- after training ----
      {"backward/losses",
       {"losses: the loss before each of the {steps} updates",
        "{optimizer}, lr {lr}: train_model_simple's loop (zero_grad, loss, backward, step)."}},
      {"backward/tok_emb.weight",
       {"tok_emb.weight after {steps} steps",
        "The trained table. AdamW's decay shrinks every row by (1 − lr·wd) per step, also the "
        "rows of tokens not in the text, whose gradient is 0."}},
      {"backward/pos_emb.weight", {"pos_emb.weight after {steps} steps", "The trained position table."}},
      {"backward/W_query.weight", {"W_query.weight after {steps} steps", "The trained parameter."}},
      {"backward/W_query.bias", {"W_query.bias after {steps} steps", "The trained parameter."}},
      {"backward/W_key.weight", {"W_key.weight after {steps} steps", "The trained parameter."}},
      {"backward/W_key.bias", {"W_key.bias after {steps} steps", "The trained parameter."}},
      {"backward/W_value.weight", {"W_value.weight after {steps} steps", "The trained parameter."}},
      {"backward/W_value.bias", {"W_value.bias after {steps} steps", "The trained parameter."}},
      {"backward/out_proj.weight", {"out_proj.weight after {steps} steps", "The trained parameter."}},
      {"backward/out_proj.bias", {"out_proj.bias after {steps} steps", "The trained parameter."}},
      {"backward/out_head.weight", {"out_head.weight after {steps} steps", "The trained parameter."}},
      {"backward/attn_weights_untrained",
       {"attention weights before training (eval mode, first sequence)", "mha.eval(): no dropout."}},
      {"backward/attn_weights_trained",
       {"attention weights after {steps} steps (eval mode, first sequence)",
        "Compare with the untrained ones: training moved the attention to the tokens that help "
        "predict the next one."}},
      {"backward/attn_weights_trained#nonfinite",
       {"attention weights after {steps} steps (eval mode, first sequence)",
        "These weights are not all finite: a float32 overflowed on the way, and there is no "
        "pattern here to compare with the untrained one."}},
  };
  t.checks = {
      {"scores_grad_rows_sum_to_zero", "every row of attn_scores.grad sums to 0"},
      {"masked_scores_grad_exactly_zero", "the masked entries of attn_scores.grad are exactly 0 (+0 or -0)"},
      {"grad_matches_finite_difference",
       "W_query.weight.grad[0, 0] agrees with a float64 central difference of the loss (h = 1e-3): within 1e-6 + 1e-3 × |difference|"},
  };
  t.ui = {
      {"stage.backward", "how attention learns: the loss, every gradient, and training steps"},
      {"list.training", "training (walked only by name):"},
      {"training_section", "chapter 5's loss around chapter 3's module ({section})"},
  };
  return t;
}

}  // namespace attn
