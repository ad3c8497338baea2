// Section 3.6.2's MultiHeadAttention on a trained GPT (--weights FILE --layer L): the module's
// forward pass, line by line as the chapter walks it, with block L's own W_query, W_key,
// W_value (and their biases when the file has them) and out_proj, on norm1 of block L's real
// input for the learner's --text (GPT-2 token ids, embedded by the model's own tables).
//
// Only the module's steps: the wrapper of section 3.6.1 and exercise 3.2 draw their own random
// weights, and the batched product, the head_dim 2 demonstration and exercise 3.3 use fixed
// numbers; a trained model changes none of them, so they walk without --weights.
// In PyTorch: mha = model.trf_blocks[L].att; model.eval(); under torch.no_grad().
// Texts: src/lang/multi_head_*.cpp (key "multi-head/<step>#weights" where the plain text would
// say something untrue of a trained model).
#include <fmt/format.h>

#include <cmath>
#include <string>

#include "modules/gpt.h"
#include "ops/ops.h"
#include "stages/common.h"
#include "stages/stages.h"
#include "stages/weights_notes.h"

namespace attn {

namespace {

// The vars the chapter's multi-head texts quote, as the model's sizes give them.
void set_model_vars(Walk& walk, const Config& cfg, const GptConfig& m, int64_t layer) {
  const int64_t head_dim = m.emb_dim / m.n_heads;
  auto& v = walk.vars;
  v["d_in"] = std::to_string(m.emb_dim);
  v["d_out"] = std::to_string(m.emb_dim);
  v["heads"] = std::to_string(m.n_heads);
  v["head_dim"] = std::to_string(head_dim);
  v["d_k"] = std::to_string(head_dim);
  v["sqrt_d_k"] = fmt::format("{:.4g}", std::sqrt(static_cast<double>(head_dim)));
  v["batch"] = "1";
  v["T"] = std::to_string(cfg.token_ids.size());
  v["attn_p"] = "0.0";  // model.eval(): the dropout modules pass everything
  v["bias_arg"] = m.qkv_bias ? ", qkv_bias=True" : "";
  v["layer"] = std::to_string(layer);
  v["n_layers"] = std::to_string(m.n_layers);
  v["context_length"] = std::to_string(m.context_length);
  v["weights"] = cfg.gpt.weights_path;
}

// The steps whose plain texts speak of the chapter's seeded module: their "#weights" texts.
void say_trained(Walk& walk) { walk.last().variant = "weights"; }

}  // namespace

Walk run_multi_head_on_weights(const Config& cfg) {
  Walk walk("multi-head", cfg);
  set_common_vars(walk, cfg);
  const GptParams& params = *cfg.gpt.params;
  const GptConfig& m = params.cfg;
  const int64_t L = cfg.gpt.layer < 0 ? 0 : cfg.gpt.layer, T = static_cast<int64_t>(cfg.token_ids.size());
  const int64_t H = m.n_heads, head_dim = m.emb_dim / H;
  set_model_vars(walk, cfg, m, L);
  walk.notes.push_back("note.multi_head_weights");
  add_weights_notes(walk, params);

  // encoded_tensor = torch.tensor(encoded).unsqueeze(0): (1, T)
  Tensor in_idx = Tensor::zeros({1, T});
  for (int64_t i = 0; i < T; ++i) in_idx.data[i] = static_cast<float>(cfg.token_ids[i]);
  walk.section = "3.6.2";
  walk.add("in_idx", in_idx);
  walk.last().is_int64 = true;

  // The block's input: the embeddings through blocks 0 .. L-1; then its norm1, the input
  // MultiHeadAttention sees in the model (one sequence: batch 1).
  const GptModel model(params);
  Tensor x = model.embed(cfg.token_ids);
  walk.config.inputs = view(x, {T, m.emb_dim});  // the walk's input, as its header names it
  for (int64_t b = 0; b < L; ++b) x = model.block(b, x, nullptr, false);
  const GptBlockParams& w = params.blocks.at(static_cast<size_t>(L));
  const Tensor& batch = walk.add("batch", layer_norm(x, mat(w.norm1_scale), mat(w.norm1_shift)));  // (1, T, emb)
  say_trained(walk);
  x = Tensor();

  // mha(batch): the module's lines. GptModel::attention computes them with the block's weights
  // where they lie (Hugging Face's Conv1D weights as the transposed views the book assigns) and
  // shows each; the views and transposes between them move no number and are made here.
  const std::string prefix = "trf_blocks." + std::to_string(L) + ".att.";
  const Shape split = {1, T, H, head_dim};  // (b, T, d_out) -> (b, T, H, head_dim)
  Tensor keys, queries, context_vec;
  const GptTracer trace = [&](const std::string& path, const Tensor& value) {
    const std::string name = path.substr(prefix.size());
    if (name == "keys") keys = value;
    if (name == "queries") queries = value;
    const Role role = name == "attn_weights"                                  ? Role::Weights
                      : name == "attn_scores" || name == "attn_scores_masked" ? Role::Scores
                                                                              : Role::Value;
    walk.record(name, role, value);
    if (name == "keys") say_trained(walk);
    if (name == "values") {
      const Tensor kv = view(keys, split), qv = view(queries, split), vv = view(value, split);
      walk.record("keys_viewed", kv);
      walk.record("queries_viewed", qv);
      walk.record("values_viewed", vv);
      walk.record("keys_transposed", transpose(kv, 1, 2));  // (b, H, T, head_dim)
      walk.record("queries_transposed", transpose(qv, 1, 2));
      walk.record("values_transposed", transpose(vv, 1, 2));
      keys = queries = Tensor();
    }
    if (name == "attn_weights") {
      add_check(walk, "causal_no_future_weight", zero_above_diagonal(value));
      add_check(walk, "softmax_rows_sum_to_1", rows_sum_to_one(value));
    }
    if (name == "context_vec") context_vec = value;  // (b, T, H, head_dim)
  };
  Tensor out = model.attention(L, batch, trace);
  // context_vec.contiguous().view(b, num_tokens, self.d_out)
  walk.record("context_vec_merged", view(std::move(context_vec), {1, T, m.emb_dim}));
  walk.add_parameter("out_proj.weight", w.out_proj_w.copy());
  say_trained(walk);
  walk.add_parameter("out_proj.bias", w.out_proj_b.copy());
  say_trained(walk);
  walk.record("mha_context_vecs", std::move(out));  // self.out_proj(context_vec): (b, T, d_out)
  say_trained(walk);
  print_shape_last(walk, "context_vecs.shape:");
  return walk;
}

}  // namespace attn
