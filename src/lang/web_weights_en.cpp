// English words of the page's weights file (src/render/page/weights.js): the picker and the drop
// zone, what the page read from the file, a file it could not read, and the blocks going by.
#include "lang/lang.h"

namespace attn {

LangTable web_weights_en() {
  LangTable t;
  t.code = "en";
  t.ui = {
      {"web.stages.ch4", "Chapter 4: a trained GPT"},
      {"web.stage.gpt", "GPTModel on your weights"},
      {"web.opt.weights", "Your GPT-2 weights (a file)"},
      {"web.opt.layer", "Block to open"},
      {"web.opt.head", "Head to show alone"},
      {"web.opt.max-new-tokens", "New tokens to generate"},
      {"web.weights_drop",
       "Choose the file, or drop it here: the book's .safetensors or .pth, or Hugging Face's model.safetensors "
       "(with its config.json, if you have it). It is read here, in this browser, and never leaves your machine."},
      {"web.weights_choose", "Choose a file…"},
      {"web.weights_open", "Open: {}"},
      {"web.weights_no_file", "No file open yet"},
      {"web.weights_reading", "Reading {}…"},
      {"web.weights_loaded", "{}: {} blocks, {} heads, width {}, vocabulary {}, context {} tokens."},
      {"web.weights_bad", "{} cannot be read as a GPT-2 model. The reader says:"},
      {"web.weights_heads", "{} is read, but the number of attention heads must come from you: give it (--heads) below."},
      {"web.weights_none", "Only a config.json: choose the weights file too (it goes beside it)."},
      {"web.progress_read", "Reading the weights, {}; {} s"},
      {"web.progress_block", "Computing… block {} of {}, the last {}; {} s"},
  };
  return t;
}

}  // namespace attn
