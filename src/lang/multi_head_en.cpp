// English texts of the multi-head stage (src/stages/multi_head.cpp):
// section 3.6.
#include "lang/chapter.h"

#include <map>
#include <string>

namespace attn {

namespace {

// 3.6.1: the wrapper; then the batched product on the fixed tensor a.
std::map<std::string, StepText> wrapper_texts_en() {
  return {
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
  };
}

// --weights: block {layer}'s MultiHeadAttention of a trained GPT (src/stages/multi_head_weights.cpp),
// where the plain texts would say something untrue of it.
std::map<std::string, StepText> weights_texts_en() {
  return {
      {"multi-head/in_idx",
       {"torch.tensor(tokenizer.encode(text)).unsqueeze(0): the {T} token ids",
        "The text's GPT-2 token ids, a batch of one sequence, as chapter 4 feeds them to GPTModel."}},
      {"multi-head/batch#weights",
       {"model.trf_blocks[{layer}].norm1(x): block {layer}'s real input, the one MultiHeadAttention sees",
        "What the model hands block {layer}'s attention for this text: the ids embedded by tok_emb + pos_emb, "
        "through blocks 0 to {layer} - 1, then the block's LayerNorm norm1. One sequence (batch 1), shape "
        "(1, {T}, {d_in})."}},
      {"multi-head/keys#weights",
       {"W_key(x) of trf_blocks[{layer}].att, MultiHeadAttention({d_in}, {d_out}, {context_length}, 0.0, "
        "num_heads={heads}{bias_arg}) with the file's weights",
        "The trained model's own projections: W_query, W_key and W_value are each one nn.Linear({d_in}, "
        "{d_out}) with the weights the file holds for block {layer}. Keys, shape (1, {T}, {d_out})."}},
      {"multi-head/out_proj.weight#weights",
       {"out_proj.weight of trf_blocks[{layer}].att, as trained",
        "The output projection that mixes the heads' outputs, shape ({d_out}, {d_out}), from the file."}},
      {"multi-head/out_proj.bias#weights",
       {"out_proj.bias, as trained", "Its bias, shape ({d_out},), from the file."}},
      {"multi-head/mha_context_vecs#weights",
       {"out_proj(context_vec_merged): the module's output, trf_blocks[{layer}].att(x)",
        "Block {layer}'s attention output, shape (1, {T}, {d_out}): the numbers the model adds to the block's "
        "input (the first shortcut). --stage gpt --layer {layer} shows it as trf_blocks.{layer}.att."}},
  };
}

// 3.6.2: MultiHeadAttention's intermediates; exercises 3.2 and 3.3.
std::map<std::string, StepText> mha_texts_en() {
  return {
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
  };
}

}  // namespace

LangTable multi_head_en() {
  LangTable t;
  t.code = "en";
  t.steps = wrapper_texts_en();
  t.steps.merge(mha_texts_en());
  t.steps.merge(weights_texts_en());
  t.ui = {
      {"note.multi_head_weights",
       "--weights: block {layer} of {n_layers} of {weights}, MultiHeadAttention alone (section 3.6.2) on "
       "the text's real input, in eval() (no dropout) and under torch.no_grad(). The model sets d_out, the "
       "heads and qkv_bias; --d-out, --batch, --qkv-bias, --attn-dropout and --seed do not apply. The "
       "wrapper, the batched-product demonstration and the exercises need no trained weights: walk them "
       "without --weights."},
      {"stage.multi-head",
       "MultiHeadAttentionWrapper and MultiHeadAttention, every intermediate; exercises 3.2 "
       "and 3.3"},
      {"word.total", "total"},
  };
  return t;
}

}  // namespace attn
