// 中文：所有附加阶段（第 3 章之外）共用的文字。各阶段步骤的文字在 src/lang/<stage>_zh.cpp。
#include "lang/bonus.h"

namespace attn {

LangTable bonus_zh() {
  LangTable t;
  t.code = "zh";
  t.ui = {
      {"bonus_section", "第 3 章之外：{section}"},
      {"list.chapter", "第 3 章（--stage all 依次演示）："},
      {"list.bonus", "第 3 章之外（--stage bonus 依次演示）："},
      {"note.bonus_sizes",
       "附加模块使用 d_out {d_out}，{heads} 个头，每个头 {head_dim} 维（不给 --d-out 和 --heads "
       "时为 8 和 4：本章默认的 2 和 2 每个头只有 1 维），种子 {seed1}，批大小 {batch}，不用 dropout"},
  };
  return t;
}

}  // namespace attn
