// English texts added by the learner review (issue 12): the words the renderers put around
// the chapter's texts (punctuation, section ranges, the mark of attn-walk's own additions),
// what a check's number measures, the heatmap legends' fixed scale and mask meanings, and
// the note on the exercise 3.2 solution.
#include "lang/lang.h"

namespace attn {

LangTable review_en() {
  LangTable t;
  t.code = "en";
  t.ui = {
      {"measure.dropout_rows_no_longer_sum_to_1",
       "largest |row sum − 1|"},
      {"colon",
       ": "},
      {"parenthesized",
       " ({text})"},
      {"sections",
       "chapter 3, sections {section}"},
      {"beyond_chapter",
       "[not in the chapter] {title}"},
      {"note.exercise_3_2_solution",
       "exercise 3.2: the book's exercise-solutions.ipynb prints [[-9.1476e-02, 3.4164e-02], …], "
       "not what the chapter's code gives (with its inputs and seed 123, [[-0.5740, 0.2216], …]). "
       "Its output comes from the first version of CausalAttention, whose torch.softmax(..., "
       "dim=1) normalised over the queries instead of the keys (dim=-1); "
       "tests/golden/exercise_3_2_solution.py reproduces it with PyTorch"},
      {"heatmap.scale_fixed",
       "scale (fixed for all weights and masks)"},
      {"heatmap.mask",
       "mask = torch.triu(..., diagonal=1): a 1 marks what is hidden, key j after query i (j > i)"},
      {"heatmap.mask_simple",
       "mask_simple = torch.tril(...): a 1 marks what is kept, key j at or before query i (j <= i)"},
  };
  return t;
}

}  // namespace attn
