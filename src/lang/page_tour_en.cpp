// English words of the page for a learner who has never seen it (issue 42): what the page is and
// what to try first, the stages by the chapter's sections and plain names, the language names,
// the options' labels the first table left out, defaults that are no single value, the
// messages the engine's errors become (src/web/page_errors.cpp), a walk stopped, and hints.
#include "lang/lang.h"

namespace attn {

LangTable page_tour_en() {
  LangTable t;
  t.code = "en";
  t.ui = {
      // The two lines the page opens with.
      {"web.intro.what",
       "Chapter 3 of Build a Large Language Model (From Scratch), \"Coding attention mechanisms\", step by "
       "step: every tensor the chapter computes, with the very numbers PyTorch prints."},
      {"web.intro.try",
       "Try first: in Settings below, pick a stage (the chapter starts at 3.3), or type a sentence of your "
       "own under Input. Every change recomputes the walk underneath."},
      {"web.lang_name", "English"},  // this language in its own words, in the language list
      // The stage list: groups, and each stage by its plain name (the section is added).
      {"web.group.stage", "Start here: which part of the chapter"},
      {"web.stages.ch2", "Chapter 2"},
      {"web.stages.ch3", "Chapter 3: attention"},
      {"web.stages.bonus", "Beyond chapter 3 (bonus)"},
      {"web.stages.training", "Chapter 5: how attention learns"},
      {"web.stage.tokens", "Tokens and embeddings"},
      {"web.stage.dot-product", "Attention scores as dot products"},
      {"web.stage.softmax", "Normalising with softmax"},
      {"web.stage.trainable", "Trainable weights W_query, W_key, W_value"},
      {"web.stage.causal", "Causal attention: hiding future tokens"},
      {"web.stage.dropout", "Dropout and the CausalAttention class"},
      {"web.stage.multi-head", "Multi-head attention"},
      {"web.stage.all", "The whole chapter, every stage"},
      {"web.stage.efficient", "Efficient multi-head attention"},
      {"web.stage.kv-cache", "KV cache: one token at a time"},
      {"web.stage.gqa", "Grouped-query attention"},
      {"web.stage.swa", "Sliding-window attention"},
      {"web.stage.rope", "RoPE: rotary position embeddings"},
      {"web.stage.flash", "Flash attention: softmax block by block"},
      {"web.stage.mla", "Multi-head latent attention"},
      {"web.stage.bonus", "Every bonus stage"},
      {"web.stage.backward", "Gradients and training steps"},
      // The backward stage's knobs.
      {"web.opt.steps", "Training steps"},
      {"web.opt.lr", "Learning rate"},
      {"web.opt.weight-decay", "Weight decay"},
      {"web.opt.optimizer", "Optimizer"},
      // A default that is no single value: shown beside the empty box.
      {"web.opt.grad-step", "Gradients of step"},
      {"web.default.layer", "none: one line for each block"},
      {"web.default.head", "none: every head"},
      {"web.default.seed", "the chapter's seeds: 123 and 789"},
      {"web.choice.heatmap-scale.fixed", "fixed: 0 to 1"},
      {"web.choice.heatmap-scale.matrix", "each matrix its own"},
      {"web.choice.optimizer.adamw", "AdamW (chapter 5)"},
      {"web.choice.optimizer.sgd", "SGD"},
      {"web.choice.init.rand", "rand: torch.rand (the chapter)"},
      {"web.choice.init.randn", "randn: torch.randn"},
      {"web.choice.dropout-rng.default", "default: the book's masks"},
      {"web.choice.dropout-rng.mkl", "mkl: Intel's pip/conda builds"},
      {"web.choice.softmax-dim.-1", "-1: over the keys (the chapter)"},
      {"web.choice.softmax-dim.1", "1: over the queries"},
      // A walk stopped by the learner.
      {"web.stopped_link",
       "Stopped before the walk was done: the settings of the link are kept. Change one, or walk again."},
      {"web.walk_again", "Walk again"},
      {"web.progress_of", "Computing… step {} of {}, the last {}; {} s"},
      {"web.progress_part_of", "Computing… step {} of {}, now {} ({} of {}); {} s"},
      // Hints.
      {"web.scale_hint",
       "With {} tokens the weights are small and close together: colouring each matrix on its own scale shows "
       "them better."},
      {"web.scale_use", "Use each matrix's own scale"},
      {"web.table_scrolls", "The table is wider than the screen: swipe it sideways to see every dimension."},
      {"web.cell_name", "row {} ({}), column {}"},
      // Errors, in plain words. {opt}: the option; the rest as named.
      {"web.err.option", "--{opt}: this setting cannot be used: {detail}"},
      {"web.err.range", "--{opt}: must be {range}; {got} is not"},
      {"web.err.whole_range", "a whole number from {min} to {max}"},
      {"web.err.number_range", "a number from {min} to {max}"},
      {"web.err.whole_at_least", "a whole number of at least {min}"},
      {"web.err.number_at_least", "a number of at least {min}"},
      {"web.err.not_number", "--{opt}: '{got}' is not a number"},
      {"web.err.not_choice", "--{opt}: '{got}' is not one of {choices}"},
      {"web.err.divisible",
       "--{opt}: the heads must divide the width d_out evenly: d_out {d_out} cannot be split into {heads} "
       "heads. Choose heads that divide {d_out}, or a d_out that {heads} divides."},
      {"web.err.query", "--query: the query token must be between 1 and {n} (the number of tokens); {got} is not"},
      {"web.err.json_at", "Embeddings: line {line}, column {column}: {detail}"},
      {"web.err.json_literal",
       "JSON cannot read what starts with '{token}' here: a value must be a number such as 0.5, text in "
       "double quotes, or true, false, null"},
      {"web.err.json_end", "the JSON ends too early: a bracket ] or brace } is not closed"},
      {"web.err.json_unexpected", "'{token}' was not expected here: look for a missing or extra comma, bracket or quote"},
      {"web.err.json_other", "this is not valid JSON: {detail}"},
      {"web.err.input_other", "{detail}"},
      {"web.err.other", "{detail}"},
      {"web.err.gpt_blocks", "--{opt}: the model has {n} blocks, numbered 0 to {max}; {got} is not one of them"},
      {"web.err.gpt_heads", "--{opt}: the model has {n} heads, numbered 0 to {max}; {got} is not one of them"},
      {"web.err.head_needs_layer", "--head: choose a block first (--layer): the heads shown are that block's"},
      {"web.err.gpt_context", "--{opt}: {n} tokens, more than the model's context of {max} tokens: shorten the text"},
      {"web.err.text_empty", "Your text is empty: type a sentence to tokenize"},
  };
  return t;
}

}  // namespace attn
