// Chinese texts added by the learner review (issue 12): the words the renderers put around
// the chapter's texts (punctuation, section ranges, the mark of attn-walk's own additions),
// what a check's number measures, the heatmap legends' fixed scale and mask meanings, and
// the note on the exercise 3.2 solution.
#include "lang/lang.h"

namespace attn {

LangTable review_zh() {
  LangTable t;
  t.code = "zh";
  t.ui = {
      {"measure.dropout_rows_no_longer_sum_to_1",
       "最大的 |行和 − 1|"},
      {"colon",
       "："},
      {"parenthesized",
       "（{text}）"},
      {"sections",
       "第 3 章 {section} 节"},
      {"beyond_chapter",
       "【本章之外的补充】{title}"},
      {"note.exercise_3_2_solution",
       "练习 3.2：书中 exercise-solutions.ipynb 打印的是 [[-9.1476e-02, 3.4164e-02], …]，"
       "与本章代码的结果不同（用本章的输入和随机种子 123 得到 [[-0.5740, 0.2216], …]）。"
       "那份输出来自 CausalAttention 的第一个版本：它用 torch.softmax(..., dim=1) 沿查询而不是"
       "沿键（dim=-1）归一化；tests/golden/exercise_3_2_solution.py 用 PyTorch 复现了它"},
      {"heatmap.scale_fixed",
       "色标（所有权重和掩码共用）"},
      {"heatmap.mask",
       "mask = torch.triu(..., diagonal=1)：1 标记被遮住的位置，即查询 i 之后的键 j（j > i）"},
      {"heatmap.mask_simple",
       "mask_simple = torch.tril(...)：1 标记保留的位置，即查询 i 及之前的键 j（j <= i）"},
  };
  return t;
}

}  // namespace attn
