// Section 3.5.2-3.5.3: dropout on attention weights, then the CausalAttention class.
// Texts: src/lang/ (key "dropout/<step>").
#include <fmt/format.h>

#include <cmath>

#include "core/number_format.h"
#include "modules/chapter.h"
#include "ops/ops.h"
#include "stages/causal_weights.h"
#include "stages/common.h"
#include "stages/stages.h"
#include "torch/torch_random.h"

namespace attn {

namespace {

// What dropout did to the rows, for the texts: the rows it emptied (sum exactly 0) and
// the row sum farthest from 1. Rows are counted from 1, as the queries x(1), x(2), ...
void row_sum_facts(Walk& walk, Step& row_sums_step, const Tensor& row_sums, const char* variant) {
  std::vector<std::string> zero_rows;
  int64_t far = 0;
  for (int64_t i = 0; i < row_sums.numel(); ++i) {
    if (row_sums(i) == 0.0f) zero_rows.push_back(std::to_string(i + 1));
    if (std::fabs(row_sums(i) - 1.0) > std::fabs(row_sums(far) - 1.0)) far = i;
  }
  // An emptied row is as far as a row that sums to 2 (1/(1-p) = 2 at p = 0.5), and the
  // one to point at: prefer it when it is as far to 4 decimals.
  if (!zero_rows.empty() && std::fabs(row_sums(far) - 1.0) - 1.0 < 5e-5) far = std::stoll(zero_rows[0]) - 1;
  walk.vars["far_row"] = std::to_string(far + 1);
  walk.vars["far_sum"] = python_fixed(row_sums(far), 4);
  walk.vars["zero_rows"] = fmt::format("{}", fmt::join(zero_rows, ", "));
  if (!variant && !zero_rows.empty())
    row_sums_step.variant = zero_rows.size() == 1 ? "zero_row" : "zero_rows";
}

// list(ca.state_dict()) of CausalAttention, as Python prints it: the module's own buffer
// first ("mask", only if registered as one), then its children's parameters in order.
std::string state_dict_keys(bool qkv_bias, bool mask_is_buffer) {
  std::vector<std::string> keys;
  if (mask_is_buffer) keys.push_back("'mask'");
  for (const char* linear : {"W_query", "W_key", "W_value"}) {
    keys.push_back(fmt::format("'{}.weight'", linear));
    if (qkv_bias) keys.push_back(fmt::format("'{}.bias'", linear));
  }
  return fmt::format("[{}]", fmt::join(keys, ", "));
}

}  // namespace

Walk run_dropout(const Config& cfg) { return run_dropout_with(cfg, book_cells()); }

Walk run_dropout_with(const Config& cfg, const Cells& cells) {
  Walk walk("dropout", cfg);
  set_common_vars(walk, cfg);
  const int64_t T = cfg.num_tokens();
  walk.notes.push_back(dropout_kernel_note(cfg.dropout_rng));
  TorchGenerator gen;
  // p = 0 keeps everything and p = 1 drops everything: the texts say so.
  const char* variant = cfg.dropout == 0.0 ? "p0" : cfg.dropout == 1.0 ? "p1"
                                                                       : nullptr;
  walk.section = "3.5.2";

  const CausalWeights causal = causal_weights(cfg, cells);  // section 3.5.1's
  walk.add("attn_weights_causal", Role::Weights, causal.attn_weights_causal, {"grad_fn=<SoftmaxBackward0>"});

  // Dropout keeps each element with probability 1-p and scales kept ones by 1/(1-p),
  // so the expected value is unchanged, but rows no longer sum to 1.
  const Dropout dropout_layer{cfg.dropout, cfg.dropout_rng};  // torch.nn.Dropout(p)
  const DropoutFn dropout = [&](const Tensor& t) { return cells.nn_dropout(t, dropout_layer, gen); };
  gen.manual_seed(cfg.seed1);
  const Tensor& ones = walk.add("dropout_ones", Role::DroppedWeights, dropout(Tensor::full({T, T}, 1.0f)));  // dropout(example)
  if (variant) walk.last().variant = variant;
  if (cfg.dropout < 1.0)
    add_check(walk, "dropout_kept_scaled", zero_or_value(ones, static_cast<float>(1.0 / (1.0 - cfg.dropout))));
  cells.seed(gen, cfg.seed1, "dropout_attn_weights");
  // dropout(attn_weights)
  const Tensor& dropped = walk.add("dropout_attn_weights", Role::DroppedWeights, cells.drop_weights(causal, dropout),
                                   {dropout_grad_fn(cfg.dropout, "grad_fn=<SoftmaxBackward0>")});
  if (variant) walk.last().variant = variant;
  const Tensor& row_sums =
      walk.add("dropout_attn_weights_row_sums", sum_lastdim(dropped, false), {"grad_fn=<SumBackward1>"});
  if (variant) walk.last().variant = variant;
  row_sum_facts(walk, walk.last(), row_sums, variant);
  if (cfg.dropout == 0.0)
    add_check(walk, "dropout_p0_rows_still_sum_to_1", rows_sum_to_one(dropped));
  else
    add_check(walk, "dropout_rows_no_longer_sum_to_1", rows_do_not_sum_to_one(dropped));

  // 3.5.3: a batch of identical inputs through the CausalAttention module.
  walk.section = "3.5.3";
  const Tensor& batch = walk.add("batch", stack_copies(cfg.inputs, cfg.batch));  // (B, T, d_in)
  print_shape_last(walk, "");
  note_causal_softmax(walk, cfg);
  cells.seed(gen, cfg.seed1, "causal_attention");
  const CausalAttention ca(gen, cfg.d_in(), cfg.d_out, T, cfg.attn_dropout, cfg.qkv_bias,
                           cfg.dropout_rng, cfg.causal_softmax, cells);
  walk.add("causal_attention_context_vecs", ca.forward(gen, batch),
           {"grad_fn=<UnsafeViewBackward0>"});  // (B, T, d_out)
  print_shape_last(walk, "context_vecs.shape:");

  // Beyond the chapter (its bonus notebook on buffers): register_buffer makes the mask part
  // of the module's state (saved, moved to the GPU with it), sized for the longest context;
  // forward cuts it to the input, mask[:T, :T].
  const size_t first_addition = walk.steps.size();
  const int64_t context_length = T + 2;
  gen.manual_seed(cfg.seed1);
  const CausalAttention ca_long(gen, cfg.d_in(), cfg.d_out, context_length, cfg.attn_dropout,
                                cfg.qkv_bias, cfg.dropout_rng);
  walk.vars["context_length"] = std::to_string(context_length);
  const Tensor& mask = walk.add("buffer_mask", ca_long.mask);  // (context_length, context_length)
  walk.steps.back().details = {"list(ca.state_dict()) = " + state_dict_keys(cfg.qkv_bias, true),
                               "list(ca_plain.state_dict()) = " + state_dict_keys(cfg.qkv_bias, false)};
  Tensor mask_T = Tensor::zeros({T, T});
  for (int64_t i = 0; i < T; ++i)
    for (int64_t j = 0; j < T; ++j) mask_T(i, j) = mask(i, j);
  walk.add("buffer_mask_T", std::move(mask_T));  // mask[:T, :T]: (T, T)
  mark_beyond_chapter(walk, first_addition);
  return walk;
}

}  // namespace attn
