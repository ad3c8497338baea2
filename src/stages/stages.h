// The chapter's sections as stages. Each stage is one file in this folder: a flat,
// top-to-bottom list of named steps, recorded into a Walk.
#pragma once

#include <string>
#include <vector>

#include "core/config.h"
#include "core/stage_place.h"
#include "core/walk.h"

namespace attn {

Walk run_dot_product(const Config& cfg);  // 3.3.1-3.3.2  attention without trainable weights
Walk run_softmax(const Config& cfg);      // 3.3.1        normalising scores, naive vs stable
Walk run_trainable(const Config& cfg);    // 3.4          W_query, W_key, W_value; SelfAttention_v1/v2
Walk run_causal(const Config& cfg);       // 3.5.1        hiding future words
Walk run_dropout(const Config& cfg);      // 3.5.2-3.5.3  dropout masks; CausalAttention
Walk run_multi_head(const Config& cfg);   // 3.6          the wrapper and MultiHeadAttention
// 3.6.2's MultiHeadAttention alone, with block --layer's weights of --weights (multi_head_weights.cpp);
// run_multi_head walks it when the Config holds a model.
Walk run_multi_head_on_weights(const Config& cfg);
std::string multi_head_misuse(const Config& cfg);  // --d-out must split into --heads
Walk run_tokens(const Config& cfg);                // 2.5-2.7      chapter 2's cells: nn.Embedding, GPT-2's BPE

// The same chapter stages with a learner's lines in some of the book's cells (modules/cells.h),
// for `attn-walk check` to recompute a mistake with the chapter's own code.
struct Cells;
Walk run_trainable_with(const Config& cfg, const Cells& cells);
Walk run_causal_with(const Config& cfg, const Cells& cells);
Walk run_dropout_with(const Config& cfg, const Cells& cells);
Walk run_multi_head_with(const Config& cfg, const Cells& cells);

// Beyond chapter 3 (one file each, in the book repository's vocabulary): the bonus stages,
// each with the check of the options it cannot run with (StageInfo::misuse), as multi-head has;
// efficient, kv-cache, swa and mla have no rule beyond every bonus stage's (bonus_heads_misuse).
Walk run_efficient(const Config& cfg);  // ch03/02_bonus     MultiHeadAttentionCombinedQKV
Walk run_kv_cache(const Config& cfg);   // ch04/03_kv-cache  one token at a time, the cache growing
Walk run_gqa(const Config& cfg);        // ch04/04_gqa       keys and values in --kv-groups groups
std::string gqa_misuse(const Config& cfg);
Walk run_swa(const Config& cfg);    // ch04/06_swa  sliding-window attention
Walk run_rope(const Config& cfg);   // llama3.py    rotary position embeddings
Walk run_flash(const Config& cfg);  // (own)        flash attention's online softmax
Walk run_mla(const Config& cfg);    // ch04/05_mla       multi-head latent attention, the latent cache
std::string rope_misuse(const Config& cfg);
std::string flash_misuse(const Config& cfg);

// Chapter 4: the GPT model around the attention, on trained weights (--weights).
Walk run_gpt(const Config& cfg);  // 4.6-4.7  GPTModel, the next token, generate_text_simple
std::string gpt_misuse(const Config& cfg);

// How attention learns (chapter 5's loss and training loop around chapter 3's module).
Walk run_backward(const Config& cfg);  // ch05 + ch03  the loss, every gradient, training steps
std::string backward_misuse(const Config& cfg);

// The chapter's stages (--stage all), the bonus material beyond it (--stage bonus), and
// training (the backward stage, walked only by its own name).
// A stage: its place in the book (core/stage_place.h: name, section, group, whether --stage all
// walks it), its one-line summary and the function that runs it.
struct StageInfo : StagePlace {
  const char* summary;  // one line for --list-stages (English, from src/lang/)
  Walk (*run)(const Config&);
  // Options this stage cannot run with: "" if none, else a message naming the option
  // (a usage error, exit 2). nullptr: the stage takes any configuration. The one rule the
  // command line, the page and check all apply (src/request/, check's choose_stage).
  std::string (*misuse)(const Config&) = nullptr;
};

// Every stage, in core/stage_place.h's order: the chapter's, then the bonus stages, then training.
const std::vector<StageInfo>& all_stages();
const StageInfo* find_stage(const std::string& name);

}  // namespace attn
