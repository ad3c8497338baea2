#include "modules/gpt.h"

#include <utility>

#include "kernels/attention.h"
#include "modules/chapter.h"
#include "ops/ops.h"

namespace attn {

MatView mat(const ParamView& p) {
  MatView m;
  m.data = p.data;
  m.rows = p.shape.size() == 2 ? p.shape[0] : 1;
  m.cols = p.shape.empty() ? 1 : p.shape.back();
  m.transposed = p.transposed;
  m.ld = p.ld;
  return m;
}

std::vector<std::string> gpt_step_paths(int64_t n_layers, int64_t open_layer) {
  std::vector<std::string> paths = {"tok_emb", "pos_emb", "emb_sum"};
  for (int64_t b = 0; b < n_layers; ++b) {
    const std::string block = "trf_blocks." + std::to_string(b);
    paths.push_back(block + ".norm1");
    if (b == open_layer)
      for (const char* s : {"keys", "queries", "values", "attn_scores", "attn_scores_masked", "attn_weights",
                            "context_vec"})
        paths.push_back(block + ".att." + s);
    for (const char* s : {".att", ".shortcut1", ".norm2", ".ff.layers.0", ".ff.layers.1", ".ff.layers.2", ".ff.layers", ".ff", ""})
      paths.push_back(block + s);
  }
  paths.push_back("final_norm");
  paths.push_back("out_head");
  return paths;
}

namespace {

void show(const GptTracer& trace, const std::string& path, const Tensor& value) {
  if (trace) trace(path, value);
}

// An optional bias as the ops take it.
const MatView* bias_of(const GptModel& m, const std::string& name, const std::optional<ParamView>& b, MatView& storage) {
  if (!b) return nullptr;
  storage = m.param(name, *b);
  return &storage;
}

}  // namespace

namespace book {

Tensor layer_norm(const Tensor& x, const MatView& scale, const MatView& shift) { return attn::layer_norm(x, scale, shift); }
Tensor gelu(const Tensor& x) { return attn::gelu(x); }
Tensor shortcut(const Tensor& x, const Tensor& shortcut, int /*which*/) { return add(x, shortcut); }
MatView param(const std::string& /*name*/, const ParamView& p) { return mat(p); }

}  // namespace book

const GptCells& book_gpt_cells() {
  static const GptCells cells;
  return cells;
}

Tensor GptModel::attention(int64_t index, const Tensor& x, const GptTracer& trace) const {
  const GptBlockParams& w = p.blocks.at(static_cast<size_t>(index));
  const std::string at = "trf_blocks." + std::to_string(index) + ".att.";
  const int64_t b = x.size(0), num_tokens = x.size(1), d_out = p.cfg.emb_dim, H = p.cfg.n_heads;
  const int64_t head_dim = d_out / H;
  MatView qb, kb, vb;
  Tensor keys = linear(x, param(at + "W_key.weight", w.W_key_w), bias_of(*this, at + "W_key.bias", w.W_key_b, kb));  // (b, T, d_out)
  Tensor queries = linear(x, param(at + "W_query.weight", w.W_query_w), bias_of(*this, at + "W_query.bias", w.W_query_b, qb));
  Tensor values = linear(x, param(at + "W_value.weight", w.W_value_w), bias_of(*this, at + "W_value.bias", w.W_value_b, vb));
  show(trace, at + "keys", keys);
  show(trace, at + "queries", queries);
  show(trace, at + "values", values);
  const MatView out_b = param(at + "out_proj.bias", w.out_proj_b);
  if (!trace && kernels::causal_attention_fusable(b, num_tokens, head_dim)) {
    // Only the output is wanted (the bench, generate_text_simple): the same numbers from the
    // fused kernel, as CausalAttention::forward takes it (kernels/attention.h). It reads the
    // heads in place, computes only the scores the mask keeps and never holds the (b, H, T, T)
    // weights; its context vectors come out as (b, T, H, head_dim), the merged (b, T, d_out).
    Tensor merged = Tensor::zeros({b, num_tokens, d_out});
    kernels::causal_attention(queries.data.data(), keys.data.data(), values.data.data(), merged.data.data(), b,
                              num_tokens, H, head_dim);
    return linear(merged, param(at + "out_proj.weight", w.out_proj_w), &out_b);
  }
  // (b, T, d_out) -> (b, T, H, head_dim) -> (b, H, T, head_dim)
  const Shape heads = {b, num_tokens, H, head_dim};
  const Tensor keys_t = transpose(view(std::move(keys), heads), 1, 2);
  const Tensor queries_t = transpose(view(std::move(queries), heads), 1, 2);
  const Tensor values_t = transpose(view(std::move(values), heads), 1, 2);
  // queries @ keys.transpose(2, 3), masked_fill_ with -inf above the diagonal, softmax of the
  // scores / head_dim ** 0.5 (chapter 3's core); eval(): no dropout.
  const Tracer core_trace = [&](const char* name, const Tensor& value) { show(trace, at + name, value); };
  Tensor attn_weights = causal_attention_weights(queries_t, keys_t, book::mask(num_tokens), core_trace);
  show(trace, at + "attn_weights", attn_weights);
  Tensor context_vec = transpose(book::context(attn_weights, values_t), 1, 2);  // (b, T, H, head_dim)
  show(trace, at + "context_vec", context_vec);
  const Tensor merged = view(std::move(context_vec), {b, num_tokens, d_out});
  return linear(merged, param(at + "out_proj.weight", w.out_proj_w), &out_b);
}

Tensor GptModel::block(int64_t index, const Tensor& x, const GptTracer& trace, bool open) const {
  const GptBlockParams& w = p.blocks.at(static_cast<size_t>(index));
  const std::string path = "trf_blocks." + std::to_string(index);
  // Shortcut connection for the attention block (drop_shortcut: eval(), nothing dropped)
  const Tensor& shortcut = x;
  const Tensor norm1 = cells.layer_norm(x, param(path + ".norm1.scale", w.norm1_scale), param(path + ".norm1.shift", w.norm1_shift));
  show(trace, path + ".norm1", norm1);
  const Tensor att = attention(index, norm1, open ? trace : GptTracer());
  show(trace, path + ".att", att);
  const Tensor x1 = cells.shortcut(att, shortcut, 1);  // x = x + shortcut
  show(trace, path + ".shortcut1", x1);
  // Shortcut connection for the feed-forward block
  const Tensor norm2 = cells.layer_norm(x1, param(path + ".norm2.scale", w.norm2_scale), param(path + ".norm2.shift", w.norm2_shift));
  show(trace, path + ".norm2", norm2);
  const MatView b0 = param(path + ".ff.layers.0.bias", w.ff0_b), b2 = param(path + ".ff.layers.2.bias", w.ff2_b);
  const Tensor h = linear(norm2, param(path + ".ff.layers.0.weight", w.ff0_w), &b0);  // (1, T, 4 * emb)
  show(trace, path + ".ff.layers.0", h);
  const Tensor g = cells.gelu(h);
  show(trace, path + ".ff.layers.1", g);
  const Tensor ff = linear(g, param(path + ".ff.layers.2.weight", w.ff2_w), &b2);  // (1, T, emb)
  show(trace, path + ".ff.layers.2", ff);
  show(trace, path + ".ff.layers", ff);    // the nn.Sequential's output: its last layer's
  show(trace, path + ".ff", ff);           // FeedForward.forward returns self.layers(x)
  Tensor out = cells.shortcut(ff, x1, 2);  // x = x + shortcut
  show(trace, path, out);
  return out;
}

Tensor GptModel::embed(const std::vector<int64_t>& ids, const GptTracer& trace) const {
  const int64_t T = static_cast<int64_t>(ids.size()), emb = p.cfg.emb_dim;
  std::vector<int64_t> positions(static_cast<size_t>(T));
  for (int64_t i = 0; i < T; ++i) positions[static_cast<size_t>(i)] = i;  // torch.arange(seq_len)
  const Tensor tok_embeds = view(embedding(param("tok_emb.weight", p.tok_emb), ids), {1, T, emb});
  show(trace, "tok_emb", tok_embeds);
  const Tensor pos_embeds = embedding(param("pos_emb.weight", p.pos_emb), positions);  // (T, emb)
  show(trace, "pos_emb", pos_embeds);
  Tensor pos_broadcast = stack_copies(pos_embeds, 1);  // (1, T, emb): the sum broadcasts it
  Tensor x = add(tok_embeds, pos_broadcast);
  show(trace, "emb_sum", x);
  return x;
}

Tensor GptModel::forward(const std::vector<int64_t>& ids, const GptTracer& trace, int64_t open_layer) const {
  Tensor x = embed(ids, trace);
  for (int64_t b = 0; b < static_cast<int64_t>(p.blocks.size()); ++b)
    x = block(b, x, trace, b == open_layer || open_layer == kEveryBlock);
  x = cells.layer_norm(x, param("final_norm.scale", p.final_norm_scale), param("final_norm.shift", p.final_norm_shift));
  show(trace, "final_norm", x);
  Tensor logits = linear(x, param("out_head.weight", p.out_head), nullptr);  // (1, T, vocab_size)
  show(trace, "out_head", logits);
  return logits;
}

std::vector<int64_t> generate_text_simple(const GptModel& model, std::vector<int64_t> ids, int64_t max_new_tokens,
                                          int64_t context_size, const std::function<void(int64_t done)>& on_token) {
  for (int64_t n = 0; n < max_new_tokens; ++n) {
    // idx_cond = idx[:, -context_size:]
    const auto first = ids.size() > static_cast<size_t>(context_size) ? ids.end() - context_size : ids.begin();
    const Tensor logits = model.forward(std::vector<int64_t>(first, ids.end()));
    const int64_t vocab = logits.size(-1);
    // logits[:, -1, :], then torch.argmax(..., dim=-1)
    ids.push_back(argmax(logits.data.data() + logits.numel() - vocab, vocab));
    if (on_token) on_token(n + 1);
  }
  return ids;
}

}  // namespace attn
