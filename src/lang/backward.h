// The texts of the backward stage (how attention learns), one function per language,
// registered in lang_parts() (parts.cpp).
#pragma once

#include "lang/lang.h"

namespace attn {

LangTable backward_en();  // backward_en.cpp
LangTable backward_zh();  // backward_zh.cpp

}  // namespace attn
