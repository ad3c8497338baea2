// The texts of attn-walk check, one table per language (check_en.cpp, check_zh.cpp),
// registered in lang_parts() (parts.cpp).
#pragma once

#include "lang/lang.h"

namespace attn {

LangTable check_en();
LangTable check_zh();

}  // namespace attn
