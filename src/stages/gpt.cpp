// Chapter 4, sections 4.6-4.7: GPTModel on trained weights (--weights), as
// ch04/01_main-chapter-code/gpt.py runs it in eval() mode, then the next token and, with
// --max-new-tokens, generate_text_simple. Every module's output is a step named by its path in
// model.named_modules(); --layer L opens block L's attention with chapter 3's step names.
// Texts: src/lang/gpt_*.cpp (key "gpt/<step>").
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "modules/gpt.h"
#include "ops/ops.h"
#include "core/utf8.h"
#include "stages/common.h"
#include "stages/stages.h"
#include "stages/weights_notes.h"
#include "text/readable.h"
#include "text/tokenizer.h"

namespace attn {

namespace {

// Mean and (population) variance of the last row of a (..., N) tensor, in double: the numbers
// the texts quote.
struct RowStats {
  double mean = 0, var = 0;
};
RowStats last_row_stats(const Tensor& t) {
  const int64_t n = t.size(-1);
  const float* row = t.data.data() + t.numel() - n;
  RowStats s;
  for (int64_t i = 0; i < n; ++i) s.mean += row[i];
  s.mean /= static_cast<double>(n);
  for (int64_t i = 0; i < n; ++i) s.var += (row[i] - s.mean) * (row[i] - s.mean);
  s.var /= static_cast<double>(n);
  return s;
}

double l2_norm(const Tensor& t) {
  double s = 0;
  for (const float v : t.data) s += static_cast<double>(v) * v;
  return std::sqrt(s);
}

std::string num(double v) { return fmt::format("{:.4g}", v); }

// What a token id stands for, readable ("·you").
std::string piece(int64_t id) { return text::readable_piece(text::decode({id})); }

// tokenizer.decode(ids) as a learner reads it: the text itself when it is whole UTF-8 without
// control characters (a terminal would act on those); else the tokens side by side, readable.
std::string decoded_text(const std::vector<int64_t>& ids) {
  const std::string raw = text::decode(ids);
  size_t bad = 0;
  bool plain = text::decode_utf8(raw, &bad).has_value();
  for (const unsigned char c : raw) plain = plain && (c >= 0x20 || c == '\n' || c == '\t') && c != 0x7f;
  if (plain) return raw;
  std::vector<std::string> bytes;
  for (const int64_t id : ids) bytes.push_back(text::decode({id}));
  std::string out;
  for (const std::string& p : text::readable_pieces(bytes))
    if (p != text::kContinuationMark) out += p;
  return out;
}

// One line for a block the text output does not open: its output's size and spread.
std::string block_summary(const Tensor& t) {
  const auto [lo, hi] = std::minmax_element(t.data.begin(), t.data.end());
  const RowStats s = last_row_stats(t);
  return fmt::format("{}  last row: mean {}, var {}; all: min {}, max {}", torch_size_str(t.shape), num(s.mean),
                     num(s.var), num(*lo), num(*hi));
}

// The numbers the texts quote, computed from the tensors as the forward pass shows them.
struct Facts {
  Tensor x;          // the latest of emb_sum, a block's shortcut1 or its output: the next LayerNorm's input
  Tensor att;        // the block's attention output (the first shortcut's branch)
  Tensor ff_hidden;  // ff.layers.0's output, GELU's input
  Tensor ff;         // the block's feed-forward output (the second shortcut's branch)

