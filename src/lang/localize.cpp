#include "lang/lang.h"

#include <algorithm>

namespace attn {

const std::vector<const LangTable*>& languages() {
  // One line per language, in Lang order (English first: it is every other one's fallback).
  static const std::vector<const LangTable*> all = {
      &lang_en(),
      &lang_zh(),
  };
  return all;
}

std::vector<std::string> lang_codes() {
  std::vector<std::string> codes;
  for (const auto* t : languages()) codes.push_back(t->code);
  return codes;
}

bool parse_lang(const std::string& s, Lang* out) {
  const auto& all = languages();
  for (size_t i = 0; i < all.size(); ++i)
    if (all[i]->code == s) {
      *out = static_cast<Lang>(i);
      return true;
    }
  return false;
}

namespace {

const LangTable& table(Lang lang) {
  const auto& all = languages();
  const auto i = static_cast<size_t>(lang);
  return i < all.size() ? *all[i] : *all.front();
}

// The language's entry, else the fallback's; nullptr if neither has it.
template <typename V>
const V* lookup(std::map<std::string, V> LangTable::*field, const LangTable& lang,
                const LangTable& fallback, const std::string& key) {
  for (const LangTable* t : {&lang, &fallback}) {
    const auto& m = t->*field;
    const auto it = m.find(key);
    if (it != m.end()) return &it->second;
  }
  return nullptr;
}

}  // namespace

const LangTable& lang_table(Lang lang) { return table(lang); }

std::string fill_placeholders(const std::string& text, const std::map<std::string, std::string>& vars) {
  std::string out;
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t open = text.find('{', pos);
    if (open == std::string::npos) break;
    const size_t close = text.find('}', open + 1);
    if (close == std::string::npos) break;
    const auto it = vars.find(text.substr(open + 1, close - open - 1));
    out += text.substr(pos, open - pos);
    if (it != vars.end()) {
      out += it->second;
      pos = close + 1;
    } else {
      out += '{';
      pos = open + 1;
    }
  }
  return out + text.substr(pos);
}

std::string step_text_name(const std::string& step) {
  for (size_t begin = 0; begin <= step.size();) {
    const size_t end = std::min(step.find('.', begin), step.size());
    const std::string part = step.substr(begin, end - begin);
    if (!part.empty() && part.find_first_not_of("0123456789") == std::string::npos)
      return step.substr(0, begin) + "N" + step.substr(end);  // the first index only
    begin = end + 1;
  }
  return step;
}

bool find_step_text(const LangTable& lang, const LangTable& fallback, const std::string& stage,
                    const std::string& step, const std::string& variant, StepText* out) {
  const std::string pattern = step_text_name(step);
  if (pattern != step && !lookup(&LangTable::steps, lang, fallback, stage + "/" + step) &&
      !lookup(&LangTable::steps, lang, fallback, stage + "/" + step + "#" + variant))
    return find_step_text(lang, fallback, stage, pattern, variant, out);  // one text for every block
  const std::string key = stage + "/" + step;
  // A variant says something the plain text would get wrong, so the fallback's variant
  // beats the language's plain text.
  const StepText* t =
      variant.empty() ? nullptr : lookup(&LangTable::steps, lang, fallback, key + "#" + variant);
  if (!t) t = lookup(&LangTable::steps, lang, fallback, key);
  if (!t) return false;
  *out = *t;
  return true;
}

void localize(Walk& walk, const LangTable& lang, const LangTable& fallback, bool explain) {
  // Words for step details ({total}) join the walk's own vars.
  std::map<std::string, std::string> detail_vars = walk.vars;
  for (const LangTable* t : {&fallback, &lang})
    for (const auto& [key, text] : t->ui)
      if (key.rfind("word.", 0) == 0) detail_vars[key.substr(5)] = text;

  for (auto& step : walk.steps) {
    const std::string& variant = step.variant;  // set by the stage (Step::variant)
    StepText text;
    if (find_step_text(lang, fallback, walk.stage, step.name, variant, &text)) {
      std::map<std::string, std::string> vars = step.vars;  // the step's own first
      vars.insert(walk.vars.begin(), walk.vars.end());
      step.title = fill_placeholders(text.title, vars);
      if (step.beyond_chapter) {
        const std::string* mark = lookup(&LangTable::ui, lang, fallback, std::string("beyond_chapter"));
        if (mark) step.title = fill_placeholders(*mark, {{"title", step.title}});
      }
      step.explanation = explain ? fill_placeholders(text.explanation, vars) : "";
      // A text about finite numbers above a tensor that is not all finite says so, unless its own
      // variant ("nonfinite") is already about that.
      if (explain && variant != "nonfinite" && holds_nonfinite(step))
        if (const std::string* qualifier = lookup(&LangTable::ui, lang, fallback, std::string("explain.nonfinite")))
          step.explanation += " " + *qualifier;
    } else if (step.title.empty()) {
      step.title = step.name;
    }
    for (auto& line : step.details) line = fill_placeholders(line, detail_vars);
    if (!step.parameter_table.rows.empty()) {  // its total's word, as details' {total}
      const std::string* word = lookup(&LangTable::ui, lang, fallback, std::string("word.total"));
      step.parameter_table.total_label = word ? *word : "{total}";
    }
  }
  for (auto& c : walk.checks) {
    const std::string* label = lookup(&LangTable::checks, lang, fallback, c.id);
    c.label = label ? fill_placeholders(*label, walk.vars) : c.id;
    const std::string* measure = lookup(&LangTable::ui, lang, fallback, "measure." + c.id);
    if (!measure) measure = lookup(&LangTable::ui, lang, fallback, std::string("max_diff"));
    c.measure = measure ? *measure : "max_diff";
  }
  for (auto& note : walk.notes) {
    const std::string* text = lookup(&LangTable::ui, lang, fallback, note);
    if (text) note = fill_placeholders(*text, walk.vars);
  }
}

void localize(Walk& walk, Lang lang, bool explain) { localize(walk, table(lang), lang_en(), explain); }

std::string ui_text(Lang lang, const std::string& key) {
  const std::string* text = lookup(&LangTable::ui, table(lang), lang_en(), key);
  return text ? *text : key;
}

}  // namespace attn
