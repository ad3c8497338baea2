// English: every text a learner reads, gathered from its parts: the chapter's stages
// (<stage>_en.cpp), their checks (chapter_checks_en.cpp), the renderers' words
// (chapter_ui_en.cpp) and each feature's file. Keys and placeholders: see lang.h. English
// is also the fallback of every other language, so it must have every key.
#include "lang/lang.h"
#include "lang/parts.h"

namespace attn {

const LangTable& lang_en() {
  // Its name here; every text is a part (parts.cpp): the chapter's stages, checks and
  // renderer words (chapter.h), then each feature beyond it.
  static const LangTable t = with_parts(LangTable{"en", "English", {}, {}, {}});
  return t;
}

}  // namespace attn
