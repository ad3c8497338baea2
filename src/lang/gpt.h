// The texts of the gpt stage (chapter 4's GPTModel on trained weights), one function per
// language (src/lang/gpt_{en,zh}.cpp), registered in lang_parts() (parts.cpp).
#pragma once

#include <string>

#include "lang/lang.h"

namespace attn {

LangTable gpt_en();
LangTable gpt_zh();

// "gpt/trf_blocks.N.<rest>" ("gpt/trf_blocks.N" for the block's own output, rest ""): the one
// text of that step in every block (lang.h's step_text_name).
inline std::string gpt_block_key(const std::string& rest) {
  return "gpt/trf_blocks.N" + (rest.empty() ? std::string() : "." + rest);
}

}  // namespace attn
