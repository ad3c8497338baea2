// The chapter's sections as stages. Each stage is one file in this folder: a flat,
// top-to-bottom list of named steps, recorded into a Walk.
#pragma once

#include <string>
#include <vector>

#include "config.h"
#include "walk.h"

namespace attn {

Walk run_dot_product(const Config& cfg);  // 3.3.1-3.3.2  attention without trainable weights
Walk run_softmax(const Config& cfg);      // 3.3.1        normalising scores, naive vs stable
Walk run_trainable(const Config& cfg);    // 3.4          W_query, W_key, W_value; SelfAttention_v1/v2
Walk run_causal(const Config& cfg);       // 3.5.1        hiding future words
Walk run_dropout(const Config& cfg);      // 3.5.2-3.5.3  dropout masks; CausalAttention
Walk run_multi_head(const Config& cfg);   // 3.6          the wrapper and MultiHeadAttention
Walk run_tokens(const Config& cfg);       // 2.5-2.7      chapter 2's cells: nn.Embedding, GPT-2's BPE

struct StageInfo {
  const char* name;     // "--stage" value
  const char* section;  // where it is in the chapter
  const char* summary;  // one line for --list-stages (English, from src/lang/en.cpp)
  Walk (*run)(const Config&);
  bool in_all = true;   // part of --stage all (chapter 3); chapter 2's tokens stage is not
};

const std::vector<StageInfo>& all_stages();
// "3" for section "3.5.1": the chapter a stage belongs to.
inline std::string chapter_of(const std::string& section) { return section.substr(0, section.find('.')); }
const StageInfo* find_stage(const std::string& name);

}  // namespace attn
