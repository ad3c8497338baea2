#include "lang/parts.h"

#include <stdexcept>

#include "lang/bonus.h"
#include "lang/backward.h"
#include "lang/bonus_b.h"
#include "lang/chapter.h"
#include "lang/check_texts.h"
#include "lang/gpt.h"
#include "lang/weights_errors.h"

namespace attn {

LangTable review_en();  // review_en.cpp: the learner review's words (issue 12)
LangTable review_zh();
LangTable web_en();        // web_en.cpp: the page's controls
LangTable web_zh();        // web_zh.cpp
LangTable page_tour_en();  // page_tour_en.cpp: the page for a first-time learner (issue 42)
LangTable page_tour_zh();
LangTable web_weights_en();  // web_weights_en.cpp: the page's weights file (issue 41, the page)
LangTable web_weights_zh();
LangTable text_en();        // text_en.cpp: --text and the tokens stage
LangTable text_zh();        // text_zh.cpp
LangTable check_html_en();  // check_html_en.cpp: attn-walk check --format html's headings
LangTable check_html_zh();

const std::vector<LangPart>& lang_parts() {
  // One line per feature: {"en", some_feature_en}, {"zh", some_feature_zh}.
  // clang-format off
  static const std::vector<LangPart> parts = {
      {"en", dot_product_en}, {"zh", dot_product_zh},  // chapter 3's stages
      {"en", softmax_en}, {"zh", softmax_zh},
      {"en", trainable_en}, {"zh", trainable_zh},
      {"en", causal_en}, {"zh", causal_zh},
      {"en", dropout_en}, {"zh", dropout_zh},
      {"en", multi_head_en}, {"zh", multi_head_zh},
      {"en", chapter_checks_en}, {"zh", chapter_checks_zh},  // their checks' labels
      {"en", chapter_ui_en}, {"zh", chapter_ui_zh},  // the renderers' words
      {"en", review_en}, {"zh", review_zh},        // the chapter's extra words and demonstrations
      {"en", check_en}, {"zh", check_zh},          // attn-walk check
      {"en", check_html_en}, {"zh", check_html_zh},  // and its HTML report
      {"en", bonus_en}, {"zh", bonus_zh},          // the bonus group's shared words
      {"en", efficient_en}, {"zh", efficient_zh},  // bonus stages
      {"en", kv_cache_en}, {"zh", kv_cache_zh},
      {"en", gqa_en}, {"zh", gqa_zh},
      {"en", mla_en}, {"zh", mla_zh},
      {"en", bonus_b_en}, {"zh", bonus_b_zh},      // swa, rope, flash
      {"en", web_en}, {"zh", web_zh},              // the browser page's controls
      {"en", page_tour_en}, {"zh", page_tour_zh},  // the page for a first-time learner
      {"en", web_weights_en}, {"zh", web_weights_zh},  // the page's weights file and --stage gpt
      {"en", text_en}, {"zh", text_zh},            // --text and the tokens stage
      {"en", backward_en}, {"zh", backward_zh},    // the backward stage: gradients and training
      {"en", gpt_en}, {"zh", gpt_zh},              // chapter 4's GPTModel on trained weights
      {"en", weights_errors_en}, {"zh", weights_errors_zh},  // the weights readers' errors
  };
  // clang-format on
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
