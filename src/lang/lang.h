// Every text a learner reads, one file per language (en.cpp, zh.cpp): step titles,
// explanations and check labels, keyed by stage and step name.
#pragma once

#include <string>

#include "walk.h"

namespace attn {

enum class Lang { En, Zh };

// Parses "en" / "zh"; false for anything else.
bool parse_lang(const std::string& s, Lang* out);

// Fills each step's title (and, with explain, its explanation) and each check's label
// in the chosen language, using the walk's vars for placeholders like {query}.
void localize(Walk& walk, Lang lang, bool explain);

// Short fixed words the renderers need ("note", "check", "step" ...), per language.
std::string ui_text(Lang lang, const std::string& key);

}  // namespace attn
