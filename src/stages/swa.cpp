// Beyond chapter 3: sliding-window attention (ch04/06_swa/gpt_with_kv_swa.py,
// MultiHeadAttentionWithSWA), as Mistral and Gemma use it. Each token attends to itself and
// the W - 1 tokens before it, so a KV cache needs to keep only W keys and values.
// Texts: src/lang/bonus_b_en.cpp, bonus_b_zh.cpp (key "swa/<step>").
#include <algorithm>
#include <cmath>

#include "modules/chapter.h"
#include "modules/sliding_window.h"
#include "stages/bonus_common.h"
#include "stages/common.h"
#include "stages/stages.h"
#include "torch/torch_random.h"

namespace attn {

namespace {

// Every row of every (T, T) block gives weight to exactly min(i + 1, W) keys: itself and
// the W - 1 before it, fewer at the start. max_diff = the largest miscount.
Comparison attends_to_window(const Tensor& w, int64_t W) {
  const int64_t T = w.size(-1);
  Comparison c{true, 0.0};
  for (int64_t row = 0; row < w.numel() / T; ++row) {
    const int64_t i = row % T;
    const float* r = w.data.data() + row * T;
    const int64_t seen = std::count_if(r, r + T, [](float v) { return v != 0.0f; });
    const double miss = std::fabs(static_cast<double>(seen - std::min(i + 1, W)));
    c.max_diff = std::max(c.max_diff, miss);
    if (miss != 0.0) c.passed = false;
  }
  return c;
}

// Rows [0, n) of every (T, T) block: the queries whose window still reaches token 1.
Tensor first_rows(const Tensor& w, int64_t n) {
  const int64_t T = w.size(-1);
  Shape shape = w.shape;
  shape[shape.size() - 2] = n;
  std::vector<float> data;
  for (int64_t blk = 0; blk < w.numel() / (T * T); ++blk)
    data.insert(data.end(), w.data.begin() + blk * T * T, w.data.begin() + blk * T * T + n * T);
  return Tensor(shape, std::move(data));
}

}  // namespace

Walk run_swa(const Config& cfg) {
  Walk walk = bonus_walk("swa", cfg);
  const BonusConfig& bc = cfg.bonus;
  const int64_t T = cfg.num_tokens(), d_in = cfg.d_in(), W = bc.window;
  const Tensor batch = bonus_batch(cfg);  // (B, T, d_in)
  walk.vars["window_rows"] = std::to_string(std::min(W, T));

  // The module right after the seed: the chapter's MultiHeadAttention draws, banded mask.
  TorchGenerator gen;
  gen.manual_seed(cfg.seed1);
  const MultiHeadAttention swa = sliding_window_attention(gen, d_in, bc.d_out, T, bc.heads, cfg.qkv_bias, W);
  MultiHeadAttention::Trace t = swa.forward_traced(gen, batch);

  // diff = i - j; hidden when the key lies in the future (diff < 0) or W or more back.
  walk.add("mask", Role::MaskHidden, swa.mask);                                   // (T, T)
  walk.add("attn_scores_masked", Role::Scores, std::move(t.attn_scores_masked));  // (B, H, T, T)
  const Tensor& attn_weights = walk.add("attn_weights", Role::Weights, std::move(t.attn_weights));
  add_check(walk, "swa_rows_attend_to_window", attends_to_window(attn_weights, W));
  add_check(walk, "softmax_rows_sum_to_1", rows_sum_to_one(attn_weights));

  // The same draws with the chapter's causal mask: the first W rows see the same keys.
  gen.manual_seed(cfg.seed1);
  const MultiHeadAttention mha(gen, d_in, bc.d_out, T, 0.0, bc.heads, cfg.qkv_bias, DropoutKernel::Default);
  const int64_t n = std::min(W, T);
  add_check(walk, "swa_first_rows_equal_causal",
            compare_close(first_rows(attn_weights, n), first_rows(mha.forward_traced(gen, batch).attn_weights, n)));
  walk.add("context_vecs", std::move(t.context_vecs));  // (B, T, d_out)
  return walk;
}

}  // namespace attn
