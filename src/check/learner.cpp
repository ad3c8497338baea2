#include "check/learner.h"

#include <cmath>
#include <limits>

#include "modules/chapter.h"
#include "ops/ops.h"
#include "torch/torch_random.h"

namespace attn {

namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// ---- the attention core, slip by slip -----------------------------------------------------

// queries @ keys.T, or keys @ queries.T with the swap: (..., T, T).
Tensor scores(const Tensor& queries, const Tensor& keys, const Slips& s) {
  return s.scores_transposed ? matmul_transposed(keys, queries) : matmul_transposed(queries, keys);
}

// attn_scores / keys.shape[-1] ** 0.5, or the slip's divisor.
Tensor scaled(const Tensor& t, int64_t d_k, const Slips& s) {
  switch (s.scale) {
    case Slips::Scale::None: return t;
    case Slips::Scale::Dk: return div_scalar(t, static_cast<double>(d_k));
    default: return div_scalar(t, std::sqrt(static_cast<double>(d_k)));
  }
}

// torch.softmax(t, dim=-1), or over the queries (dim=-2) with the slip; 1-D has one dim.
Tensor softmax(const Tensor& t, const Slips& s) {
  if (!s.softmax_over_queries || t.dim() < 2) return softmax_lastdim(t);
  return transpose(softmax_lastdim(transpose(t, -2, -1)), -2, -1);
}

// torch.tril(torch.ones(T, T), diagonal=-1): strictly below the diagonal.
Tensor strictly_lower(int64_t T) { return transpose2d(triu_ones(T, 1)); }

// Section 3.5.1's mask_simple: the weights kept (tril), or the slip's triangle.
Tensor mask_simple(int64_t T, const Slips& s) {
  if (s.mask == Slips::Mask::Swapped) return triu_ones(T, 0);       // torch.triu(ones)
  if (s.mask == Slips::Mask::Diagonal) return strictly_lower(T);    // tril(ones, diagonal=-1)
  return tril_ones(T);
}

// The -inf method's mask: the weights hidden (triu, diagonal=1), or the slip's triangle.
Tensor future_mask(int64_t T, const Slips& s) {
  if (s.mask == Slips::Mask::Swapped) return strictly_lower(T);     // tril(ones, diagonal=-1)
  if (s.mask == Slips::Mask::Diagonal) return triu_ones(T, 0);      // triu(ones), diagonal too
  return triu_ones(T, 1);
}

// attn_scores.masked_fill_(mask.bool(), -torch.inf), unless the result was discarded.
Tensor masked(const Tensor& attn_scores, const Slips& s) {
  if (s.masked_fill_discarded) return attn_scores;
  return masked_fill(attn_scores, future_mask(attn_scores.size(-1), s), kNegInf);
}

// x / row_sums where row_sums lost its keepdim: (T, T) / (T,) broadcasts along the rows,
// so column j is divided by the sum of row j.
Tensor div_broadcast_rows(const Tensor& x, const Tensor& sums) {
  Tensor out = x;
  const int64_t n = x.size(-1);
  for (int64_t i = 0; i < x.numel(); ++i) out.data[i] = x.data[i] / sums.data[i % n];
  return out;
}

// nn.Dropout(p) as the learner wrote it: the same mask, kept values scaled by 1/p with the slip.
Tensor dropout(TorchGenerator& gen, const Tensor& x, const Config& cfg, const Slips& s) {
  const Dropout chapter{cfg.dropout, cfg.dropout_rng};
  if (!s.dropout_scaled_by_p || cfg.dropout == 0.0 || cfg.dropout == 1.0) return chapter(gen, x);
  const auto keep = dropout_keep_mask(gen, x.numel(), cfg.dropout, cfg.dropout_rng);
  const float scale = static_cast<float>(1.0 / cfg.dropout);
  Tensor out = x;
  for (int64_t i = 0; i < x.numel(); ++i) out.data[i] *= keep[i] ? scale : 0.0f;
  return out;
}

// torch.manual_seed(seed) before `module`, unless the learner left it out there.
void reseed(TorchGenerator& gen, uint64_t seed, const char* module, const Slips& s) {
  if (s.no_reseed_before != module) gen.manual_seed(seed);
}

// ---- the chapter's classes' forward passes, slip by slip ------------------------------

// SelfAttention_v1/v2.forward: unmasked, x is (T, d_in).
Tensor self_attention(const Tensor& queries, const Tensor& keys, const Tensor& values, const Slips& s) {
  const Tensor attn_weights = softmax(scaled(scores(queries, keys, s), keys.size(-1), s), s);
  return matmul(attn_weights, values);
}

Tensor v2_forward(const SelfAttention_v2& m, const Tensor& x, const Slips& s) {
  const Linear& Wq = s.qk_weights_swapped ? m.W_key : m.W_query;
  const Linear& Wk = s.qk_weights_swapped ? m.W_query : m.W_key;
  return self_attention(Wq(x), Wk(x), m.W_value(x), s);
}

// CausalAttention.forward (section 3.5.3): (B, T, d_in) -> (B, T, d_out).
Tensor causal_forward(const CausalAttention& m, TorchGenerator& gen, const Tensor& x, const Slips& s) {
  const Linear& Wq = s.qk_weights_swapped ? m.W_key : m.W_query;
  const Linear& Wk = s.qk_weights_swapped ? m.W_query : m.W_key;
  const Tensor keys = Wk(x), queries = Wq(x), values = m.W_value(x);
  const Tensor attn_weights = softmax(scaled(masked(scores(queries, keys, s), s), keys.size(-1), s), s);
  return matmul(m.dropout(gen, attn_weights), values);
}

Tensor wrapper_forward(const MultiHeadAttentionWrapper& m, TorchGenerator& gen, const Tensor& x,
                       const Slips& s) {
  std::vector<Tensor> outs;
  for (int64_t h = 0; h < m.num_heads(); ++h) outs.push_back(causal_forward(m.head(h), gen, x, s));
  return cat_lastdim(outs);
}

}  // namespace

