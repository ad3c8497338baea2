// Every text a learner reads, one table per language (en.cpp, zh.cpp) gathered from parts
// (parts.cpp: one file per stage or feature and language): step titles, explanations and
// check labels, keyed by stage and step name, plus the renderers' fixed words. A third
// language is one more table and its parts, and one line in languages() (localize.cpp);
// English fills in whatever a language leaves out.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/walk.h"

namespace attn {

// A language is its index in languages(): En and Zh are the first two; further
// languages are Lang(2), Lang(3), ... as registered.
enum class Lang : int {
  En = 0,
  Zh = 1
};

struct StepText {
  std::string title;        // one line, shown in the step's heading
  std::string explanation;  // one to three sentences: what (with its formula), why, shapes
};

// One language's texts. Placeholders like {query} are filled from Walk::vars.
struct LangTable {
  std::string code;  // "en", as --lang takes it
  std::string name;  // "English", in the language itself
  // "<stage>/<step>" -> texts; "<stage>/<step>#<variant>" for config-dependent meanings
  // (a stage selects one with Step::variant).
  std::map<std::string, StepText> steps;
  // check id -> label
  std::map<std::string, std::string> checks;
  // Renderer words ("section", "note", "max_diff", "step_prompt", "input"), stage
  // summaries ("stage.<name>"), walk notes ("note.<...>") and words for step details
  // ("word.<name>", used as {name} in Step::details).
  std::map<std::string, std::string> ui;
};

const LangTable& lang_en();  // en.cpp
const LangTable& lang_zh();  // zh.cpp

// Every registered language, in Lang order.
const std::vector<const LangTable*>& languages();
// Their codes: {"en", "zh", ...}, for option checks and completions.
std::vector<std::string> lang_codes();

// Parses a language code ("en", "zh", ...); false for anything else.
bool parse_lang(const std::string& s, Lang* out);

// Fills each step's title (and, with explain, its explanation) and each check's label
// in the chosen language, using the walk's vars for placeholders like {query}; replaces
// note keys with their text and fills {word} placeholders in step details.
void localize(Walk& walk, Lang lang, bool explain);

// Short fixed words the renderers need ("note", "check", "step" ...), per language.
std::string ui_text(Lang lang, const std::string& key);

// The registered table of a language (English for an unknown one).
const LangTable& lang_table(Lang lang);

// The same as localize() above with explicit tables: `lang`'s texts, and `fallback`'s
// wherever `lang` has none (localize(walk, Lang, ...) passes lang_en() as the fallback).
void localize(Walk& walk, const LangTable& lang, const LangTable& fallback, bool explain);

// The text of one step: "<stage>/<step>#<variant>" if a variant is given and either table
// has it, else "<stage>/<step>", each from `lang` first and then `fallback`. Returns false
// if neither table has the step.
bool find_step_text(const LangTable& lang, const LangTable& fallback, const std::string& stage,
                    const std::string& step, const std::string& variant, StepText* out);
// The name a step's text is kept under when no text has its own name: its first dot-separated
// part that is a number becomes N ("trf_blocks.3.ff.layers.0" -> "trf_blocks.N.ff.layers.0"),
// so that one text serves each of a model's blocks. Names without such a part are their own.
std::string step_text_name(const std::string& step);

// "{name}" -> vars[name]; unknown placeholders are left as they are.
std::string fill_placeholders(const std::string& text, const std::map<std::string, std::string>& vars);

}  // namespace attn
