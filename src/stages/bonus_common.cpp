#include "stages/bonus_common.h"

#include <fmt/format.h>

#include "ops/ops.h"
#include "stages/common.h"

namespace attn {

std::string bonus_heads_misuse(const Config& cfg) {
  const BonusConfig& b = cfg.bonus;
  if (b.d_out % b.heads == 0) return "";
  return fmt::format("--heads: the bonus stages split d_out {} into {} heads, so --d-out must be "
                     "divisible by --heads (without them the bonus stages use d_out 8 and 4 heads)",
                     b.d_out, b.heads);
}

Walk bonus_walk(const std::string& stage, const Config& cfg) {
  Walk walk(stage, cfg);
  set_common_vars(walk, cfg);
  const BonusConfig& b = cfg.bonus;
  auto& v = walk.vars;
  v["d_out"] = std::to_string(b.d_out);
  v["heads"] = std::to_string(b.heads);
  v["head_dim"] = std::to_string(b.head_dim());
  v["kv_groups"] = std::to_string(b.kv_groups);
  v["window"] = std::to_string(b.window);
  v["rope_base"] = format_number(b.rope_base);
  v["block"] = std::to_string(b.block);
  walk.notes.push_back("note.bonus_sizes");
  return walk;
}

Tensor bonus_batch(const Config& cfg) { return stack_copies(cfg.inputs, cfg.batch); }

}  // namespace attn
