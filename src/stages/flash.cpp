// Beyond chapter 3: flash attention's online softmax. The chapter's causal MultiHeadAttention
// computed one block of keys at a time: a (T, block) tile of scores instead of the (T, T)
// matrix, with a running maximum m, a running sum l and an accumulator rescaled whenever m
// grows. The book's repository has no such code; the PyTorch reference is attn-walk's own
// (tests/golden/bonus/flash.py). Texts: src/lang/bonus_b_en.cpp, bonus_b_zh.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "modules/chapter.h"
#include "modules/flash.h"
#include "ops/ops.h"
#include "stages/bonus_common.h"
#include "stages/common.h"
#include "stages/stages.h"
#include "torch/torch_random.h"

namespace attn {

// The walk records four steps per block, each up to (B, H, T, head_dim): a bound on the
// blocks keeps its memory near that of one (B, H, T, T) score matrix.
constexpr int64_t kMaxFlashBlocks = 64;

std::string flash_misuse(const Config& cfg) {
  if (std::string why = bonus_heads_misuse(cfg); !why.empty()) return why;
  const int64_t T = cfg.num_tokens(), blocks = (T + cfg.bonus.block - 1) / cfg.bonus.block;
  if (blocks <= kMaxFlashBlocks) return "";
  return fmt::format("--block: {} tokens in blocks of {} make {} blocks, and the flash walk shows "
                     "every block; use at most {} (--block {} or more)",
                     T, cfg.bonus.block, blocks, kMaxFlashBlocks, (T + kMaxFlashBlocks - 1) / kMaxFlashBlocks);
}

Walk run_flash(const Config& cfg) {
  Walk walk = bonus_walk("flash", cfg);
  const BonusConfig& bc = cfg.bonus;
  const int64_t B = cfg.batch, T = cfg.num_tokens(), H = bc.heads, Bk = std::min(bc.block, T);
  const Tensor batch = bonus_batch(cfg);  // (B, T, d_in)

  // The chapter's MultiHeadAttention, right after the seed; its ordinary pass for the checks.
  TorchGenerator gen;
  gen.manual_seed(cfg.seed1);
  const MultiHeadAttention mha(gen, cfg.d_in(), bc.d_out, T, 0.0, H, cfg.qkv_bias, DropoutKernel::Default);
  const MultiHeadAttention::Trace t = mha.forward_traced(gen, batch);

  // Block by block over the keys (B, H, T, head_dim each), every query row at once.
  FlashTrace f = flash_attention(t.queries_t, t.keys_t, t.values_t, bc.block);
  for (size_t j = 0; j < f.blocks.size(); ++j) {
    FlashBlock& blk = f.blocks[j];
    // clang-format off
    std::map<std::string, std::string> vars = {
        {"j", std::to_string(j + 1)}, {"key_first", std::to_string(blk.start + 1)},
        {"key_last", std::to_string(blk.end)}};
    for (auto [name, value] : {std::pair<const char*, Tensor*>{"scores", &blk.scores},  // (B, H, T, keys)
                               {"m", &blk.m},        // (B, H, T, 1)
                               {"l", &blk.l},        // (B, H, T, 1)
                               {"acc", &blk.acc}}) { // (B, H, T, head_dim)
      // clang-format on
      walk.add(name, std::move(*value));
      walk.steps.back().vars = vars;
      if (j == 0) walk.last().variant = "first";  // nothing to rescale yet: m starts at -inf
    }
  }
  const Tensor& out = walk.add("flash_context_vec", std::move(f.out));  // (B, H, T, head_dim)
  add_check(walk, "flash_equals_attention", compare_close(transpose(out, 1, 2), t.context_vec));
  const Tensor context_vec = view(transpose(out, 1, 2), {B, T, bc.d_out});
  const Tensor& context_vecs = walk.add("context_vecs", mha.out_proj(context_vec));  // (B, T, d_out)
  add_check(walk, "flash_output_equals_module", compare_close(context_vecs, t.context_vecs));

  // Memory: one (T, block) tile per head at a time against the whole (T, T) matrix.
  walk.vars["num_blocks"] = std::to_string(f.blocks.size());
  walk.vars["tile_floats"] = std::to_string(B * H * T * Bk);
  walk.vars["full_floats"] = std::to_string(B * H * T * T);
  walk.vars["tile_shape"] = fmt::format("({}, {}, {}, {})", B, H, T, Bk);
  walk.vars["full_shape"] = fmt::format("({}, {}, {}, {})", B, H, T, T);
  return walk;
}

}  // namespace attn
