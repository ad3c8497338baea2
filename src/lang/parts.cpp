#include "lang/parts.h"

#include <stdexcept>

namespace attn {

LangTable text_en();  // text_en.cpp: --text and the tokens stage
LangTable text_zh();  // text_zh.cpp

const std::vector<LangPart>& lang_parts() {
  // One line per feature and language: {"en", some_feature_en}, {"zh", some_feature_zh}.
  static const std::vector<LangPart> parts = {
      {"en", text_en},
      {"zh", text_zh},
  };
  return parts;
}

namespace {

template <typename V>
void merge(std::map<std::string, V>& into, const std::map<std::string, V>& from, const std::string& code) {
  for (const auto& [key, value] : from)
    if (!into.emplace(key, value).second)
      throw std::logic_error("lang " + code + ": text '" + key + "' is defined twice");
}

}  // namespace

LangTable with_parts(LangTable base) {
  for (const auto& part : lang_parts()) {
    if (base.code != part.code) continue;
    const LangTable t = part.texts();
    merge(base.steps, t.steps, base.code);
    merge(base.checks, t.checks, base.code);
    merge(base.ui, t.ui, base.code);
  }
  return base;
}

}  // namespace attn
