// English: the texts every bonus stage (beyond chapter 3) shares. Each stage keeps its
// own steps' texts in src/lang/<stage>_en.cpp.
#include "lang/bonus.h"

namespace attn {

LangTable bonus_en() {
  LangTable t;
  t.code = "en";
  t.ui = {
      {"bonus_section", "beyond chapter 3: {section}"},
      {"list.chapter", "chapter 3 (--stage all walks these in order):"},
      {"list.bonus", "beyond chapter 3 (--stage bonus walks these in order):"},
      {"note.bonus_sizes",
       "the bonus modules use d_out {d_out} with {heads} heads of {head_dim} dimensions (without "
       "--d-out and --heads: 8 and 4, since the chapter's 2 and 2 leave one dimension per head), "
       "seed {seed1}, a batch of {batch}, no dropout"},
  };
  return t;
}

}  // namespace attn
