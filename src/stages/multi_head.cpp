// Section 3.6: multi-head attention, first as stacked CausalAttention heads, then as
// one module that splits its projections into heads; ending with exercises 3.2 and 3.3.
// Texts: src/lang/ (key "multi-head/<step>").
#include <fmt/format.h>

#include <cmath>
#include <map>

#include "modules/chapter.h"
#include "ops/ops.h"
#include "stages/causal_weights.h"
#include "stages/common.h"
#include "stages/layout.h"
#include "stages/stages.h"
#include "torch/torch_random.h"

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

// 3.6.1: H independent CausalAttention heads, outputs concatenated.
void walk_wrapper(Walk& walk, const Config& cfg, const Cells& cells, TorchGenerator& gen, const Tensor& batch) {
  const int64_t T = cfg.num_tokens(), d_in = cfg.d_in(), d_out = cfg.d_out, H = cfg.heads;
  walk.vars["wrapper_width"] = std::to_string(H * d_out);
  cells.seed(gen, cfg.seed1, "wrapper");
  const MultiHeadAttentionWrapper wrapper(gen, d_in, d_out, T, cfg.attn_dropout, H, cfg.qkv_bias,
                                          cfg.dropout_rng, cfg.causal_softmax, cells);
  // (B, T, H * d_out); at GPT-2's sizes most of the walk's time, so each head is reported done.
  const std::string step = "wrapper_context_vecs";
  Tensor wrapper_out = wrapper.forward(gen, batch, [&](int64_t h) { walk.part_done(step, h + 1, H); });
  Comparison first_head_check;
  if (cfg.attn_dropout == 0.0) {
    // Its first head is the CausalAttention of section 3.5.3 (same seed, drawn first).
    // With dropout the masks come from different points of the random stream, so only
    // the dropout-free walk can compare them.
    TorchGenerator ca_gen(cfg.seed1);
    const CausalAttention ca(ca_gen, d_in, d_out, T, cfg.attn_dropout, cfg.qkv_bias, cfg.dropout_rng,
                             cfg.causal_softmax, cells);
    first_head_check = compare_close(slice_lastdim(wrapper_out, 0, d_out), ca.forward(ca_gen, batch));
  }
  walk.record(step, std::move(wrapper_out), {"grad_fn=<CatBackward0>"});
  print_shape_last(walk, "context_vecs.shape:");
  if (cfg.attn_dropout == 0.0) add_check(walk, "wrapper_first_head_equals_causal_attention", first_head_check);
}

// The batched matrix product MultiHeadAttention relies on, on the chapter's fixed tensor.
void walk_batched_product(Walk& walk, const Cells& cells) {
  const Tensor& a = walk.add(
      "a", Tensor({1, 2, 3, 4}, {0.2745f, 0.6584f, 0.2775f, 0.8573f, 0.8993f, 0.0390f, 0.9268f, 0.7388f,
                                 0.7179f, 0.7058f, 0.9156f, 0.4340f, 0.0772f, 0.3565f, 0.1479f, 0.5331f,
                                 0.4066f, 0.2318f, 0.4545f, 0.9737f, 0.4606f, 0.5159f, 0.4220f, 0.5786f}));
  const Tensor& a_at_a_T = walk.add("a_at_a_T", matmul_transposed(a, a));  // (1, 2, 3, 3)
  const Tensor first_head = a[0][0], second_head = cells.second_head(a);   // a[0, 1, :, :]
  // print("First head:\n", first_res): the label, a newline, then a space before the tensor.
  const Tensor& first_res = walk.add("first_res", matmul_transposed(first_head, first_head));
  label_last(walk, "First head:\n");
  const Tensor& second_res = walk.add("second_res", matmul_transposed(second_head, second_head));
  label_last(walk, "\nSecond head:\n");
  add_check(walk, "head_products_equal_batched",
            both(compare_close(first_res, a_at_a_T[0][0]), compare_close(second_res, a_at_a_T[0][1])));
}