// ---- 3.4: trainable weights -------------------------------------------------------------

LearnerSteps learner_trainable(const Config& cfg, const Slips& s) {
  LearnerSteps out;
  const Tensor& inputs = cfg.inputs;
  const int64_t d_in = cfg.d_in(), d_out = cfg.d_out, q = cfg.query - 1;
  TorchGenerator gen(cfg.seed1);
  const Tensor W_query = init_parameter(gen, d_in, d_out, cfg.init);
  const Tensor W_key = init_parameter(gen, d_in, d_out, cfg.init);
  const Tensor W_value = init_parameter(gen, d_in, d_out, cfg.init);
  const Tensor& Wq = s.qk_weights_swapped ? W_key : W_query;
  const Tensor& Wk = s.qk_weights_swapped ? W_query : W_key;

  const Tensor x_2 = inputs[q];
  const Tensor query_2 = out["query_2"] = matmul(x_2, Wq);  // (d_out,)
  out["key_2"] = matmul(x_2, Wk);
  const Tensor keys = out["keys"] = matmul(inputs, Wk);     // (T, d_out)
  const Tensor values = out["values"] = matmul(inputs, W_value);
  out["attn_score_22"] = dot(query_2, keys[q]);
  // For one query, keys @ query_2 and query_2 @ keys.T are the same numbers.
  const Tensor attn_scores_2 = out["attn_scores_2"] = matmul_transposed(query_2, keys);  // (T,)
  const Tensor attn_weights_2 = out["attn_weights_2"] = softmax(scaled(attn_scores_2, d_out, s), s);
  out["context_vec_2"] = matmul(attn_weights_2, values);

  reseed(gen, cfg.seed1, "sa_v1", s);
  const SelfAttention_v1 sa_v1(gen, d_in, d_out, cfg.init);
  out["sa_v1_output"] = self_attention(matmul(inputs, s.qk_weights_swapped ? sa_v1.W_key : sa_v1.W_query),
                                       matmul(inputs, s.qk_weights_swapped ? sa_v1.W_query : sa_v1.W_key),
                                       matmul(inputs, sa_v1.W_value), s);

  reseed(gen, cfg.seed2, "sa_v2", s);
  const SelfAttention_v2 sa_v2(gen, d_in, d_out, cfg.qkv_bias);
  for (const auto& [name, layer] : {std::pair<const char*, const Linear*>{"W_query", &sa_v2.W_query},
                                    {"W_key", &sa_v2.W_key},
                                    {"W_value", &sa_v2.W_value}}) {
    out[std::string("sa_v2.") + name + ".weight"] = layer->weight;
    if (layer->bias) out[std::string("sa_v2.") + name + ".bias"] = *layer->bias;
  }
  out["sa_v2_output"] = v2_forward(sa_v2, inputs, s);

  // Exercise 3.1: v2's weights copied into v1, each as weight.T (a (d_in, d_out) view).
  gen.manual_seed(cfg.seed1);
  const SelfAttention_v1 ex_v1(gen, d_in, d_out, cfg.init);  // drawn, then replaced
  reseed(gen, cfg.seed1, "exercise_3_1_v2", s);
  const SelfAttention_v2 ex_v2(gen, d_in, d_out, /*qkv_bias=*/false);
  const Tensor& q_weight = s.ex31_copy_swapped ? ex_v2.W_key.weight : ex_v2.W_query.weight;
  const Tensor& k_weight = s.ex31_copy_swapped ? ex_v2.W_query.weight : ex_v2.W_key.weight;
  // x @ weight.T, or x @ weight when the .T was left out (which runs only if d_in == d_out).
  const auto times = [&](const Tensor& weight) {
    return s.ex31_not_transposed ? matmul(inputs, weight) : matmul_transposed(inputs, weight);
  };
  if (!s.ex31_not_transposed || d_in == d_out)
    out["exercise_3_1_sa_v1_output"] =
        self_attention(times(q_weight), times(k_weight), times(ex_v2.W_value.weight), Slips{});
  out["exercise_3_1_sa_v2_output"] = v2_forward(ex_v2, inputs, Slips{});
  return out;
}

