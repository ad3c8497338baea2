// Renderers turn finished Walks into text. They never compute; stages never print.
#pragma once

#include <string>
#include <vector>

#include "lang/lang.h"
#include "walk.h"

namespace attn {

struct RenderOptions {
  Lang lang = Lang::En;
  bool explain = false;  // --explain: show each step's explanation
  bool heatmap = false;  // --heatmap: draw attention matrices in the terminal
  bool color = false;    // ANSI colours (resolved from --color, NO_COLOR and isatty)
};

// Headings plus every tensor exactly as print(tensor) shows it in PyTorch.
std::string render_text(const Walk& walk, const RenderOptions& opts);
// The walk's header lines (stage, input, notes) and one step, for --step mode.
std::string render_text_header(const Walk& walk, const RenderOptions& opts);
std::string render_text_step(const Walk& walk, size_t index, const RenderOptions& opts);

// One JSON document: {"tool", "version", "stage", "config", "tokens", "notes", "checks",
// "steps": [...]}. Several walks (--stage all) become one document with stage "all".
// Schema: docs/json-schema.md.
std::string render_json(const std::vector<Walk>& walks);

// One self-contained HTML page (no network): every step, its explanation, its tensor,
// and SVG heatmaps of the attention matrices.
std::string render_html(const std::vector<Walk>& walks, const RenderOptions& opts);

// The text block PyTorch prints for a step (with "Parameter containing:" and suffixes).
std::string printed_step(const Step& step);

}  // namespace attn
