// Small pieces more than one stage repeats from the chapter.
#pragma once

#include "config.h"
#include "tensor.h"

namespace attn {

// attn_scores_2[i] = torch.dot(x_i, query) for every row x_i of inputs, as section 3.3.1 loops.
Tensor dot_scores(const Tensor& inputs, const Tensor& query);

// The chapter's default query x(2), or whichever --query chose.
inline Tensor query_row(const Config& cfg) { return cfg.inputs[cfg.query - 1]; }

}  // namespace attn
