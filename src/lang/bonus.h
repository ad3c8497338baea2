// The texts of the bonus stages (beyond chapter 3), one function per file and language,
// registered in lang_parts() (parts.cpp).
#pragma once

#include "lang/lang.h"

namespace attn {

LangTable bonus_en();  // shared by every bonus stage: headings, --list-stages, notes
LangTable bonus_zh();

// bonus-A's stages (efficient, kv-cache, gqa):
LangTable efficient_en();
LangTable efficient_zh();
LangTable kv_cache_en();
LangTable kv_cache_zh();
LangTable gqa_en();
LangTable gqa_zh();
LangTable mla_en();  // mla_{en,zh}.cpp
LangTable mla_zh();

}  // namespace attn