// 3.6.2: MultiHeadAttention, every intermediate of its forward pass.
void walk_multi_head_attention(Walk& walk, const Config& cfg, const Cells& cells, TorchGenerator& gen,
                               const Tensor& batch) {
  cells.seed(gen, cfg.seed1, "mha");
  const MultiHeadAttention mha(gen, cfg.d_in(), cfg.d_out, cfg.num_tokens(), cfg.attn_dropout, cfg.heads,
                               cfg.qkv_bias, cfg.dropout_rng, cells);
  walk.vars["d_k"] = std::to_string(mha.head_dim);
  walk.vars["sqrt_d_k"] = fmt::format("{:.4g}", std::sqrt(static_cast<double>(mha.head_dim)));
  const char* proj_grad = cfg.qkv_bias ? "grad_fn=<ViewBackward0>" : "grad_fn=<UnsafeViewBackward0>";
  // Its forward pass shows each intermediate as it computes it (the (B, H, T, T) ones are
  // changed in place right after), in this order:
  const std::map<std::string, std::string> grad_fn = {
      {"keys", proj_grad},  // (B, T, d_out)
      {"queries", proj_grad},
      {"values", proj_grad},
      {"keys_viewed", "grad_fn=<ViewBackward0>"},  // (B, T, H, head_dim)
      {"queries_viewed", "grad_fn=<ViewBackward0>"},
      {"values_viewed", "grad_fn=<ViewBackward0>"},
      {"keys_transposed", "grad_fn=<TransposeBackward0>"},  // (B, H, T, head_dim)
      {"queries_transposed", "grad_fn=<TransposeBackward0>"},
      {"values_transposed", "grad_fn=<TransposeBackward0>"},
      {"attn_scores", "grad_fn=<UnsafeViewBackward0>"},  // (B, H, T, T)
      {"attn_scores_masked", "grad_fn=<MaskedFillBackward0>"},
      {"attn_weights", dropout_grad_fn(cfg.attn_dropout, "grad_fn=<SoftmaxBackward0>")},
      {"context_vec", "grad_fn=<TransposeBackward0>"},     // (B, T, H, head_dim)
      {"context_vec_merged", "grad_fn=<ViewBackward0>"}};  // (B, T, d_out)
  const std::map<std::string, Role> roles = {
      {"attn_scores", Role::Scores}, {"attn_scores_masked", Role::Scores}, {"attn_weights", Role::Weights}};
  Tensor mha_out = mha.forward(gen, batch, [&](const char* name, const Tensor& value) {
    const auto role = roles.find(name);
    walk.record(name, role == roles.end() ? Role::Value : role->second, value, {grad_fn.at(name)});
    if (walk.steps.back().name != "attn_weights") return;
    if (cfg.attn_dropout > 0.0) walk.last().variant = "dropout";
    add_check(walk, "causal_no_future_weight", zero_above_diagonal(value));
    if (cfg.attn_dropout == 0.0) add_check(walk, "softmax_rows_sum_to_1", rows_sum_to_one(value));
  });
  walk.add_parameter("out_proj.weight", mha.out_proj.weight);
  walk.add_parameter("out_proj.bias", *mha.out_proj.bias);
  walk.record("mha_context_vecs", std::move(mha_out), {"grad_fn=<ViewBackward0>"});  // (B, T, d_out)
  print_shape_last(walk, "context_vecs.shape:");
}

// Beyond the chapter: with its default head_dim = 1, view and transpose above move nothing
// visible. Here b = 1, 3 tokens, d_out = 4 = 2 heads x head_dim 2, on the numbers 0..11,
// so every number says which token and which feature it is.
void walk_head_dim_2(Walk& walk) {
  const size_t first_addition = walk.steps.size();
  Tensor numbers = Tensor::zeros({1, 3, 4});
  for (int64_t k = 0; k < 12; ++k) numbers(k) = static_cast<float>(k);
  const Layout keys_layout = contiguous_layout({1, 3, 4});
  const Tensor& hd2_keys = walk.add("hd2_keys", numbers);  // (1, 3, 4)
  walk.steps.back().details = {layout_line(keys_layout)};
  // Right: keys.view(1, 3, 2, 2).transpose(1, 2): head h holds features 2h, 2h+1 of every token.
  walk.add("hd2_keys_split", transpose(view(hd2_keys, {1, 3, 2, 2}), 1, 2));  // (1, 2, 3, 2)
  walk.steps.back().details = {layout_line(transposed(contiguous_layout({1, 3, 2, 2}), 1, 2))};
  // Wrong: keys.view(1, 2, 3, 2) reads memory in order, so "head 0" gets token 1's four
  // features and half of token 2's.
  walk.add("hd2_keys_wrong", view(hd2_keys, {1, 2, 3, 2}));  // (1, 2, 3, 2)
  walk.steps.back().details = {layout_line(contiguous_layout({1, 2, 3, 2}))};
  // A fresh (b, heads, T, head_dim) tensor, as attn_weights @ values makes one.
  const Tensor& heads_copy = walk.add("hd2_heads_copy", transpose(view(hd2_keys, {1, 3, 2, 2}), 1, 2));
  walk.steps.back().details = {layout_line(contiguous_layout({1, 2, 3, 2}))};
  // .transpose(1, 2) back to (b, T, heads, head_dim): the same memory, no longer row by row,
  // so .view(1, 3, 4) would fail here.
  const Tensor& back = walk.add("hd2_back", transpose(heads_copy, 1, 2));  // (1, 3, 2, 2)
  walk.steps.back().details = {layout_line(transposed(contiguous_layout({1, 2, 3, 2}), 1, 2))};
  // .contiguous() copies it row by row; then .view merges the heads: the keys again.
  walk.add("hd2_merged", view(back, {1, 3, 4}));  // (1, 3, 4)
  walk.steps.back().details = {layout_line(contiguous_layout({1, 3, 4}))};
  mark_beyond_chapter(walk, first_addition);
}

