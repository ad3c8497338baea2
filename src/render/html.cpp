#include "render/render.h"

namespace attn {

std::string render_html(const std::vector<Walk>&, const RenderOptions&) {
  return "<!doctype html><title>attn-walk</title><p>HTML output is not written yet.</p>\n";
}

}  // namespace attn
