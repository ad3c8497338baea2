// Chapter 2's steps from text to input embeddings, shown before a stage's own when the
// input is --text (src/stages/tokens.cpp; texts: src/lang/text_*.cpp, key "text/<step>").
#pragma once

#include "core/config.h"
#include "text/text_embeddings.h"
#include "core/walk.h"

namespace attn {

// text, pieces, token_ids, token_embeddings, pos_embeddings, input_embeddings.
Walk run_text_steps(const text::TextEmbeddings& e, const Config& cfg);

// A list of words as Python prints a list of str: ['Your', '·journey'].
std::string python_list_str(const std::vector<std::string>& words);

}  // namespace attn