// ---- 3.5.1: causal masks ----------------------------------------------------------------

LearnerSteps learner_causal(const Config& cfg, const Slips& s) {
  LearnerSteps out;
  const Tensor& inputs = cfg.inputs;
  const int64_t T = cfg.num_tokens();
  TorchGenerator gen(cfg.seed2);
  const SelfAttention_v2 sa_v2(gen, cfg.d_in(), cfg.d_out, cfg.qkv_bias);
  const Tensor queries = out["queries"] = (s.qk_weights_swapped ? sa_v2.W_key : sa_v2.W_query)(inputs);
  const Tensor keys = out["keys"] = (s.qk_weights_swapped ? sa_v2.W_query : sa_v2.W_key)(inputs);
  const Tensor attn_scores = out["attn_scores"] = scores(queries, keys, s);  // (T, T)
  const int64_t d_k = keys.size(-1);
  const Tensor attn_weights = out["attn_weights"] = softmax(scaled(attn_scores, d_k, s), s);

  // Method 1: zero the future, renormalise the rows.
  const Tensor mask = out["mask_simple"] = mask_simple(T, s);
  const Tensor masked_simple = out["masked_simple"] = mul(attn_weights, mask);
  const Tensor& renormed = s.renorm == Slips::Renorm::MaskSimple    ? mask
                           : s.renorm == Slips::Renorm::AttnWeights ? attn_weights
                                                                    : masked_simple;
  const Tensor row_sums = out["row_sums"] = sum_lastdim(renormed, !s.keepdim_missing);
  out["masked_simple_norm"] =
      s.keepdim_missing ? div_broadcast_rows(renormed, row_sums) : div_keepdim(renormed, row_sums);

  // Method 2: -inf above the diagonal before the softmax.
  out["mask"] = future_mask(T, s);
  const Tensor masked_scores = out["masked"] = masked(attn_scores, s);
  out["attn_weights_causal"] = softmax(scaled(masked_scores, d_k, s), s);
  return out;
}

// ---- 3.5.2-3.5.3: dropout, CausalAttention ----------------------------------------------

LearnerSteps learner_dropout(const Config& cfg, const Slips& s) {
  LearnerSteps out;
  const int64_t T = cfg.num_tokens();
  const Tensor attn_weights = out["attn_weights_causal"] = learner_causal(cfg, s).at("attn_weights_causal");
  TorchGenerator gen(cfg.seed1);
  out["dropout_ones"] = dropout(gen, Tensor::full({T, T}, 1.0f), cfg, s);
  reseed(gen, cfg.seed1, "dropout_attn_weights", s);
  const Tensor dropped = out["dropout_attn_weights"] = dropout(gen, attn_weights, cfg, s);
  out["dropout_attn_weights_row_sums"] = sum_lastdim(dropped, false);

  const Tensor batch = stack_copies(cfg.inputs, cfg.batch);  // (B, T, d_in)
  reseed(gen, cfg.seed1, "causal_attention", s);
  const CausalAttention ca(gen, cfg.d_in(), cfg.d_out, T, cfg.attn_dropout, cfg.qkv_bias, cfg.dropout_rng);
  out["causal_attention_context_vecs"] = causal_forward(ca, gen, batch, s);
  return out;
}

// ---- 3.6: multi-head attention ----------------------------------------------------------

