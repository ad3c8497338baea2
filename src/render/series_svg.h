// A step that holds a sequence (Step::series, e.g. the losses of a training run) drawn as an
// inline SVG line plot: nothing fetched, no script. Knows nothing of what the values mean.
#pragma once

#include <string>

#include "core/walk.h"

namespace attn {

// The plot of step.value's values against their index (1-based), or "" for no values; its axes
// titled `x_title` (the index) and `y_title` (the values). It scales to the width it is given
// (a viewBox, no fixed size): the page's CSS sets how wide.
std::string series_svg(const Step& step, const std::string& x_title = "", const std::string& y_title = "");

}  // namespace attn
