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
  };
  t.checks = {
      {"efficient_outputs_differ_by_weights",
       "the two modules' outputs differ: same math, different random weights"},
      {"efficient_same_draws",
       "without biases qkv.weight is torch.cat([W_query, W_key, W_value]) bit for bit, and the outputs are equal"},
      {"efficient_sdpa_equals_chapter_math",
       "scaled_dot_product_attention's math gives the chapter's attn_weights @ values (up to float32 rounding)"},
      {"efficient_copied_weights_equal_mha",
       "with the chapter module's weights copied in, the output equals MultiHeadAttention's"},
  };
  t.ui = {
      {"stage.efficient",
       "MultiHeadAttentionCombinedQKV: one qkv Linear, view, permute, unbind; equal with copied weights"},
  };
  return t;
}

}  // namespace attn