LearnerSteps learner_multi_head(const Config& cfg, const Slips& s) {
  LearnerSteps out;
  const int64_t T = cfg.num_tokens(), d_in = cfg.d_in(), d_out = cfg.d_out, H = cfg.heads;
  const Tensor batch = stack_copies(cfg.inputs, cfg.batch);  // (B, T, d_in)
  const int64_t b = batch.size(0);
  TorchGenerator gen(cfg.seed1);
  if (s.no_reseed_before == "wrapper") {
    // The stream the wrapper continues: section 3.5.3's CausalAttention, built and run.
    const CausalAttention ca(gen, d_in, d_out, T, cfg.attn_dropout, cfg.qkv_bias, cfg.dropout_rng);
    ca.forward(gen, batch);
  }
  reseed(gen, cfg.seed1, "wrapper", s);
  const MultiHeadAttentionWrapper wrapper(gen, d_in, d_out, T, cfg.attn_dropout, H, cfg.qkv_bias,
                                          cfg.dropout_rng);
  out["wrapper_context_vecs"] = wrapper_forward(wrapper, gen, batch, s);  // (B, T, H * d_out)

  // a = the chapter's (1, 2, 3, 4) tensor; each head's product by hand.
  const Tensor a({1, 2, 3, 4}, {0.2745f, 0.6584f, 0.2775f, 0.8573f, 0.8993f, 0.0390f, 0.9268f, 0.7388f,
                                0.7179f, 0.7058f, 0.9156f, 0.4340f, 0.0772f, 0.3565f, 0.1479f, 0.5331f,
                                0.4066f, 0.2318f, 0.4545f, 0.9737f, 0.4606f, 0.5159f, 0.4220f, 0.5786f});
  const Tensor second_head = s.same_head_twice ? a[0][0] : a[0][1];
  out["second_res"] = matmul_transposed(second_head, second_head);

  if (d_out % H == 0) {
    reseed(gen, cfg.seed1, "mha", s);
    const MultiHeadAttention mha(gen, d_in, d_out, T, cfg.attn_dropout, H, cfg.qkv_bias, cfg.dropout_rng);
    const int64_t hd = mha.head_dim;
    const Tensor keys = out["keys"] = (s.qk_weights_swapped ? mha.W_query : mha.W_key)(batch);  // (b, T, d_out)
    const Tensor queries = out["queries"] = (s.qk_weights_swapped ? mha.W_key : mha.W_query)(batch);
    const Tensor values = out["values"] = mha.W_value(batch);
    // (b, T, d_out) -> (b, H, T, head_dim): a view and a transpose, or the slip's view alone.
    const auto heads_of = [&](const Tensor& t, const std::string& name) {
      if (s.heads_by_view) return out[name + "_transposed"] = view(t, {b, H, T, hd});
      const Tensor viewed = out[name + "_viewed"] = view(t, {b, T, H, hd});
      return out[name + "_transposed"] = transpose(viewed, 1, 2);
    };
    const Tensor keys_t = heads_of(keys, "keys"), queries_t = heads_of(queries, "queries");
    const Tensor values_t = heads_of(values, "values");
    const Tensor attn_scores = out["attn_scores"] = scores(queries_t, keys_t, s);  // (b, H, T, T)
    const Tensor masked_scores = out["attn_scores_masked"] = masked(attn_scores, s);
    // attn_scores.masked_fill_(...) works in place: a reference kept before it sees the mask.
    if (s.scores_kept_by_reference) out["attn_scores"] = masked_scores;
    Tensor attn_weights = softmax(scaled(masked_scores, hd, s), s);
    attn_weights = out["attn_weights"] = mha.dropout(gen, attn_weights);
    const Tensor per_head = matmul(attn_weights, values_t);  // (b, H, T, head_dim)
    const Tensor context_vec = out["context_vec"] = s.context_not_transposed ? per_head : transpose(per_head, 1, 2);
    // With the merge discarded, context_vec keeps its four dimensions, and out_proj only
    // runs on it when head_dim == d_out (one head): then nothing differs.
    const Tensor merged = out["context_vec_merged"] =
        s.merge_discarded ? context_vec : view(context_vec, {b, T, d_out});
    if (!s.merge_discarded) out["mha_context_vecs"] = s.out_proj_missing ? merged : mha.out_proj(merged);
  }

  reseed(gen, cfg.seed1, "exercise_3_2", s);
  const MultiHeadAttentionWrapper wrapper_2d(gen, d_in, 1, T, cfg.attn_dropout, 2, cfg.qkv_bias,
                                             cfg.dropout_rng);
  out["exercise_3_2_context_vecs"] = wrapper_forward(wrapper_2d, gen, batch, s);
  return out;
}

LearnerSteps learner_stage(const std::string& stage, const Config& cfg, const Slips& s) {
  if (stage == "trainable") return learner_trainable(cfg, s);
  if (stage == "causal") return learner_causal(cfg, s);
  if (stage == "dropout") return learner_dropout(cfg, s);
  if (stage == "multi-head") return learner_multi_head(cfg, s);
  return {};
}

}  // namespace attn
