// The texts of the gpt stage (chapter 4's GPTModel on trained weights), one function per
// language (src/lang/gpt_{en,zh}.cpp), registered in lang_parts() (parts.cpp).
#pragma once

#include <string>

#include "lang/lang.h"

namespace attn {

LangTable gpt_en();
LangTable gpt_zh();

// Blocks whose steps have texts: GPT-2 XL has 48.
constexpr int kGptTextBlocks = 64;
// "gpt/trf_blocks.<b>.<rest>" ("gpt/trf_blocks.<b>" for the block's own output, rest ""),
// with a variant ("ff.layers.1#none_negative") kept after the path.
inline std::string gpt_block_key(int b, const std::string& rest) {
  return "gpt/trf_blocks." + std::to_string(b) + (rest.empty() ? "" : "." + rest);
}

}  // namespace attn
