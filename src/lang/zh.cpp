// 简体中文：学习者读到的全部文字，由各部分组成：本章各阶段（<stage>_zh.cpp）、检查
// （chapter_checks_zh.cpp）、渲染器用词（chapter_ui_zh.cpp）以及各功能的文件（parts.cpp）。
// 键与占位符见 lang.h；缺少的键会回退到英文（en.cpp）。
// 术语：词元(token)、嵌入向量、查询(query)、键(key)、值(value)、注意力分数、注意力权重、
// 上下文向量、缩放点积注意力、因果掩码、多头注意力、丢弃(dropout)、批次(batch)。
// 公式、张量名和代码保持与本章代码一致。
#include "lang/lang.h"
#include "lang/parts.h"

namespace attn {

const LangTable& lang_zh() {
  // Its name here; every text is a part (parts.cpp): the chapter's stages, checks and
  // renderer words (chapter.h), then each feature beyond it.
  static const LangTable t = with_parts(LangTable{"zh", "简体中文", {}, {}, {}});
  return t;
}

}  // namespace attn
