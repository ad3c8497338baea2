// What the page's script starts from (the <script id="aw-data"> element of
// src/render/page/page.html): the options to build controls from, the stages, the page's
// words in every language, the chapter's embeddings, and the state shown.
#pragma once

#include <string>
#include <vector>

#include "lang/lang.h"
#include "core/walk.h"

namespace attn {

// {"options": [...options_json()'s rows that are on_page...],
//  "stages": [{"name", "section"}], "langs": ["en", ...], "texts": {"en": {"web.*": ...}},
//  "default_input": {"tokens", "embeddings"}, "engine": bool,
//  "state": {"stage": "causal", "seed": "7", "qkv-bias": "1", ...}   options by long name
//  "input": {"tokens", "embeddings"} or null}
// `walks` (may be empty) and `lang` give the state: the walk a CLI page shows.
std::string page_data_json(const std::vector<Walk>& walks, Lang lang, bool engine);

}  // namespace attn
