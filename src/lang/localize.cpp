#include "lang/lang.h"

#include <map>

namespace attn {

bool parse_lang(const std::string& s, Lang* out) {
  if (s == "en") *out = Lang::En;
  else if (s == "zh") *out = Lang::Zh;
  else return false;
  return true;
}

void localize(Walk& walk, Lang, bool) {
  for (auto& c : walk.checks)
    if (c.label.empty()) c.label = c.id;
}

std::string ui_text(Lang, const std::string& key) {
  static const std::map<std::string, std::string> en = {
      {"section", "chapter 3, section"},
      {"input", "input"},
      {"note", "note"},
      {"max_diff", "largest difference"},
      {"step_prompt", "-- Enter: next step, q: quit -- "},
      {"stage.dot-product", "attention scores as dot products, softmax weights, context vectors"},
      {"stage.softmax", "normalising scores: sum, naive exp, and the stable softmax"},
      {"stage.trainable", "W_query, W_key, W_value; scaled dot-product; SelfAttention_v1 and v2"},
      {"stage.causal", "masking future tokens: the tril method and the -inf method"},
      {"stage.dropout", "dropout masks on attention weights; the CausalAttention class"},
      {"stage.multi-head", "MultiHeadAttentionWrapper and MultiHeadAttention, every intermediate"},
  };
  const auto it = en.find(key);
  return it == en.end() ? key : it->second;
}

}  // namespace attn
