// Attention matrices drawn in the terminal, with token labels.
#pragma once

#include <string>

#include "render/render.h"

namespace attn {

// True for steps worth a heatmap: (..., T, T) attention scores, weights and masks.
bool wants_heatmap(const Walk& walk, const Step& step);

// The heatmap of every (T, T) block of the step, or "" if it has none.
std::string render_heatmap(const Walk& walk, const Step& step, const RenderOptions& opts);

}  // namespace attn
