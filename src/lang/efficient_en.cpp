// English texts of the efficient stage (src/stages/efficient.cpp).
#include "lang/bonus.h"

namespace attn {

LangTable efficient_en() {
  LangTable t;
  t.code = "en";
  t.steps = {
      {"efficient/qkv.weight",
       {"qkv.weight: one Linear for queries, keys and values, ({qkv_width}, {d_in})",
        "MultiHeadAttentionCombinedQKV replaces W_query, W_key and W_value by one "
        "nn.Linear({d_in}, 3 * {d_out}), drawn right after torch.manual_seed({seed1}). Its first "
        "{d_out} rows make queries, the next {d_out} keys, the last {d_out} values."}},
      {"efficient/qkv",
       {"qkv = self.qkv(x): queries, keys and values side by side",
        "One matrix product instead of three: ({batch}, {T}, {d_in}) @ ({d_in}, {qkv_width}) gives "
        "({batch}, {T}, {qkv_width}), each token's query, key and value in one row."}},
      {"efficient/qkv_viewed",
       {"qkv.view(b, T, 3, heads, head_dim)",
        "The last dimension is unrolled into (3, {heads}, {head_dim}): which of query/key/value, "
        "which head, which dimension. Shape ({batch}, {T}, 3, {heads}, {head_dim}); no number moves."}},
      {"efficient/qkv_permuted",
       {"qkv.permute(2, 0, 3, 1, 4): (3, b, heads, T, head_dim)",
        "permute puts the query/key/value index first and the heads before the tokens, in one "
        "move where the chapter transposes three tensors: ({batch}, {T}, 3, {heads}, {head_dim}) "
        "-> (3, {batch}, {heads}, {T}, {head_dim})."}},
      {"efficient/queries",
       {"queries, keys, values = qkv.unbind(0): the queries",
        "unbind(0) splits along the first dimension into three (b, heads, T, head_dim) views: "
        "({batch}, {heads}, {T}, {head_dim}), the same layout as the chapter's queries.transpose(1, 2)."}},
      {"efficient/keys", {"the keys, qkv[1]", "({batch}, {heads}, {T}, {head_dim})."}},
      {"efficient/values", {"the values, qkv[2]", "({batch}, {heads}, {T}, {head_dim})."}},
      {"efficient/attn_scores",
       {"queries @ keys.transpose(-2, -1), future masked with -inf",
        "From here on the math is the chapter's: scores per head ({batch}, {heads}, {T}, {T}), "
        "the causal mask filling -inf above the diagonal."}},
      {"efficient/attn_weights",
       {"softmax(attn_scores / √{head_dim})",
        "The scaled softmax: rows sum to 1, zeros above the diagonal."}},
      {"efficient/context_vec",
       {"context_vec: heads merged and projected by proj",
        "(attn_weights @ values).transpose(1, 2) viewed as ({batch}, {T}, {d_out}), then "
        "proj, the module's output projection."}},
      {"efficient/mha_context_vecs",
       {"the chapter's MultiHeadAttention after the same seed {seed1}",
        "Same math, different numbers: the chapter draws W_query's weight and bias, then "
        "W_key's, then W_value's, while qkv draws its whole ({qkv_width}, {d_in}) weight before "
        "its bias, so after the first block each weight gets another random number."}},
      {"efficient/mha_context_vecs#same_draws",
       {"the chapter's MultiHeadAttention after the same seed {seed1}: the same output",
        "Same seed, same numbers: without biases, qkv draws its ({qkv_width}, {d_in}) weight "
        "from the same random stream with the same bound (fan_in = {d_in}) as W_query, W_key "
        "and W_value drawn one after another, so its rows are exactly those three matrices, and "
        "proj is drawn where out_proj is. Try --qkv-bias: each W_* then draws its bias right "
        "after its weight, and the outputs differ."}},
      {"efficient/qkv.weight_copied",
       {"qkv.weight = torch.cat([W_query.weight, W_key.weight, W_value.weight])",
        "The chapter module's three weight matrices stacked as rows, and proj set to its "
        "out_proj: now both modules compute the same function."}},
      {"efficient/context_vec_copied",
       {"MultiHeadAttentionCombinedQKV with the copied weights",
        "Its output equals the chapter's MultiHeadAttention: combining the projections changes "
        "how the work is laid out (one matrix product, one permute), not what is computed."}},
      {"efficient/sdpa_attn_bias",
       {"F.scaled_dot_product_attention's math: attn_bias, 0 or -inf",
        "F.scaled_dot_product_attention arrived after PyTorch 1.13, so here is its math as "
        "steps. With is_causal=True it builds an additive ({T}, {T}) bias: 0 where "
        "torch.ones(L, S).tril() is 1, -inf above the diagonal."}},
      {"efficient/sdpa_scores",
       {"queries @ keys.transpose(-2, -1) * scale_factor, scale_factor = 1 / √{head_dim}",
        "The scores are multiplied by 1 / √{head_dim} instead of divided by √{head_dim}, so a "
        "last bit may differ from the chapter's scores / √{head_dim}. Shape ({batch}, {heads}, {T}, {T})."}},
      {"efficient/sdpa_attn_weight",
       {"torch.softmax(scores + attn_bias, dim=-1)",
        "Adding 0 leaves a score as it is, adding -inf masks it: the same as masked_fill with -inf."}},
      {"efficient/sdpa_output",
       {"attn_weight @ values: what F.scaled_dot_product_attention returns",
        "Shape ({batch}, {heads}, {T}, {head_dim}), before the heads are merged; the module then "
        "transposes, views and applies proj as above."}},
      {"efficient/einsum.W_query",
       {"MHAEinsum's W_query: nn.Parameter(torch.randn({d_out}, {d_in})), then kaiming_uniform_",
        "MHAEinsum keeps plain parameter matrices instead of nn.Linear layers. Right after "
        "torch.manual_seed({seed1}) it fills W_query, W_key and W_value with torch.randn, builds "
        "out_proj (an nn.Linear, which draws its own weight and bias), and only then "
        "reset_parameters() overwrites the three with kaiming_uniform_(a=√5): uniform in "
        "±1/√{d_in}, nn.Linear's own bound. The randn numbers are thrown away, but they were "
        "drawn, so every later number comes from further down the random stream."}},
      {"efficient/einsum_Q",
       {"Q = torch.einsum(\"{einsum_proj_eq}\", x, W_query)",
        "In \"bnd,di->bni\" the index d appears in both inputs and not in the output, so it is "
        "summed over: Q[b, n, i] = Σ_d x[b, n, d] · W_query[d, i], x @ W_query itself (nn.Linear "
        "computes x @ W.T). d is W_query's first dimension, {d_out} long, so the notebook's "
        "equation needs d_in == d_out, as the notebook has. torch.einsum hands this to one bmm "
        "of ({batch}·{T}, {d_in}) @ ({d_in}, {d_out}). Shape ({batch}, {T}, {d_out})."}},
      {"efficient/einsum_Q#linear_eq",
       {"Q = torch.einsum(\"{einsum_proj_eq}\", x, W_query)",
        "The notebook writes \"bnd,di->bni\", which sums x's last dimension ({d_in}) against "
        "W_query's first ({d_out}): it runs only when d_in == d_out, as in the notebook. Here "
        "d_in is {d_in} and d_out {d_out}, so the walk sums against W_query's second dimension "
        "instead, \"bnd,id->bni\": Q[b, n, i] = Σ_d x[b, n, d] · W_query[i, d], x @ W_query.T, "
        "what nn.Linear computes with the same ({d_out}, {d_in}) weight. Try --d-out {d_in} to "
        "see the notebook's equation. Shape ({batch}, {T}, {d_out})."}},
      {"efficient/einsum_scores",
       {"torch.einsum(\"bhnd,bhmd->bhnm\", Q, K): the scores of every head",
        "b and h appear in both inputs and in the output: they are kept, a batch of "
        "{batch}·{heads} matrices. d appears in both inputs only: it is summed, "
        "scores[b, h, n, m] = Σ_d Q[b, h, n, d] · K[b, h, m, d], which is queries @ keys.T "
        "without writing the transpose. torch.einsum permutes K to (b, h, d, m) and calls bmm, "
        "so the numbers are the chapter's attn_scores. Shape ({batch}, {heads}, {T}, {T}), "
        "before the division by √{head_dim}."}},
      {"efficient/einsum_attn_weights",
       {"softmax(masked_fill(scores / √{head_dim}, mask, -inf))",
        "The scaled scores, the future masked with -inf, then softmax over the last dimension."}},
      {"efficient/einsum_context_vec",
       {"einsum(\"bhnm,bhmd->bhnd\", attn_weights, V), heads merged, out_proj",
        "m, the key position, is summed: each query's weighted sum of values. The heads are "
        "merged to ({batch}, {T}, {d_out}) and out_proj applied. Its weights came from other "
        "draws than the chapter module's, so the output is another one."}},
      {"efficient/einsum.W_query_copied",
       {"W_query = MultiHeadAttention's W_query.weight.T",
        "The notebook's equation multiplies by W_query itself, nn.Linear by its weight "
        "transposed: to compute the same function, the chapter's ({d_out}, {d_in}) weight goes "
        "in transposed (so are W_key and W_value); the biases and out_proj are copied as they are."}},
      {"efficient/einsum.W_query_copied#linear_eq",
       {"W_query = MultiHeadAttention's W_query.weight",
        "With \"bnd,id->bni\" MHAEinsum multiplies by W_query.T as nn.Linear does, so the "
        "chapter's weights go in as they are (W_key and W_value too), then the biases and out_proj."}},
      {"efficient/einsum_context_vec_copied",
       {"MHAEinsum with the copied weights",
        "The same function as the chapter's module: the einsum equations only name the "
        "products, torch turns them into the same bmm calls."}},
      {"efficient/torch_mha.in_proj_weight",
       {"nn.MultiheadAttention's in_proj_weight: xavier_uniform_, ({in_proj_width}, {d_out})",
        "The notebook's MHAPyTorchClass wraps torch.nn.MultiheadAttention(embed_dim={d_out}, "
        "num_heads={heads}, bias=qkv_bias, add_bias_kv=qkv_bias, batch_first=True) and adds "
        "its own proj. nn.MultiheadAttention packs W_query, W_key and W_value into one "
        "in_proj_weight, like qkv above, but initialises it itself: xavier_uniform_, uniform in "
        "±√(6 / (fan_in + fan_out)) = ±{xavier_bound}, drawn after out_proj. Its inputs must be "
        "embed_dim = {d_out} wide."}},
      {"efficient/torch_mha.out_proj.weight",
       {"its out_proj.weight, drawn first",
        "out_proj is built in the constructor as an nn.Linear({d_out}, {d_out}), so it draws its "
        "weight (and bias) with nn.Linear's init before _reset_parameters() draws "
        "in_proj_weight; _reset_parameters() then sets in_proj_bias and out_proj.bias to 0."}},
      {"efficient/torch_mha.bias_k",
       {"bias_k: add_bias_kv's extra key, xavier_normal_",
        "With add_bias_kv=True the module has a learned key bias_k and value bias_v, (1, 1, "
        "{d_out}), drawn by xavier_normal_ after in_proj_weight. They are appended to every "
        "sequence's keys and values as one more position that every query can attend to."}},
      {"efficient/torch_mha_attn_mask",
       {"attn_mask: the boolean causal mask as F.multi_head_attention_forward turns it into floats",
        "The notebook passes torch.triu(ones, diagonal=1).bool(), True where a query must not "
        "look. PyTorch turns it into zeros with -inf where True, added to the scores. With an "
        "attn_mask PyTorch 1.13 never takes its fast path (torch._native_multi_head_attention): "
        "F.multi_head_attention_forward runs, step by step below. Shape (1, {T}, {keys_seen})."}},
      {"efficient/torch_mha_attn_mask#bias_kv",
       {"attn_mask: the boolean causal mask as F.multi_head_attention_forward turns it into floats",
        "The notebook passes torch.triu(ones, diagonal=1).bool(), True where a query must not "
        "look. PyTorch turns it into zeros with -inf where True, added to the scores. bias_k "
        "adds a key after the {T} tokens, and the mask gets a column of zeros for it: every "
        "query attends to it. With an attn_mask PyTorch 1.13 never takes its fast path "
        "(torch._native_multi_head_attention): F.multi_head_attention_forward runs, step by "
        "step below. Shape (1, {T}, {keys_seen})."}},
      {"efficient/torch_mha_q_scaled",
       {"q_scaled = q / √{head_dim}, heads folded into the batch",
        "in_proj splits into q, k and v ({T}, {batch}, {d_out}) (batch_first inputs are "
        "transposed to sequence first), viewed as ({T}, {batch}·{heads}, {head_dim}) and "
        "transposed: one batch of {batch}·{heads} heads. The queries are divided by √{head_dim} "
        "before the product, not the scores after it, so the last bits differ from the chapter's."}},
      {"efficient/torch_mha_scores",
       {"torch.baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))",
        "One call computes attn_mask + q_scaled @ k.T: the causal -inf come in by addition. "
        "Shape ({batch}·{heads}, {T}, {keys_seen})."}},
      {"efficient/torch_mha_attn_weights",
       {"softmax(scores, dim=-1)",
        "Rows sum to 1, zeros where the mask put -inf."}},
      {"efficient/torch_mha_attn_output",
       {"attn_output: bmm(attn_weights, v), heads merged, out_proj",
        "What nn.MultiheadAttention returns first, batch first again: ({batch}, {T}, {d_out})."}},
      {"efficient/torch_mha_avg_weights",
       {"the attention weights it returns: need_weights=True averages over the heads",
        "attn_weights.view({batch}, {heads}, {T}, {keys_seen}).sum(dim=1) / {heads}: one "
        "map per sequence. The notebook throws it away (attn_output, _ = ...)."}},
      {"efficient/torch_mha_context_vec",
       {"MHAPyTorchClass's output: proj(attn_output)",
        "The notebook's wrapper applies one more Linear, proj, after out_proj. Other weights "
        "from other draws: another output than the chapter module's."}},
      {"efficient/torch_mha_context_vec_copied",
       {"nn.MultiheadAttention with the copied weights",
        "in_proj_weight = torch.cat([W_query, W_key, W_value]). The chapter has one output "
        "projection, MHAPyTorchClass two, so out_proj becomes torch.eye({d_out}) and proj the "
        "chapter's out_proj. The output equals the chapter's up to float32 rounding: the "
        "queries were scaled before the product."}},
      {"efficient/torch_mha_context_vec_copied#bias_kv",
       {"nn.MultiheadAttention with the copied weights",
        "in_proj_weight = torch.cat([W_query, W_key, W_value]) and in_proj_bias their biases. "
        "The chapter has one output projection, MHAPyTorchClass two, so out_proj becomes "
        "torch.eye({d_out}) (bias 0) and proj the chapter's out_proj. The chapter's module has "
        "no bias_k and bias_v: they are set to None, or every query would still see one more "
        "key. The output equals the chapter's up to float32 rounding: the queries were scaled "
        "before the product."}},
  };
  t.checks = {
      {"efficient_outputs_differ_by_weights",
       "the two modules' outputs differ: same math, different random weights"},
      {"efficient_same_draws",
       "without biases qkv.weight is torch.cat([W_query, W_key, W_value]) bit for bit, and the outputs are equal"},
      {"efficient_sdpa_equals_chapter_math",
       "scaled_dot_product_attention's math gives the chapter's attn_weights @ values (up to float32 rounding)"},
      {"efficient_einsum_differs_by_weights",
       "MHAEinsum's output differs from MultiHeadAttention's: same math, other random weights"},
      {"efficient_einsum_copied_equal_mha",
       "with the chapter module's weights copied in, MHAEinsum's output equals MultiHeadAttention's"},
      {"efficient_torch_mha_differs_by_weights",
       "nn.MultiheadAttention's output differs from MultiHeadAttention's: same math, other weights and init"},
      {"efficient_torch_mha_copied_equal_mha",
       "with the chapter module's weights copied in, nn.MultiheadAttention's output equals MultiHeadAttention's"},
      {"efficient_all_copied_outputs_equal",
       "with copied weights all four modules give the same output (up to float32 rounding)"},
      {"efficient_copied_weights_equal_mha",
       "with the chapter module's weights copied in, the output equals MultiHeadAttention's"},
  };
  t.ui = {
      {"stage.efficient",
       "MultiHeadAttentionCombinedQKV, MHAEinsum and nn.MultiheadAttention: same math, other weights; equal with copied weights"},
      {"note.efficient_torch_mha_needs_square",
       "nn.MultiheadAttention is left out: its inputs must be embed_dim = d_out wide, as in the "
       "notebook where d_in == d_out. Here d_in is {d_in} and d_out {d_out}: try --d-out {d_in} "
       "(with --heads dividing it)."},
  };
  return t;
}

}  // namespace attn
