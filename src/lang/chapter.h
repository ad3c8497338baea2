// The texts of chapter 3's stages, one function per stage and language
// (src/lang/<stage>_<code>.cpp), plus the chapter's check labels and the renderers' words;
// registered in lang_parts() (parts.cpp) as the bonus stages' are.
#pragma once

#include "lang/lang.h"

namespace attn {

LangTable dot_product_en();  // dot_product_{en,zh}.cpp: section 3.3.1-3.3.2
LangTable dot_product_zh();
LangTable softmax_en();  // section 3.3.1
LangTable softmax_zh();
LangTable trainable_en();  // section 3.4
LangTable trainable_zh();
LangTable causal_en();  // section 3.5.1
LangTable causal_zh();
LangTable dropout_en();  // sections 3.5.2-3.5.3
LangTable dropout_zh();
LangTable multi_head_en();  // section 3.6, exercises 3.2 and 3.3
LangTable multi_head_zh();

LangTable chapter_checks_en();  // the labels of the chapter's checks
LangTable chapter_checks_zh();
LangTable chapter_ui_en();  // the renderers' words, heatmaps, the page, the dropout-kernel notes
LangTable chapter_ui_zh();

}  // namespace attn
