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
       "tests/golden/exercise_3_2_solution.py reproduces it with PyTorch, and "
       "attn-walk --stage multi-head --softmax-dim 1 shows it"},
      {"note.exercise_3_2_solution#dim1",
       "exercise 3.2: with --softmax-dim 1 these are the numbers the book's "
       "exercise-solutions.ipynb prints (with the chapter's inputs and seed 123, "
       "[[-9.1476e-02, 3.4164e-02], …]): the first CausalAttention's softmax over dim=1"},
      {"note.softmax_dim1",
       "--softmax-dim 1: CausalAttention normalises with torch.softmax(attn_scores / d_k**0.5, "
       "dim=1), as the first ch03.ipynb did. That dim=1 came from the 2-D code, where dim 1 is "
       "the last; with the batch in front, dim 1 is the queries, so each column of weights sums "
       "to 1 instead of each row, and a query mixes values with weights that do not sum to 1. "
       "PyTorch computes some columns of this softmax with a vectorised exp and others with "
       "the C library's, by torch.get_num_threads(): this walk matches {torch_threads} "
       "thread(s) (--torch-threads)"},
      {"heatmap.scale_fixed",
       "scale (fixed for all weights and masks)"},
      {"heatmap.mask",
       "mask = torch.triu(..., diagonal=1): a 1 marks what is hidden, key j after query i (j > i)"},
      {"heatmap.mask_simple",
       "mask_simple = torch.tril(...): a 1 marks what is kept, key j at or before query i (j <= i)"},
  };

  t.steps = {
      {"dot-product/context_vec_2_previous",
       {"context_vec_2 from the loop above, printed again",
        "The notebook prints the context vector it computed with a loop once more, to compare it by "
        "eye with row {query} of all_context_vecs: once worked element by element, once as a matrix "
        "product. The check above compares the two for every row."}},

      // ---- dropout: beyond the chapter, ch03/03_understanding-buffers ----
      {"dropout/buffer_mask",
       {"CausalAttention(..., context_length={context_length}).mask: a buffer, larger than the input",
        "self.register_buffer(\"mask\", ...) makes the mask part of the module's state without "
        "making it a parameter: the optimizer leaves it alone, but state_dict() saves it and "
        ".to(device) moves it with the weights. It is built once for the longest context, here "
        "context_length = {context_length} for {T} tokens. The lines below are the state_dict "
        "keys of this module and of one that keeps the mask as a plain attribute: only the "
        "buffer is saved."}},
      {"dropout/buffer_mask_T",
       {"mask[:{T}, :{T}]: the buffer cut to the input",
        "forward uses self.mask[:num_tokens, :num_tokens]: the top-left ({T}, {T}) block, which is "
        "exactly torch.triu(torch.ones({T}, {T}), diagonal=1), so one buffer serves every input "
        "up to context_length tokens."}},

      // ---- multi-head: beyond the chapter, view and transpose with head_dim = 2 ----
      {"multi-head/hd2_keys",
       {"keys with head_dim = 2: torch.arange(12.).view(1, 3, 4), 2 heads x 2",
        "The chapter's default has head_dim = 1, so its view and transpose move nothing you can "
        "see (and sqrt(1) = 1). Here b = 1, 3 tokens and d_out = 4 = 2 heads × head_dim 2, filled "
        "with 0..11 so that each number says where it sits: token t holds 4t..4t+3, and head h "
        "should get features 2h and 2h+1 of every token. Below the tensor: its strides (how far "
        "in memory one step along each dimension goes) and whether it is stored row by row."}},
      {"multi-head/hd2_keys_split",
       {"keys.view(1, 3, 2, 2).transpose(1, 2): each head gets its own features of every token",
        "view splits the last dimension into (heads, head_dim); transpose(1, 2) then puts the "
        "heads in front of the tokens: head 0 holds [0, 1], [4, 5], [8, 9], the first two features "
        "of tokens 1, 2, 3. No data moved: only the strides changed, so the tensor is no longer "
        "contiguous."}},
      {"multi-head/hd2_keys_wrong",
       {"keys.view(1, 2, 3, 2) without the transpose: tokens mixed into the wrong head",
        "A shortcut that gives the same shape (b, heads, T, head_dim) is wrong: view reads memory "
        "in order, so \"head 0\" gets [0, 1], [2, 3], [4, 5], all four features of token 1 and half "
        "of token 2. The shape is right and no error is raised, which is why the chapter views as "
        "(b, T, heads, head_dim) first and transposes after."}},
      {"multi-head/hd2_heads_copy",
       {"a fresh (b, heads, T, head_dim) tensor, as attn_weights @ values gives",
        "The same numbers as hd2_keys_split, now in a new tensor stored row by row in this order "
        "(a matrix product writes its result that way): contiguous again."}},
      {"multi-head/hd2_back",
       {".transpose(1, 2): back to (b, T, heads, head_dim), not contiguous",
        "Transposing back puts each token's heads side by side again, but only through the strides: "
        "in memory the numbers are still ordered head by head, so .view(1, 3, 4) would raise an "
        "error here."}},
      {"multi-head/hd2_merged",
       {".contiguous().view(1, 3, 4): the heads merged, equal to hd2_keys",
        ".contiguous() copies the numbers into row-by-row order; then view can merge (heads, "
        "head_dim) into d_out = 4: each token's row is 4t..4t+3 again, as in the keys we started "
        "from."}},
  };
  return t;
}

}  // namespace attn
