// English texts of the dropout stage (src/stages/dropout.cpp):
// section 3.5.2-3.5.3.
#include "lang/chapter.h"

namespace attn {

LangTable dropout_en() {
  LangTable t;
  t.code = "en";
  t.steps = {
      {"dropout/attn_weights_causal",
       {"the causal attention weights of section 3.5.1",
        "The starting point: causal attention weights, shape ({T}, {T}), each row summing "
        "to 1."}},
      {"dropout/dropout_ones",
       {"torch.nn.Dropout({p})(torch.ones({T}, {T})), seed {seed1}: kept entries become 1/(1-p)",
        "In training, dropout sets each element to 0 with probability p = {p} and multiplies "
        "the kept ones by 1/(1-p) = {scale}, so every element keeps its expected value. On a "
        "matrix of ones you see the mask itself."}},
      {"dropout/dropout_ones#p0",
       {"torch.nn.Dropout({p})(torch.ones({T}, {T})): p = 0 keeps everything",
        "With p = 0 dropout keeps every element and scales by 1/(1-0) = 1: the output is the "
        "input, and no random numbers are drawn."}},
      {"dropout/dropout_ones#p1",
       {"torch.nn.Dropout({p})(torch.ones({T}, {T})): p = 1 drops everything",
        "With p = 1 every element is dropped, so the result is all zeros (PyTorch returns "
        "them without drawing random numbers)."}},
      {"dropout/dropout_attn_weights",
       {"the same dropout on attn_weights_causal, seed {seed1}",
        "The same seed drops the same positions; the kept weights are multiplied by {scale}. "
        "Randomly dropping attention weights keeps the model from relying on a few tokens, "
        "which reduces overfitting."}},
      {"dropout/dropout_attn_weights#p0",
       {"the same dropout (p = 0) on attn_weights_causal",
        "With p = 0 the weights pass through unchanged."}},
      {"dropout/dropout_attn_weights#p1",
       {"the same dropout (p = 1) on attn_weights_causal",
        "With p = 1 every weight becomes 0."}},
      {"dropout/dropout_attn_weights_row_sums",
       {"row sums after dropout: no longer 1",
        "Zeros on one side and the 1/(1-p) scaling on the other: the rows no longer sum to 1, "
        "only their expected value is 1; row {far_row} is farthest from it, at {far_sum}. That "
        "is fine, because dropout is used only in training and switched off for inference "
        "(model.eval())."}},
      {"dropout/dropout_attn_weights_row_sums#zero_row",
       {"row sums after dropout: no longer 1, and row {zero_rows} is empty",
        "Zeros on one side and the 1/(1-p) scaling on the other: the rows no longer sum to 1, "
        "only their expected value is 1. Row {zero_rows} lost every weight, so its sum is 0: "
        "in this training step query x({zero_rows}) gets a context vector of zeros. That is "
        "fine, because dropout is used only in training and switched off for inference "
        "(model.eval())."}},
      {"dropout/dropout_attn_weights_row_sums#zero_rows",
       {"row sums after dropout: no longer 1, and rows {zero_rows} are empty",
        "Zeros on one side and the 1/(1-p) scaling on the other: the rows no longer sum to 1, "
        "only their expected value is 1. Rows {zero_rows} lost every weight, so they sum to 0: "
        "in this training step those queries get context vectors of zeros. That is fine, "
        "because dropout is used only in training and switched off for inference "
        "(model.eval())."}},
      {"dropout/dropout_attn_weights_row_sums#p0",
       {"row sums after dropout with p = 0: still 1",
        "Nothing was dropped, so every row still sums to 1."}},
      {"dropout/dropout_attn_weights_row_sums#p1",
       {"row sums after dropout with p = 1: all 0",
        "Everything was dropped, so every row sums to 0."}},
      {"dropout/batch",
       {"torch.stack((inputs,) * {batch}): a batch of {batch} copies",
        "Modules work on batches: stacking {batch} copies of inputs along a new first "
        "dimension gives shape ({batch}, {T}, {d_in}), that is (batch, num_tokens, d_in)."}},
      {"dropout/causal_attention_context_vecs",
       {"CausalAttention({d_in}, {d_out}, {T}, {attn_p}{bias_arg})(batch), seed {seed1}",
        "CausalAttention puts it all together: projections; scores via keys.transpose(1, 2), "
        "which swaps only the last two dimensions since dim 0 is the batch; masked_fill_ with "
        "-inf; the scaled softmax; dropout with p = {attn_p}; and the weighted sum of values. "
        "Shape ({batch}, {T}, {d_out}): a context vector per token and batch item."}},
  };
  t.ui = {
      {"stage.dropout", "dropout masks on attention weights; the CausalAttention class"},
  };
  return t;
}

}  // namespace attn
