// attn-walk check --format html（src/render/check_html.cpp）中文本报告用不到的词：表格的标题。
#include "lang/lang.h"

namespace attn {

LangTable check_html_zh() {
  LangTable t;
  t.code = "zh";
  t.ui = {
      {"check_html.step", "步骤"},
      {"check_html.grade", "结果"},
      {"check_html.difference", "最大差"},
      {"check_html.own_checks", "本章的检查，用在你的张量上"},
  };
  return t;
}

}  // namespace attn
