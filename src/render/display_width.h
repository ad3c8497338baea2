// UTF-8 labels in a terminal: invalid bytes and control characters replaced, and the
// columns a label takes (the heatmaps' token labels; render/heatmap.h includes this).
#pragma once

#include <string>
#include <vector>

namespace attn {

// Text with invalid UTF-8 bytes and control characters (C0, DEL, C1, bidirectional
// overrides) replaced by `replacement`; newlines and tabs kept if keep_newlines.
std::string clean_utf8(const std::string& s, const std::string& replacement, bool keep_newlines);
// The token as a label: invalid UTF-8 and control characters (which could drive the
// terminal) become '?', an empty token becomes "\"\"".
std::string sanitize_label(const std::string& s);
// Columns the (sanitized) text takes in a terminal: 2 for East Asian wide and fullwidth
// characters and most emoji, 0 for combining marks, 1 otherwise.
int display_width(const std::string& s);
// The label cut to at most `width` columns (ending in "…" when cut), not padded.
std::string fit_width(const std::string& s, int width);
// The text wrapped at `width` display columns, at spaces (dropped there) and between Chinese
// characters (never before ，。）or after （), each further line starting with `indent`;
// a word wider than the line stays whole. Lines already short enough, and width <= 0,
// are left as they are.
std::string wrap_words(const std::string& text, int width, const std::string& indent);
// Splits into glyphs: a character plus any combining marks that follow it.
std::vector<std::string> glyphs(const std::string& s);

}  // namespace attn