  // `rest`: the path inside the block ("norm1", "att", "" for the block's output), or the
  // whole path outside the blocks.
  void note(Step* step, const std::string& rest, bool in_block, const Tensor& value) {
    const auto set = [&](std::map<std::string, std::string> vars) {
      if (step) step->vars.insert(vars.begin(), vars.end());
    };
    if (rest == "norm1" || rest == "norm2" || rest == "final_norm") {
      const RowStats in = last_row_stats(x), out = last_row_stats(value);
      set({{"in_mean", num(in.mean)}, {"in_var", num(in.var)}, {"out_mean", num(out.mean)}, {"out_var", num(out.var)}});
    } else if (rest == "ff.layers.1") {
      int64_t negatives = 0;
      float most_negative = 0.0f, lo = 0.0f, hi = 0.0f;  // all 0 when no input is negative
      for (int64_t i = 0; i < ff_hidden.numel(); ++i) {
        const float in = ff_hidden.data[i], out = value.data[i];
        if (!(in < 0.0f)) continue;
        lo = negatives == 0 ? out : std::min(lo, out);
        hi = negatives == 0 ? out : std::max(hi, out);
        most_negative = std::min(most_negative, in);
        ++negatives;
      }
      // clang-format off
      set({{"negatives", std::to_string(negatives)}, {"count", std::to_string(value.numel())},
           {"most_negative", num(most_negative)}, {"gelu_lo", num(lo)}, {"gelu_hi", num(hi)}});
      // clang-format on
    } else if (in_block && (rest == "shortcut1" || rest.empty())) {
      // x = branch + shortcut: how large each part is, against the sum.
      const double skip = l2_norm(x), branch = l2_norm(rest.empty() ? ff : att), sum = l2_norm(value);
      // clang-format off
      set({{"shortcut_norm", num(skip)}, {"branch_norm", num(branch)}, {"sum_norm", num(sum)},
           {"shortcut_share", fmt::format("{:.0f}", 100.0 * skip / std::max(skip + branch, 1e-30))}});
      // clang-format on
    }
    if (rest == "emb_sum" || (in_block && (rest == "shortcut1" || rest.empty()))) x = value;
    if (rest == "att") att = value;
    if (rest == "ff.layers.0") ff_hidden = value;
    if (rest == "ff") ff = value;
  }
};

// For each head of (1, H, T, T) weights, the earlier token the last query attends to most.
std::string head_focus(const Tensor& w, const std::vector<std::string>& tokens, int64_t only_head) {
  const int64_t H = w.size(1), T = w.size(2);
  std::string out;
  for (int64_t h = 0; h < H; ++h) {
    if (only_head >= 0 && h != only_head) continue;
    const float* row = w.data.data() + (h * T + (T - 1)) * T;  // the last query's row
    const int64_t j = argmax(row, T);
    const std::string token = j < static_cast<int64_t>(tokens.size()) ? tokens[j] : std::to_string(j);
    out += fmt::format("{}{}: '{}' ({})", out.empty() ? "" : "; ", h, token, num(row[j]));
  }
  return out;
}

}  // namespace

std::string gpt_misuse(const Config& cfg) {
  if (!cfg.gpt.params) return "--stage gpt: needs --weights FILE (a GPT-2 model: the book's .safetensors or .pth, or Hugging Face's model.safetensors)";
  const GptConfig& m = cfg.gpt.params->cfg;
  if (cfg.gpt.layer >= m.n_layers)
    return fmt::format("--layer: the model has {} blocks (0 to {}), got {}", m.n_layers, m.n_layers - 1, cfg.gpt.layer);
  if (cfg.gpt.head >= m.n_heads)
    return fmt::format("--head: the model has {} heads (0 to {}), got {}", m.n_heads, m.n_heads - 1, cfg.gpt.head);
  if (cfg.gpt.head >= 0 && cfg.gpt.layer < 0) return "--head: needs --layer (the block whose heads to show)";
  if (static_cast<int64_t>(cfg.token_ids.size()) > m.context_length)
    return fmt::format("--text: {} tokens, more than the model's context_length {}", cfg.token_ids.size(),
                       m.context_length);
  for (const int64_t id : cfg.token_ids)
    if (id >= m.vocab_size) return fmt::format("--text: token id {} is past the model's vocab_size {}", id, m.vocab_size);
  return "";
}

Walk run_gpt(const Config& cfg) {
  Walk walk("gpt", cfg);
  set_common_vars(walk, cfg);
  if (!cfg.gpt.params) return walk;  // no model: nothing to walk (a request stops at gpt_misuse first)
  const GptParams& params = *cfg.gpt.params;
  const GptConfig& m = params.cfg;
  const GptModel model(params);
  const int64_t T = static_cast<int64_t>(cfg.token_ids.size()), L = cfg.gpt.layer;
  walk.vars["emb_dim"] = std::to_string(m.emb_dim);
  walk.vars["n_layers"] = std::to_string(m.n_layers);
  walk.vars["n_heads"] = std::to_string(m.n_heads);
  walk.vars["vocab_size"] = std::to_string(m.vocab_size);
  walk.vars["context_length"] = std::to_string(m.context_length);
  walk.vars["T"] = std::to_string(T);
  walk.vars["layer"] = std::to_string(L);
  walk.vars["head_dim"] = std::to_string(m.emb_dim / std::max<int64_t>(m.n_heads, 1));
  walk.vars["weights"] = cfg.gpt.weights_path;
  add_weights_notes(walk, params);

  // encoded_tensor = torch.tensor(encoded).unsqueeze(0): (1, T)
  Tensor in_idx = Tensor::zeros({1, T});
  for (int64_t i = 0; i < T; ++i) in_idx.data[i] = static_cast<float>(cfg.token_ids[i]);
  walk.add("in_idx", in_idx);
  walk.steps.back().is_int64 = true;

  // model(in_idx): every module's output. In text, the blocks not opened by --layer are one
  // line each (their output), unless --only asks for steps of its own.
  const bool every_step = !cfg.summaries_only || cfg.gpt.all_steps;
  Facts facts;
  const GptTracer trace = [&](const std::string& path, const Tensor& value) {
    const std::string blocks = "trf_blocks.";
    const bool in_block = path.rfind(blocks, 0) == 0;
    const size_t dot = in_block ? path.find('.', blocks.size()) : std::string::npos;
    const int64_t block = in_block ? std::stoll(path.substr(blocks.size(), dot - blocks.size())) : -1;
    const bool block_output = in_block && dot == std::string::npos;
    const std::string rest = !in_block ? path : block_output ? ""
                                                             : path.substr(dot + 1);
    // The walk's input, as its header names it: the T tokens as the model embeds them (T, emb).
    if (path == "emb_sum") walk.config.inputs = view(value, {T, m.emb_dim});
    if (!every_step && in_block && block != L && !block_output) {
      facts.note(nullptr, rest, in_block, value);  // not shown; its numbers still count
      return;
    }
    // The attention core's steps (modules/gpt.cpp's names within a block) get heatmaps.
    const Role role = rest == "att.attn_weights"                                      ? Role::Weights
                      : rest == "att.attn_scores" || rest == "att.attn_scores_masked" ? Role::Scores
                                                                                      : Role::Value;
    walk.record(path, role, value);
    Step& step = walk.steps.back();
    if (block >= 0) step.vars["block"] = std::to_string(block);
    facts.note(&step, rest, in_block, value);
    if (block_output && !every_step && block != L) step.payload = PrintedTextPayload{block_summary(value)};
    if (rest == "att.attn_weights" && value.dim() == 4) {
      walk.vars["head_focus"] = head_focus(value, cfg.tokens, cfg.gpt.head);
      if (cfg.gpt.head >= 0) {  // --head: that head's (T, T) weights alone
        walk.record(path + "_head", Role::Weights, value[0][cfg.gpt.head]);
        walk.steps.back().vars["head"] = std::to_string(cfg.gpt.head);
        walk.steps.back().vars["block"] = std::to_string(block);
      }
    }
  };
  const Tensor logits = model.forward(cfg.token_ids, trace, L);  // (1, T, vocab_size)

  // The next token: softmax over the last position's logits, its five likeliest ids.
  const int64_t V = logits.size(-1);
  const Tensor last(Shape{1, V}, std::vector<float>(logits.data.end() - V, logits.data.end()));
  const Tensor probas = softmax_lastdim(last);  // (1, vocab_size)
  std::vector<int64_t> order(static_cast<size_t>(V));
  std::iota(order.begin(), order.end(), 0);
  const int64_t k = std::min<int64_t>(5, V);
  std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int64_t a, int64_t b) {
    const float pa = probas.data[a], pb = probas.data[b];
    return pa > pb || (pa == pb && a < b);
  });
  walk.record("probas", probas);
  Tensor top_ids = Tensor::zeros({k}), top_probas = Tensor::zeros({k});
  std::vector<std::string> words;
  std::string printed;
  for (int64_t i = 0; i < k; ++i) {
    top_ids.data[i] = static_cast<float>(order[i]);
    top_probas.data[i] = probas.data[order[i]];
    words.push_back(piece(order[i]));
    printed += fmt::format("{}'{}' {:.4g} (id {})", i ? "\n" : "", words.back(), top_probas.data[i], order[i]);
  }
  walk.add("top5_ids", top_ids);
  walk.steps.back().is_int64 = true;
  walk.add("top5_probas", top_probas);
  walk.add_words("top5_tokens", words, printed);
  walk.vars["next_token"] = words.front();
  walk.vars["next_proba"] = fmt::format("{:.4g}", top_probas.data[0]);

  if (cfg.gpt.max_new_tokens > 0) {  // generate_text_simple(model, idx, max_new_tokens, context_length)
    const std::vector<int64_t> ids = generate_text_simple(
        model, cfg.token_ids, cfg.gpt.max_new_tokens, m.context_length,
        [&](int64_t done) { walk.part_done("generated_ids", done, cfg.gpt.max_new_tokens); });
    Tensor generated = Tensor::zeros({1, static_cast<int64_t>(ids.size())});
    for (size_t i = 0; i < ids.size(); ++i) generated.data[i] = static_cast<float>(ids[i]);
    walk.add("generated_ids", generated);
    walk.steps.back().is_int64 = true;
    const std::string decoded = decoded_text(ids);
    walk.add_words("generated_text", {decoded}, decoded);
    walk.vars["max_new_tokens"] = std::to_string(cfg.gpt.max_new_tokens);
  }
  return walk;
}

}  // namespace attn
