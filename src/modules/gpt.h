// Chapter 4's GPTModel (ch04/01_main-chapter-code/gpt.py) in eval() mode, on trained weights
// where the weights file holds them (weights/gpt_weights.h): the embeddings, n_layers
// TransformerBlocks (norm1, MultiHeadAttention, shortcut; norm2, FeedForward, shortcut),
// final_norm and out_head. Every module's output is shown to a tracer by its path, exactly as
// model.named_modules() names it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "modules/cells.h"
#include "ops/ops_gpt.h"
#include "weights/gpt_weights.h"

namespace attn {

// Sees each output as the forward pass computes it: (its path, the tensor), the tensor valid
// only during the call.
using GptTracer = std::function<void(const std::string& path, const Tensor& value)>;

// A parameter where it lies, as the ops take it.
MatView mat(const ParamView& p);

// The paths of the outputs forward() shows, in order (block `open_layer` with its attention's
// intermediates; -1 none): tok_emb, pos_emb, emb_sum, trf_blocks.0.norm1, ... , out_head.
std::vector<std::string> gpt_step_paths(int64_t n_layers, int64_t open_layer);

// forward()'s open_layer: every block's attention opened (attn-walk check grades them all).
constexpr int64_t kEveryBlock = -2;

// The book's cells of chapter 4 (modules/cells.h).
const GptCells& book_gpt_cells();

struct GptModel {
  const GptParams& p;
  const GptCells& cells;  // the book's lines, or a learner's (check/)
  // Where the products keep the weights packed from one forward to the next (the bench's, as an
  // inference runtime prepacks a model's weights), if anywhere; none: packed for each product.
  kernels::PackedWeights* packed_weights = nullptr;
  explicit GptModel(const GptParams& params, const GptCells& cells_ = book_gpt_cells()) : p(params), cells(cells_) {}

  // model(in_idx) for one sequence of token ids (batch 1): the logits (1, T, vocab_size).
  // `trace`, if given, sees every module's output (tok_emb (1, T, emb), pos_emb (T, emb), ...
  // out_head), the sums no module outputs (emb_sum = tok_embeds + pos_embeds, and each block's
  // first shortcut, trf_blocks.N.shortcut1 = att's output + the block's input; the second is
  // the block's own output), and, for block `open_layer`, its attention's steps under
  // trf_blocks.L.att: keys, queries, values (1, T, emb), attn_scores, attn_scores_masked,
  // attn_weights (1, H, T, T), context_vec (1, T, H, head_dim); open_layer kEveryBlock: every block's.
  Tensor forward(const std::vector<int64_t>& ids, const GptTracer& trace = nullptr, int64_t open_layer = -1) const;

  // The input of trf_blocks.0 (1, T, emb): tok_emb(in_idx) + pos_emb(arange(T)), shown to
  // `trace` as tok_emb, pos_emb and emb_sum (drop_emb: eval(), the identity).
  Tensor embed(const std::vector<int64_t>& ids, const GptTracer& trace = nullptr) const;

  // One TransformerBlock (trf_blocks.`index`) on x (1, T, emb).
  Tensor block(int64_t index, const Tensor& x, const GptTracer& trace, bool open) const;
  // trf_blocks.`index`.att on x (1, T, emb): MultiHeadAttention with the block's weights.
  Tensor attention(int64_t index, const Tensor& x, const GptTracer& trace) const;
  // A parameter as the loading code leaves it (cells.param), by its state-dict name.
  MatView param(const std::string& name, const ParamView& p) const {
    MatView m = cells.param(name, p);
    m.packed = packed_weights;
    return m;
  }
};

// generate_text_simple(model, idx, max_new_tokens, context_size): greedy, each new id the
// argmax of the last position's logits of the model run on the last context_size ids.
// `on_token`, if given, hears each new id as it comes.
std::vector<int64_t> generate_text_simple(const GptModel& model, std::vector<int64_t> ids, int64_t max_new_tokens,
                                          int64_t context_size,
                                          const std::function<void(int64_t done)>& on_token = nullptr);

}  // namespace attn