// Exercise 3.2: two heads of d_out = 1 give 2-dimensional context vectors. The book's
// solution prints other numbers, from an early softmax(dim=1): the note says so.
void walk_exercise_3_2(Walk& walk, const Config& cfg, const Cells& cells, TorchGenerator& gen,
                       const Tensor& batch) {
  walk.notes.push_back(cfg.causal_softmax.dim == 1 ? "note.exercise_3_2_solution#dim1"
                                                   : "note.exercise_3_2_solution");
  cells.seed(gen, cfg.seed1, "exercise_3_2");
  const MultiHeadAttentionWrapper wrapper_2d(gen, cfg.d_in(), 1, cfg.num_tokens(), cfg.attn_dropout, 2,
                                             cfg.qkv_bias, cfg.dropout_rng, cfg.causal_softmax, cells);
  walk.record("exercise_3_2_context_vecs", wrapper_2d.forward(gen, batch), {"grad_fn=<CatBackward0>"});
}

// Exercise 3.3: the parameters of MultiHeadAttention(768, 768, 1024, 0.0, 12), counted from
// the shapes its layers allocate (tests/test_exercises.cpp checks they are a built module's).
void walk_exercise_3_3(Walk& walk) {
  const int64_t gpt2_d = 768, gpt2_context = 1024, gpt2_heads = 12;
  walk.vars["ex_d"] = std::to_string(gpt2_d);
  walk.vars["ex_context"] = std::to_string(gpt2_context);
  walk.vars["ex_heads"] = std::to_string(gpt2_heads);
  ParameterTable table;
  for (const auto& p : named_parameter_shapes(gpt2_d, gpt2_d, /*qkv_bias=*/false)) {
    table.rows.push_back({p.name, p.shape, numel_of(p.shape)});
    table.total += table.rows.back().count;
  }
  const int64_t total = table.total;
  walk.vars["ex_total"] = grouped(total);
  // The solution prints sum(...) itself: a Python int, "2360064".
  walk.add_python("exercise_3_3_num_params", static_cast<double>(total), std::to_string(total), "int");
  walk.steps.back().parameter_table = std::move(table);  // shown under it, one row per parameter
  // By hand: three d x d projections without bias, and out_proj with its bias.
  const int64_t by_hand = 3 * gpt2_d * gpt2_d + (gpt2_d * gpt2_d + gpt2_d);
  add_check(walk, "exercise_3_3_count_by_hand",
            {total == by_hand, std::fabs(static_cast<double>(total - by_hand))});
}

}  // namespace

Walk run_multi_head(const Config& cfg) {
  if (cfg.gpt.params) return run_multi_head_on_weights(cfg);  // --weights: a trained block's module
  return run_multi_head_with(cfg, book_cells());
}

Walk run_multi_head_with(const Config& cfg, const Cells& cells) {
  Walk walk("multi-head", cfg);
  set_common_vars(walk, cfg);
  if (cfg.attn_dropout > 0.0) walk.notes.push_back(dropout_kernel_note(cfg.dropout_rng));
  note_causal_softmax(walk, cfg);
  TorchGenerator gen;  // the notebook's generator: each module below is drawn after manual_seed(seed1)

  walk.section = "3.6.1";
  const Tensor& batch = walk.add("batch", stack_copies(cfg.inputs, cfg.batch));  // (B, T, d_in)
  walk_wrapper(walk, cfg, cells, gen, batch);                                    // 3.6.1
  walk.section = "3.6.2";
  walk_batched_product(walk, cells);                        // 3.6.2's batched matrix product
  walk_multi_head_attention(walk, cfg, cells, gen, batch);  // 3.6.2
  walk_head_dim_2(walk);                                    // beyond the chapter
  walk.section = "3.6.1";                                   // the exercise of 3.6.1's wrapper
  walk_exercise_3_2(walk, cfg, cells, gen, batch);
  walk.section = "3.6.2";
  walk_exercise_3_3(walk);
  return walk;
}

}  // namespace attn
