// English texts of the mla stage (src/stages/mla.cpp).
#include "lang/bonus.h"

namespace attn {

LangTable mla_en() {
  LangTable t;
  t.code = "en";
  t.steps = {
      {"mla/W_query.weight",
       {"W_query.weight: queries as in MultiHeadAttention, ({d_out}, {d_in})",
        "MultiHeadLatentAttention, built right after torch.manual_seed({seed1}), draws W_query, "
        "W_DKV, W_UK, W_UV and out_proj in this order. The queries are projected as in the "
        "chapter's MultiHeadAttention."}},
      {"mla/W_query.bias", {"W_query.bias", "Drawn right after W_query's weight (--qkv-bias)."}},
      {"mla/W_DKV.weight",
       {"W_DKV.weight: down-projection to the latent, ({latent_dim}, {d_in})",
        "Instead of W_key and W_value, one small matrix compresses each token to a latent "
        "c_kv of {latent_dim} numbers. The keys and values of every head will be made from it."}},
      {"mla/W_DKV.bias", {"W_DKV.bias", "Drawn right after W_DKV's weight (--qkv-bias)."}},
      {"mla/W_UK.weight",
       {"W_UK.weight: latent -> keys, ({d_out}, {latent_dim})",
        "Up-projects the latent to the keys of all {heads} heads."}},
      {"mla/W_UK.bias", {"W_UK.bias", "Drawn right after W_UK's weight (--qkv-bias)."}},
      {"mla/W_UV.weight",
       {"W_UV.weight: latent -> values, ({d_out}, {latent_dim})",
        "Up-projects the latent to the values of all {heads} heads."}},
      {"mla/W_UV.bias", {"W_UV.bias", "Drawn right after W_UV's weight (--qkv-bias)."}},
      {"mla/queries_all",
       {"queries_all = W_query(x)",
        "({batch}, {T}, {d_out}); split into {heads} heads of {head_dim} below."}},
      {"mla/latent",
       {"latent = W_DKV(x): c_kv, all a cache needs to keep",
        "({batch}, {T}, {latent_dim}): {latent_dim} numbers per token, where MultiHeadAttention "
        "keeps {kv_per_token} (its keys and values)."}},
      {"mla/keys_all",
       {"keys_all = W_UK(latent)",
        "The keys of every head, up-projected from the latent: ({batch}, {T}, {d_out}). They are "
        "recomputed from the cached latent whenever they are needed."}},
      {"mla/values_all",
       {"values_all = W_UV(latent)",
        "The values of every head, from the same latent: ({batch}, {T}, {d_out})."}},
      {"mla/attn_scores",
       {"torch.matmul(queries, keys.transpose(-2, -1)), masked where q_position < k_position",
        "From here on the chapter's math on ({batch}, {heads}, {T}, {T}): the reference builds the "
        "causal mask from positions, q_positions.unsqueeze(-1) < k_positions.unsqueeze(0), so a "
        "cached query at position t still sees keys 0..t."}},
      {"mla/attn_weights",
       {"softmax(attn_scores / √{head_dim})",
        "Rows sum to 1, zeros above the diagonal."}},
      {"mla/context_vec",
       {"context_vec: heads merged, out_proj",
        "The output of the full pass, ({batch}, {T}, {d_out})."}},
      {"mla/cache_c_kv",
       {"cache_c_kv after feeding the {T} tokens one at a time (use_cache=True)",
        "As generation runs it: each call adds its token's latent row to cache_c_kv and "
        "up-projects keys and values from the whole cache. ({batch}, {T}, {latent_dim}): the "
        "latent rows of the full pass, row by row."}},
      {"mla/context_vec_cached",
       {"the outputs of the {T} cached calls, stacked",
        "Each query at position t attends to keys 0..t made from the cached latent: the same "
        "outputs as the full pass, up to float32 rounding."}},
      {"mla/kv_cache_size",
       {"cache size in floats for {T} tokens: MultiHeadAttention's keys and values, then MLA's latent",
        "{cache_mha} floats for keys and values against {cache_mla} for the latent: "
        "{cache_ratio} times less in every layer, paid for by the up-projections W_UK and W_UV "
        "at every step."}},
      {"mla/kv_cache_size#no_saving",
       {"cache size in floats for {T} tokens: MultiHeadAttention's keys and values, then MLA's latent",
        "{cache_mha} floats for keys and values against {cache_mla} for the latent: a latent of "
        "{latent_dim} is not smaller than the {kv_per_token} numbers of a token's keys and "
        "values, so nothing is saved. MLA pays off with --latent-dim below {kv_per_token} "
        "(the reference's default is max(16, d_out // 8))."}},
  };
  t.checks = {
      {"mla_cached_equals_full",
       "one token at a time with the latent cache gives the full pass's outputs (up to float32 rounding)"},
  };
  t.ui = {
      {"stage.mla",
       "multi-head latent attention: keys and values from a small cached latent (--latent-dim)"},
  };
  return t;
}

}  // namespace attn
