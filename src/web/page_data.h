// What the page's script starts from (the <script id="aw-data"> element of
// src/render/page/page.html): the options to build controls from, the stages, the page's
// words in every language, the chapter's embeddings, and the state shown.
#pragma once

#include <string>
#include <vector>

#include "core/walk.h"
#include "render/render.h"

namespace attn {

// {"options": [...options_json()'s rows that are on_page...],
//  "stages": [{"name", "section"[, "needs": the option it cannot walk without, "weights"]}], "langs": ["en", ...], "texts": {"en": {"web.*": ...}},
//  "default_input": {"tokens", "embeddings"}, "engine": bool,
//  "state": {"stage": "causal", "seed": "7", "qkv-bias": "1", ...}   options by long name
//  "input": {"tokens", "embeddings"} or null,
//  "values": web/walk_values.h's, for the walk shown ({} for none)}
// `walks` (may be empty) and how they are shown (`ro`: the language, the heatmaps' scale)
// give the state: the walk a CLI page shows. Each option of the table on the page is in it
// when it differs from its default (OptionRow::from_config, from_render).
std::string page_data_json(const std::vector<Walk>& walks, const RenderOptions& ro, bool engine);

}  // namespace attn
