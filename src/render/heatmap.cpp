#include "render/heatmap.h"

namespace attn {

bool wants_heatmap(const Walk&, const Step&) { return false; }

std::string render_heatmap(const Walk&, const Step&, const RenderOptions&) { return ""; }

}  // namespace attn
