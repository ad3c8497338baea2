#include "check/gpt.h"

#include <utility>
#include <vector>

#include "modules/gpt.h"

namespace attn {

namespace {

// A parameter's values as the model holds them (row-major, in its own shape).
Tensor gpt_param_tensor(const MatView& m, const Shape& shape) {
  Tensor t = Tensor::zeros(shape);
  for (int64_t i = 0; i < m.rows; ++i)
    for (int64_t j = 0; j < m.cols; ++j)
      t.data[i * m.cols + j] = m.at(i, j);  // its strides: a third of c_attn is a view (ld 3 * emb)
  return t;
}

// The state-dict entries recorded just before the output `path`, in the state dict's order.
std::vector<std::pair<std::string, const ParamView*>> gpt_params_before(const GptParams& p, const std::string& path) {
  if (path == "tok_emb") return {{"tok_emb.weight", &p.tok_emb}};
  if (path == "pos_emb") return {{"pos_emb.weight", &p.pos_emb}};
  if (path == "final_norm") return {{"final_norm.scale", &p.final_norm_scale}, {"final_norm.shift", &p.final_norm_shift}};
  if (path == "out_head") return {{"out_head.weight", &p.out_head}};
  const std::string blocks = "trf_blocks.";
  if (path.rfind(blocks, 0) != 0) return {};
  const size_t dot = path.find('.', blocks.size());
  if (dot == std::string::npos) return {};
  const GptBlockParams& w = p.blocks.at(std::stoul(path.substr(blocks.size(), dot - blocks.size())));
  const std::string at = path.substr(0, dot + 1), rest = path.substr(dot + 1);
  if (rest == "norm1") return {{at + "norm1.scale", &w.norm1_scale}, {at + "norm1.shift", &w.norm1_shift}};
  if (rest == "norm2") return {{at + "norm2.scale", &w.norm2_scale}, {at + "norm2.shift", &w.norm2_shift}};
  if (rest == "att.keys") {  // W_query, W_key, W_value: the order __init__ declares them
    std::vector<std::pair<std::string, const ParamView*>> out;
    const std::pair<const char*, std::pair<const ParamView*, const std::optional<ParamView>*>> qkv[] = {
        {"W_query", {&w.W_query_w, &w.W_query_b}}, {"W_key", {&w.W_key_w, &w.W_key_b}}, {"W_value", {&w.W_value_w, &w.W_value_b}}};
    for (const auto& [name, wb] : qkv) {
      out.push_back({at + "att." + name + ".weight", wb.first});
      if (*wb.second) out.push_back({at + "att." + name + ".bias", &**wb.second});
    }
    return out;
  }
  if (rest == "att") return {{at + "att.out_proj.weight", &w.out_proj_w}, {at + "att.out_proj.bias", &w.out_proj_b}};
  if (rest == "ff.layers.0") return {{at + "ff.layers.0.weight", &w.ff0_w}, {at + "ff.layers.0.bias", &w.ff0_b}};
  if (rest == "ff.layers.2") return {{at + "ff.layers.2.weight", &w.ff2_w}, {at + "ff.layers.2.bias", &w.ff2_b}};
  return {};
}

// The hook names of the same tensor as the step `path` (recorded right after it).
std::vector<std::string> gpt_hook_aliases(const std::string& path, int64_t n_layers) {
  const auto ends = [&](const std::string& tail) {
    return path.size() > tail.size() && path.compare(path.size() - tail.size(), tail.size(), tail) == 0;
  };
  const auto stem = [&](const std::string& tail) { return path.substr(0, path.size() - tail.size()); };
  if (path == "emb_sum") return {"drop_emb"};
  if (ends(".att.keys")) return {stem("keys") + "W_key"};
  if (ends(".att.queries")) return {stem("queries") + "W_query"};
  if (ends(".att.values")) return {stem("values") + "W_value"};
  if (ends(".att.attn_weights")) return {stem("attn_weights") + "dropout"};
  if (path == "trf_blocks." + std::to_string(n_layers - 1)) return {"trf_blocks"};
  return {};
}

}  // namespace

Walk gpt_check_walk(const Config& cfg, const GptCells& cells, const std::set<std::string>* given) {
  Walk walk("gpt", cfg);
  walk.summaries_only = false;
  if (!cfg.gpt.params) return walk;
  const GptParams& p = *cfg.gpt.params;
  const GptModel model(p, cells);
  const int64_t T = static_cast<int64_t>(cfg.token_ids.size());
  Tensor in_idx = Tensor::zeros({1, T});  // encoded_tensor = torch.tensor(encoded).unsqueeze(0)
  for (int64_t i = 0; i < T; ++i) in_idx.data[i] = static_cast<float>(cfg.token_ids[i]);
  walk.add("in_idx", std::move(in_idx));
  const auto wanted = [&](const std::string& name, int64_t numel) {
    return numel <= (int64_t{1} << 16) || (given && given->count(name));
  };
  model.forward(
      cfg.token_ids, [&](const std::string& path, const Tensor& value) {
        for (const auto& [name, view] : gpt_params_before(p, path))
          if (wanted(name, view->numel())) walk.add(name, gpt_param_tensor(model.param(name, *view), view->shape));
        if (path.size() > 19 && path.compare(path.size() - 19, 19, ".attn_scores_masked") == 0) {
          // self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))
          walk.add(path.substr(0, path.size() - 18) + "mask", book::mask(p.cfg.context_length));
        }
        if (path.size() > 4 && path.compare(path.size() - 4, 4, ".att") == 0) walk.add(path + ".out_proj", value);
        walk.add(path, value);
        for (const std::string& alias : gpt_hook_aliases(path, p.cfg.n_layers)) walk.add(alias, value);
      },
      kEveryBlock);
  return walk;
}

}  // namespace attn
