// What every bonus stage (beyond chapter 3) shares: its sizes, its placeholders and note,
// and the option checks they all need.
#pragma once

#include <string>

#include "core/config.h"
#include "core/tensor.h"
#include "core/walk.h"

namespace attn {

// "" if the bonus stages can split cfg.bonus.d_out into cfg.bonus.heads heads, else a
// usage message naming --d-out/--heads.
std::string bonus_heads_misuse(const Config& cfg);

// A bonus stage's walk, opened as every bonus stage opens it: the chapter's placeholders
// (set_common_vars) with the bonus sizes in place of the chapter's: {d_out}, {heads},
// {head_dim}; and {kv_groups}, {window}, {rope_base}, {block}; and the note that says which
// sizes the bonus modules use and why.
Walk bonus_walk(const std::string& stage, const Config& cfg);

// torch.stack((inputs,) * batch): the batch every bonus module reads, (B, T, d_in).
Tensor bonus_batch(const Config& cfg);

}  // namespace attn
