// English texts of the kv-cache stage (src/stages/kv_cache.cpp). {t} is the token a step
// belongs to; x[:, {t0}:{t1}] is that token sliced from the batch.
#include "lang/bonus.h"

namespace attn {

LangTable kv_cache_en() {
  LangTable t;
  t.code = "en";
  t.steps = {
      {"kv-cache/keys_new",
       {"token {t}: keys_new = W_key(x[:, {t0}:{t1}]), the new token's key row",
        "With use_cache=True the module receives only the newest token, x[:, {t0}:{t1}] of shape "
        "({batch}, 1, {d_in}), and projects it: one key row of {d_out} numbers per batch entry. "
        "The keys of earlier tokens are not computed again; they are in the cache."}},
      {"kv-cache/values_new",
       {"token {t}: values_new = W_value(x[:, {t0}:{t1}]), the new value row",
        "Its value row, shape ({batch}, 1, {d_out}), goes into the cache next to its key."}},
      {"kv-cache/queries",
       {"token {t}: queries = W_query(x[:, {t0}:{t1}]), the only query needed",
        "Only the newest token asks a question now: one query row, shape ({batch}, 1, {d_out}). "
        "Earlier tokens' queries were used when those tokens were generated and are never needed "
        "again, which is why there is no query cache."}},
      {"kv-cache/keys",
       {"token {t}: keys = cache_k.transpose(1, 2), the key cache holding {t} tokens",
        "torch.cat([cache_k, keys_new], dim=1) appends the new row to cache_k, ({batch}, {t}, "
        "{heads}, {head_dim}); transposed for the heads it is ({batch}, {heads}, {t}, {head_dim}): "
        "one row more than at the previous token."}},
      {"kv-cache/keys#first",
       {"token 1: keys = cache_k.transpose(1, 2), the key cache starts with one token",
        "The cache was empty, so cache_k is keys_new itself, ({batch}, 1, {heads}, {head_dim}); "
        "transposed for the heads it is ({batch}, {heads}, 1, {head_dim}). Every later token "
        "appends one row with torch.cat(..., dim=1)."}},
      {"kv-cache/values#first",
       {"token 1: values = cache_v.transpose(1, 2), the value cache starts with one token",
        "cache_v is values_new itself: ({batch}, {heads}, 1, {head_dim})."}},
      {"kv-cache/values",
       {"token {t}: values = cache_v.transpose(1, 2), the value cache holding {t} tokens",
        "The values grow the same way: ({batch}, {heads}, {t}, {head_dim})."}},
      {"kv-cache/attn_scores",
       {"token {t}: attn_scores = queries @ keys.transpose(2, 3), a 1 × {t} row per head",
        "The one query against all {t} cached keys: shape ({batch}, {heads}, 1, {t}). The mask, "
        "cut to [:1, :1], hides nothing: every cached token is in the past or is the token itself."}},
      {"kv-cache/attn_scores#first",
       {"token 1: attn_scores = queries @ keys.transpose(2, 3), a 1 × 1 score per head",
        "The first token can only attend to itself: one score per head, shape ({batch}, {heads}, 1, 1)."}},
      {"kv-cache/attn_weights#first",
       {"token 1: softmax(attn_scores / √{head_dim}), a single weight of 1",
        "The softmax of a single score is 1: the first token's output is its own value, projected."}},
      {"kv-cache/attn_weights",
       {"token {t}: softmax(attn_scores / √{head_dim}), weights over the {t} cached tokens",
        "Each head's row of {t} weights sums to 1. It is row {t} of the full causal pass's "
        "weights, computed without the other rows (attn_weights_cached below stacks them)."}},
      {"kv-cache/context_vec",
       {"token {t}: out_proj(attn_weights @ values), the new token's output row",
        "The weighted sum of the cached values, heads merged back to {d_out} numbers and "
        "projected: shape ({batch}, 1, {d_out}). Generation would turn it into the next token; "
        "here the next input is simply the next token of the text."}},
      {"kv-cache/attn_weights_cached",
       {"the {T} rows of weights stacked: row t came from token t's 1 × t scores",
        "Put together, the rows form a ({T}, {T}) matrix per head whose row t has t entries: the "
        "cache grew by one key per token. Above the diagonal there was nothing to attend to yet "
        "(0 here), exactly where the causal mask puts its zeros. Shape ({batch}, {heads}, {T}, {T})."}},
      {"kv-cache/context_vecs_cached",
       {"torch.cat of the {T} output rows, dim=1",
        "The outputs of the one-token steps side by side: ({batch}, {T}, {d_out})."}},
      {"kv-cache/context_vecs_full",
       {"the same module on all {T} tokens at once (use_cache=False)",
        "The chapter's causal pass: all keys, queries and values at once, the mask hiding the "
        "future. It gives the same outputs as the cached steps, up to float32 rounding, because "
        "each row of attention only ever looks at the tokens before it."}},
      {"kv-cache/cost",
       {"the cost of generating {T} tokens: rows without and with the cache",
        "Without a cache, token t projects and scores all t tokens again: {flops_without} FLOPs "
        "for {T} tokens, and the last step's scores hold {scores_without} floats. With it, each "
        "step projects one token and scores one row: {flops_with} FLOPs ({flops_ratio} times "
        "fewer) and {scores_with} score floats, at the price of keeping the cache between tokens: "
        "{kept_floats} floats ({kept_bytes} bytes in float32), in every layer of a real model."}},
  };
  t.checks = {
      {"kv_cache_weights_equal_full_pass",
       "the stacked rows equal the attention weights of the full causal pass"},
      {"kv_cache_outputs_equal_full_pass",
       "the stacked outputs equal the full causal pass (use_cache=False)"},
  };
  t.ui = {
      {"stage.kv-cache",
       "the KV cache: one token at a time, the cache growing, the same outputs, the cost"},
      {"word.cost_columns", "FLOPs / floats kept between tokens / floats of the last scores"},
      {"word.without_cache", "without cache"},
      {"word.cost_colon", ": "},
      {"word.with_cache", "with cache"},
  };
  return t;
}

}  // namespace attn
