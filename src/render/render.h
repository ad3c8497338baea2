// Renderers turn finished Walks into text. They never compute; stages never print.
#pragma once

#include <string>
#include <vector>

#include "lang/lang.h"
#include "core/walk.h"

namespace attn {

struct RenderOptions {
  Lang lang = Lang::En;
  bool explain = false;             // --explain: show each step's explanation
  bool heatmap = false;             // --heatmap: draw attention matrices in the terminal
  bool color = false;               // ANSI colours (resolved from --color, NO_COLOR and isatty)
  bool heatmap_per_matrix = false;  // --heatmap-scale matrix: each matrix on its own colour scale
  int width = 0;                    // text: wrap headings, explanations and checks at this many columns (0: never)
  std::string page_data;            // HTML: the JSON the page's controls start from (empty: none)
};

// Headings plus every tensor exactly as print(tensor) shows it in PyTorch.
std::string render_text(const Walk& walk, const RenderOptions& opts);
// The walk's header lines (stage, input, notes) and one step, for --step mode.
std::string render_text_header(const Walk& walk, const RenderOptions& opts);
std::string render_text_step(const Walk& walk, size_t index, const RenderOptions& opts);

// One JSON document: {"tool", "version", "stage", "config", "tokens", "notes", "checks",
// "steps": [...]}. Several walks (--stage all) become one document with stage "all".
// Schema: docs/json-schema.md. compact (--format json-compact): a --text step with a
// dimension of GPT-2's 50257-token vocabulary keeps only the text's ids along it, with the
// count and a digest of the rest ("compact").
std::string render_json(const std::vector<Walk>& walks, bool compact = false);

// One self-contained HTML page (no network): every step, its explanation, its tensor,
// and SVG heatmaps of the attention matrices; the same page as `make web`'s, with this
// walk preloaded and the controls' data (`page_data`, src/web/page_data.h) in it.
std::string render_html(const std::vector<Walk>& walks, const RenderOptions& opts);

// The page's body: header (input, tokens, settings), contents, and every walk's steps
// (each a <section data-step="NAME"> with its <pre class="tensor">) and heatmaps. The page
// (render_html, and the web engine, src/web/) puts it into src/render/page/page.html.
std::string render_html_body(const std::vector<Walk>& walks, Lang lang);
std::string render_html_body(const std::vector<Walk>& walks, const RenderOptions& opts);
// The page's <title> text for these walks.
std::string html_title(const std::vector<Walk>& walks, Lang lang);
// Text as HTML: invalid UTF-8 and control characters cleaned, & < > " ' escaped.
std::string html_escape(const std::string& raw);

// The text block PyTorch prints for a step (with "Parameter containing:" and suffixes).
std::string printed_step(const Step& step);

}  // namespace attn
