// attn-walk check on chapter 4's GPTModel: the tensors a learner's forward hooks and state dict
// give, by their names, computed by modules/gpt.h with the cells given (the book's, or a
// learner's lines from check/gpt_lines.h).
//
// Every step of --stage gpt's walk that a module's output is (every block opened), named by
// its path in model.named_modules(), and also:
//   - the hook names no step of the walk has: drop_emb (the embeddings' sum, eval(): nothing
//     dropped), trf_blocks.N.att.W_query/W_key/W_value (the queries, keys, values),
//     trf_blocks.N.att.dropout (the attention weights), trf_blocks.N.att.out_proj (the
//     attention's output), trf_blocks (the last block's output);
//   - the parameters and buffers by their state-dict names (tok_emb.weight,
//     trf_blocks.0.att.W_query.weight, trf_blocks.0.att.mask, trf_blocks.0.norm1.scale, ...),
//     as the loading code leaves them, each just before the first output it shapes.
// A module called twice (drop_shortcut) has no one output and is not a step.
#pragma once

#include <set>
#include <string>

#include "core/config.h"
#include "core/walk.h"
#include "modules/cells.h"

namespace attn {

// The walk check grades a GPTModel dump against. Parameters of more than 2^16 values
// (tok_emb.weight, out_head.weight) are steps only when `given` names them (nullptr: never).
Walk gpt_check_walk(const Config& cfg, const GptCells& cells, const std::set<std::string>* given = nullptr);

}  // namespace attn
