// A language's texts in parts: each of the chapter's stages (chapter.h) and each feature
// beyond them has one file per language (src/lang/<part>_<code>.cpp) that returns a
// LangTable holding only its own keys, and one line in lang_parts() (parts.cpp).
#pragma once

#include <vector>

#include "lang/lang.h"

namespace attn {

// A feature's texts in one language: `code` is the language ("en", "zh").
struct LangPart {
  const char* code;
  LangTable (*texts)();
};

// Every registered part, in any order (a key may be given by one part only).
const std::vector<LangPart>& lang_parts();

// `base` with every part of its language merged in; a key given twice is a bug and throws.
LangTable with_parts(LangTable base);

}  // namespace attn
