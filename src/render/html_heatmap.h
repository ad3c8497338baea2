// The HTML renderer's heatmaps (render/html.cpp draws the rest of a step).
#pragma once

#include <string>

#include "core/walk.h"
#include "render/render.h"

namespace attn {

// The step's heatmaps as a <div class="heatmaps"> of SVG figures (one per (T, T) block,
// rows of them per batch, head groups framed under their captions) with the legend, or ""
// when the step gets none (wants_heatmap, render/heatmap.h).
std::string heatmaps_html(const Walk& walk, const Step& step, const RenderOptions& opts);

}  // namespace attn
