// Section 3.4: self-attention with trainable weights (scaled dot-product attention),
// ending with exercise 3.1. Texts: src/lang/ (key "trainable/<step>").
#include <fmt/format.h>

#include <cmath>

#include "modules/chapter.h"
#include "ops/ops.h"
#include "stages/common.h"
#include "stages/stages.h"
#include "torch/torch_random.h"

namespace attn {

Walk run_trainable(const Config& cfg) { return run_trainable_with(cfg, book_cells()); }

Walk run_trainable_with(const Config& cfg, const Cells& cells) {
  Walk walk("trainable", cfg);
  set_common_vars(walk, cfg);
  walk.section = "3.4.1";
  const Tensor& inputs = cfg.inputs;
  const int64_t d_in = cfg.d_in(), d_out = cfg.d_out;
  const int64_t q = cfg.query - 1;
  TorchGenerator gen;

  const Tensor& x_2 = walk.add("x_2", cells.token_row(inputs, cfg.query));  // inputs[1]: (d_in,)

  // 3.4.1: three weight matrices, drawn in the order they are declared after
  // torch.manual_seed(seed1).
  gen.manual_seed(cfg.seed1);
  auto drawn = declared_in_order<Tensor>(cells, [&] { return init_parameter(gen, d_in, d_out, cfg.init); });
  const Tensor& W_query = walk.add_parameter("W_query", std::move(drawn[0]), /*requires_grad=*/false);
  const Tensor& W_key = walk.add_parameter("W_key", std::move(drawn[1]), false);
  const Tensor& W_value = walk.add_parameter("W_value", std::move(drawn[2]), false);

  const Tensor& query_2 = walk.add("query_2", cells.queries(x_2, times(W_query), times(W_key)));  // (d_out,)
  walk.add("key_2", cells.keys(x_2, times(W_query), times(W_key)));
  walk.add("value_2", matmul(x_2, W_value));

  const Tensor& keys = walk.add("keys", cells.keys(inputs, times(W_query), times(W_key)));  // (T, d_out)
  print_shape_last(walk, "keys.shape:");
  const Tensor& values = walk.add("values", matmul(inputs, W_value));  // (T, d_out)
  print_shape_last(walk, "values.shape:");

  const Tensor keys_2 = keys[q];
  const Tensor& attn_score_22 = walk.add("attn_score_22", dot(query_2, keys_2));
  const Tensor& attn_scores_2 = walk.add("attn_scores_2", Role::Scores, matmul_transposed(query_2, keys));  // (T,)
  add_check(walk, "attn_score_22_in_attn_scores_2",
            compare_close(Tensor::scalar(attn_scores_2(q)), attn_score_22));

  // Scale by sqrt(d_k) so that large dot products do not push softmax into saturation.
  const double d_k = static_cast<double>(keys.size(-1));
  walk.vars["d_k"] = std::to_string(keys.size(-1));
  walk.vars["sqrt_d_k"] = fmt::format("{:.4g}", std::sqrt(d_k));
  const Tensor& attn_weights_2 =
      walk.add("attn_weights_2", Role::Weights, cells.softmax(attn_scores_2, notebook_self(keys)));  // (T,)
  add_check(walk, "softmax_sums_to_1", rows_sum_to_one(attn_weights_2));
  const Tensor& context_vec_2 = walk.add("context_vec_2", matmul(attn_weights_2, values));  // (d_out,)

  // 3.4.2: the same computation as a module, for every token at once.
  walk.section = "3.4.2";
  cells.seed(gen, cfg.seed1, "sa_v1");
  const SelfAttention_v1 sa_v1(gen, d_in, d_out, cfg.init, cells);
  const Tensor& sa_v1_output = walk.add("sa_v1_output", sa_v1.forward(inputs), {"grad_fn=<MmBackward0>"});
  add_check(walk, "sa_v1_row_equals_context_vec_2", compare_close(sa_v1_output[q], context_vec_2));

  cells.seed(gen, cfg.seed2, "sa_v2");
  const SelfAttention_v2 sa_v2(gen, d_in, d_out, cfg.qkv_bias, cells);
  for (const auto& [name, layer] : {std::pair<const char*, const Linear*>{"W_query", &sa_v2.W_query},
                                    {"W_key", &sa_v2.W_key},
                                    {"W_value", &sa_v2.W_value}}) {
    walk.add_parameter(fmt::format("sa_v2.{}.weight", name), layer->weight);
    if (layer->bias) walk.add_parameter(fmt::format("sa_v2.{}.bias", name), *layer->bias);
  }
  walk.add("sa_v2_output", sa_v2.forward(inputs), {"grad_fn=<MmBackward0>"});

  // Exercise 3.1: both classes after torch.manual_seed(seed1) (v2 as the exercise writes
  // it, without qkv_bias), then sa_v1.W_query = nn.Parameter(sa_v2.W_query.weight.T) and
  // likewise for W_key and W_value: the outputs agree. (The exercise runs the classes of
  // section 3.4.2: a learner's lines in them are there too.)
  gen.manual_seed(cfg.seed1);
  SelfAttention_v1 ex_v1(gen, d_in, d_out, cfg.init, cells);  // drawn, then replaced, as in the notebook
  cells.seed(gen, cfg.seed1, "exercise_3_1_v2");
  const SelfAttention_v2 ex_v2(gen, d_in, d_out, /*qkv_bias=*/false, cells);
  auto copied = cells.copy_weights(ex_v2.W_query.weight, ex_v2.W_key.weight, ex_v2.W_value.weight);
  ex_v1.W_query = std::move(copied[0]);  // (d_in, d_out)
  ex_v1.W_key = std::move(copied[1]);
  ex_v1.W_value = std::move(copied[2]);
  // x @ W runs only when W is (d_in, ...): PyTorch stops here otherwise.
  if (ex_v1.W_query.size(0) != d_in) return walk;
  // SelfAttention_v1.forward with those weights. nn.Parameter(weight.T) keeps the
  // transposed view, so each x @ W_* multiplies by a transposed operand, as PyTorch does.
  const auto times_view = [](const Tensor& W) -> Layer {
    return [&W](const Tensor& x) { return matmul_transposed(x, transpose2d(W)); };
  };
  const auto ex_v1_forward = [&](const Tensor& x) {
    const Layer W_query = times_view(ex_v1.W_query), W_key = times_view(ex_v1.W_key);
    const Tensor keys = cells.keys(x, W_query, W_key);
    const Tensor queries = cells.queries(x, W_query, W_key);
    const Tensor values = times_view(ex_v1.W_value)(x);
    const Tensor attn_scores = cells.score(queries, keys);  // queries @ keys.T
    return cells.context(cells.softmax(attn_scores, notebook_self(keys)), values);
  };
  const Tensor& ex_v1_output =
      walk.add("exercise_3_1_sa_v1_output", ex_v1_forward(inputs), {"grad_fn=<MmBackward0>"});
  const Tensor& ex_v2_output =
      walk.add("exercise_3_1_sa_v2_output", ex_v2.forward(inputs), {"grad_fn=<MmBackward0>"});
  add_check(walk, "exercise_3_1_outputs_equal", compare_close(ex_v1_output, ex_v2_output));
  return walk;
}

}  // namespace attn
