// The texts of the bonus stages swa, rope and flash, one function per language, registered
// in lang_parts() (parts.cpp).
#pragma once

#include "lang/lang.h"

namespace attn {

LangTable bonus_b_en();  // bonus_b_en.cpp
LangTable bonus_b_zh();  // bonus_b_zh.cpp

}  // namespace attn
