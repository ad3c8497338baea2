// Section 3.6: multi-head attention, first as stacked CausalAttention heads, then as
// one module that splits its projections into heads; ending with exercises 3.2 and 3.3.
// Texts: src/lang/ (key "multi-head/<step>").
#include <fmt/format.h>

#include <cmath>

#include "modules.h"
#include "ops.h"
#include "stages/causal_weights.h"
#include "stages/common.h"
#include "stages/stages.h"
#include "torch_random.h"

namespace attn {

namespace {

// t[..., begin:end] of the last dimension.
Tensor slice_lastdim(const Tensor& t, int64_t begin, int64_t end) {
  const int64_t n = t.size(-1), w = end - begin;
  Shape shape = t.shape;
  shape.back() = w;
  std::vector<float> data;
  for (int64_t row = 0; row < t.numel() / n; ++row)
    for (int64_t k = begin; k < end; ++k) data.push_back(t.data[static_cast<size_t>(row * n + k)]);
  return Tensor(shape, std::move(data));
}

// A shape as Python prints a tuple: (768, 768), (768,)
std::string tuple_str(const Shape& s) {
  std::string out = "(";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + (s.size() == 1 ? ",)" : ")");
}

}  // namespace

Walk run_multi_head(const Config& cfg) {
  Walk walk("multi-head", cfg);
  set_common_vars(walk, cfg);
  const int64_t T = cfg.num_tokens(), d_in = cfg.d_in(), d_out = cfg.d_out, H = cfg.heads;
  if (cfg.attn_dropout > 0.0) walk.notes.push_back(dropout_kernel_note(cfg.dropout_rng));
  walk.vars["wrapper_width"] = std::to_string(H * d_out);
  TorchGenerator gen;

  const Tensor& batch = walk.add("batch", stack_copies(cfg.inputs, cfg.batch));  // (B, T, d_in)

  // 3.6.1: H independent CausalAttention heads, outputs concatenated.
  gen.manual_seed(cfg.seed1);
  const MultiHeadAttentionWrapper wrapper(gen, d_in, d_out, T, cfg.attn_dropout, H, cfg.qkv_bias,
                                          cfg.dropout_rng);
  const Tensor& wrapper_out = walk.add("wrapper_context_vecs", wrapper.forward(gen, batch),
                                       {"grad_fn=<CatBackward0>"});  // (B, T, H * d_out)
  if (cfg.attn_dropout == 0.0) {
    // Its first head is the CausalAttention of section 3.5.3 (same seed, drawn first).
    // With dropout the masks come from different points of the random stream, so only
    // the dropout-free walk can compare them.
    gen.manual_seed(cfg.seed1);
    const CausalAttention ca(gen, d_in, d_out, T, cfg.attn_dropout, cfg.qkv_bias, cfg.dropout_rng);
    add_check(walk, "wrapper_first_head_equals_causal_attention",
              compare_close(slice_lastdim(wrapper_out, 0, d_out), ca.forward(gen, batch)));
  }

  // The batched matrix product MultiHeadAttention relies on, on the chapter's fixed tensor.
  const Tensor& a = walk.add(
      "a", Tensor({1, 2, 3, 4}, {0.2745f, 0.6584f, 0.2775f, 0.8573f, 0.8993f, 0.0390f, 0.9268f, 0.7388f,
                                 0.7179f, 0.7058f, 0.9156f, 0.4340f, 0.0772f, 0.3565f, 0.1479f, 0.5331f,
                                 0.4066f, 0.2318f, 0.4545f, 0.9737f, 0.4606f, 0.5159f, 0.4220f, 0.5786f}));
  const Tensor& a_at_a_T = walk.add("a_at_a_T", matmul_transposed(a, a));  // (1, 2, 3, 3)
  const Tensor first_head = a[0][0], second_head = a[0][1];
  const Tensor& first_res = walk.add("first_res", matmul_transposed(first_head, first_head));
  const Tensor& second_res = walk.add("second_res", matmul_transposed(second_head, second_head));
  add_check(walk, "head_products_equal_batched",
            both(compare_close(first_res, a_at_a_T[0][0]), compare_close(second_res, a_at_a_T[0][1])));

  // 3.6.2: MultiHeadAttention, every intermediate of its forward pass.
  gen.manual_seed(cfg.seed1);
  const MultiHeadAttention mha(gen, d_in, d_out, T, cfg.attn_dropout, H, cfg.qkv_bias,
                               cfg.dropout_rng);
  auto t = mha.forward_traced(gen, batch);  // its tensors move into the walk below
  walk.vars["d_k"] = std::to_string(mha.head_dim);
  walk.vars["sqrt_d_k"] = fmt::format("{:.4g}", std::sqrt(static_cast<double>(mha.head_dim)));
  if (cfg.attn_dropout > 0.0) walk.vars["variant:attn_weights"] = "dropout";
  const char* proj_grad = cfg.qkv_bias ? "grad_fn=<ViewBackward0>" : "grad_fn=<UnsafeViewBackward0>";
  walk.add("keys", std::move(t.keys), {proj_grad});       // (B, T, d_out)
  walk.add("queries", std::move(t.queries), {proj_grad});
  walk.add("values", std::move(t.values), {proj_grad});
  walk.add("keys_viewed", std::move(t.keys_viewed), {"grad_fn=<ViewBackward0>"});  // (B, T, H, head_dim)
  walk.add("queries_viewed", std::move(t.queries_viewed), {"grad_fn=<ViewBackward0>"});
  walk.add("values_viewed", std::move(t.values_viewed), {"grad_fn=<ViewBackward0>"});
  walk.add("keys_transposed", std::move(t.keys_t), {"grad_fn=<TransposeBackward0>"});  // (B, H, T, head_dim)
  walk.add("queries_transposed", std::move(t.queries_t), {"grad_fn=<TransposeBackward0>"});
  walk.add("values_transposed", std::move(t.values_t), {"grad_fn=<TransposeBackward0>"});
  walk.add("attn_scores", std::move(t.attn_scores), {"grad_fn=<UnsafeViewBackward0>"});  // (B, H, T, T)
  walk.add("attn_scores_masked", std::move(t.attn_scores_masked), {"grad_fn=<MaskedFillBackward0>"});
  const Tensor& attn_weights = walk.add(
      "attn_weights", std::move(t.attn_weights), {dropout_grad_fn(cfg.attn_dropout, "grad_fn=<SoftmaxBackward0>")});
  add_check(walk, "causal_no_future_weight", zero_above_diagonal(attn_weights));
  if (cfg.attn_dropout == 0.0) add_check(walk, "softmax_rows_sum_to_1", rows_sum_to_one(attn_weights));
  walk.add("context_vec", std::move(t.context_vec), {"grad_fn=<TransposeBackward0>"});  // (B, T, H, head_dim)
  walk.add("context_vec_merged", std::move(t.context_vec_merged), {"grad_fn=<ViewBackward0>"});
  walk.add_parameter("out_proj.weight", mha.out_proj.weight);
  walk.add_parameter("out_proj.bias", *mha.out_proj.bias);
  walk.add("mha_context_vecs", std::move(t.context_vecs), {"grad_fn=<ViewBackward0>"});  // (B, T, d_out)

  // Exercise 3.2: two heads of d_out = 1 give 2-dimensional context vectors.
  gen.manual_seed(cfg.seed1);
  const MultiHeadAttentionWrapper wrapper_2d(gen, d_in, 1, T, cfg.attn_dropout, 2, cfg.qkv_bias,
                                             cfg.dropout_rng);
  walk.add("exercise_3_2_context_vecs", wrapper_2d.forward(gen, batch), {"grad_fn=<CatBackward0>"});

  // Exercise 3.3: a GPT-2-sized MultiHeadAttention, counted from its actual parameters.
  const int64_t gpt2_d = 768, gpt2_context = 1024, gpt2_heads = 12;
  walk.vars["ex_d"] = std::to_string(gpt2_d);
  walk.vars["ex_context"] = std::to_string(gpt2_context);
  walk.vars["ex_heads"] = std::to_string(gpt2_heads);
  gen.manual_seed(cfg.seed1);
  const MultiHeadAttention gpt2_mha(gen, gpt2_d, gpt2_d, gpt2_context, 0.0, gpt2_heads, false,
                                    cfg.dropout_rng);
  const auto params = named_parameter_shapes(gpt2_mha);
  int64_t total = 0;
  size_t name_width = 0, shape_width = 0;
  for (const auto& p : params) {
    name_width = std::max(name_width, p.name.size());
    shape_width = std::max(shape_width, tuple_str(p.shape).size());
  }
  std::vector<std::string> details;
  for (const auto& p : params) {
    const int64_t n = numel_of(p.shape);
    total += n;
    details.push_back(fmt::format("  {:<{}}  {:<{}} = {:>9}", p.name, name_width, tuple_str(p.shape),
                                  shape_width, grouped(n)));
  }
  details.push_back(fmt::format("  {{total}} = {}", grouped(total)));
  walk.vars["ex_total"] = grouped(total);
  walk.add("exercise_3_3_num_params", Tensor::scalar(static_cast<float>(total)));
  walk.steps.back().details = std::move(details);
  // By hand: three d x d projections without bias, and out_proj with its bias.
  const int64_t by_hand = 3 * gpt2_d * gpt2_d + (gpt2_d * gpt2_d + gpt2_d);
  add_check(walk, "exercise_3_3_count_by_hand",
            {total == by_hand, std::fabs(static_cast<double>(total - by_hand))});
  return walk;
}

}  // namespace attn
