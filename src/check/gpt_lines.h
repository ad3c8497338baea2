// Learners' lines of chapter 4's GPTModel: each writes, into the book's GPT cells
// (modules/cells.h, GptCells), a line of ch04's gpt.py (or of ch05's load_weights_into_gpt)
// the way a learner wrote it. The chapter-4 rows of diagnoses.cpp are made of these.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "modules/cells.h"

namespace attn::lines {

// LayerNorm: var = x.var(dim=-1, keepdim=True), whose unbiased=True divides by emb_dim - 1.
void layer_norm_unbiased(Cells& c);
// LayerNorm: x.mean(dim=dim, keepdim=True) and x.var(dim=dim, keepdim=True, unbiased=False)
// over another dimension of the (batch, num_tokens, emb_dim) input than the last: 1 (the
// tokens) or 0 (the batch).
void layer_norm_over_dim(Cells& c, int64_t dim);
// TransformerBlock: x = self.att(x) with no x = x + shortcut after it (`which` 1), after the
// feed-forward (2), or after both (0).
void shortcut_left_out(Cells& c, int which);
// GELU: 0.5 * x * (1 + torch.erf(x / math.sqrt(2))), nn.GELU()'s exact form, in place of the
// book's tanh form (computed in double and rounded once: within the last bits of both of
// PyTorch's ways, nn.GELU()'s oneDNN kernel and torch.erf's SLEEF).
void gelu_exact(Cells& c);
// load_weights_into_gpt: assign(left, params[...]) without .T for the Hugging Face Conv1D
// weights whose state-dict names end with one of `names` ("att.out_proj.weight"), where the
// shapes let it pass: a square (emb_dim, emb_dim) weight is then used transposed.
void conv1d_not_transposed(Cells& c, std::vector<std::string> names);

}  // namespace attn::lines
