#include "lang/weights_errors.h"

#include <utility>

namespace attn {

std::string weights_error_text(Lang lang, const std::string& id, std::map<std::string, std::string> vars,
                               const std::string& english) {
  if (id.empty() || lang == Lang::En) return english;
  const LangTable& table = lang_table(lang);
  const auto text = table.ui.find("weights.err." + id);
  if (text == table.ui.end()) return english;
  // A placeholder said in words ({reason}, {kind}, {what}) comes with its id ({reason_id}:
  // "ENOENT"): the language's "weights.<name>.<id>" says it.
  std::map<std::string, std::string> said;
  for (const auto& [name, value] : vars)
    if (name.size() > 3 && name.compare(name.size() - 3, 3, "_id") == 0) {
      const std::string word = name.substr(0, name.size() - 3);
      const auto it = table.ui.find("weights." + word + "." + value);
      if (it != table.ui.end()) said[word] = it->second;
    }
  for (auto& [name, value] : said) vars[name] = value;
  return fill_placeholders(text->second, vars);
}

}  // namespace attn
