// How attention learns: chapter 5's loss and training loop around chapter 3's
// MultiHeadAttention. The forward pass, every gradient autograd computes (in its order),
// checks a learner can trust, and --steps steps of AdamW (or SGD).
// Texts: src/lang/backward_en.cpp, backward_zh.cpp (key "backward/<step>").
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <tuple>

#include "core/float_bits.h"
#include "core/number_format.h"
#include "modules/train.h"
#include "stages/backward.h"
#include "modules/train_f64.h"
#include "ops/ops.h"
#include "stages/backward_checks.h"
#include "stages/causal_weights.h"
#include "stages/common.h"
#include "stages/stages.h"
#include "torch/torch_random.h"

namespace attn {

namespace {

const char* grad_fn_of(const std::string& name, bool qkv_bias, double p) {
  static const std::map<std::string, std::string> fixed = {
      // clang-format off
      {"keys_viewed", "grad_fn=<ViewBackward0>"},          {"queries_viewed", "grad_fn=<ViewBackward0>"},
      {"values_viewed", "grad_fn=<ViewBackward0>"},        {"keys_transposed", "grad_fn=<TransposeBackward0>"},
      {"queries_transposed", "grad_fn=<TransposeBackward0>"}, {"values_transposed", "grad_fn=<TransposeBackward0>"},
      {"attn_scores", "grad_fn=<UnsafeViewBackward0>"},    {"attn_scores_masked", "grad_fn=<MaskedFillBackward0>"},
      {"context_vec", "grad_fn=<TransposeBackward0>"},     {"context_vec_merged", "grad_fn=<ViewBackward0>"},
      {"context_vecs", "grad_fn=<ViewBackward0>"},         {"logits", "grad_fn=<UnsafeViewBackward0>"},
      {"loss", "grad_fn=<NllLossBackward0>"}};
  // clang-format on
  if (name == "keys" || name == "queries" || name == "values")
    return qkv_bias ? "grad_fn=<ViewBackward0>" : "grad_fn=<UnsafeViewBackward0>";
  if (name == "attn_weights") return p > 0.0 ? "grad_fn=<MulBackward0>" : "grad_fn=<SoftmaxBackward0>";
  return fixed.at(name).c_str();
}

// The forward pass's steps, with the multi-head stage's names; `text_variant` is the variant
// of the steps that speak of labels ("text" with --text).
void record_forward(Walk& walk, const Activations& a, const MultiHeadAttention& mha, bool qkv_bias,
                    const std::string& text_variant) {
  const int64_t b = a.batch.size(0), T = a.batch.size(1);
  const Shape heads_shape{b, T, mha.num_heads, mha.head_dim};
  const std::vector<std::tuple<const char*, Role, Tensor>> steps = {
      // clang-format off
      {"keys", Role::Value, a.keys}, {"queries", Role::Value, a.queries}, {"values", Role::Value, a.values},
      {"keys_viewed", Role::Value, view(a.keys, heads_shape)},
      {"queries_viewed", Role::Value, view(a.queries, heads_shape)},
      {"values_viewed", Role::Value, view(a.values, heads_shape)}, {"keys_transposed", Role::Value, a.keys_t},
      {"queries_transposed", Role::Value, a.queries_t}, {"values_transposed", Role::Value, a.values_t},
      {"attn_scores", Role::Scores, a.attn_scores}, {"attn_scores_masked", Role::Scores, a.attn_scores_masked},
      {"attn_weights", Role::Weights, a.attn_weights}, {"context_vec", Role::Value, a.context_vec},
      {"context_vec_merged", Role::Value, a.context_vec_merged}, {"context_vecs", Role::Value, a.context_vecs}};
  // clang-format on
  // record(): a walk that is only printed keeps what print() shows of the large ones (the
  // (b, H, T, T) scores, the logits with --text's 50257 columns).
  for (const auto& [name, role, value] : steps) walk.record(name, role, value, {grad_fn_of(name, qkv_bias, a.p)});
  walk.record("logits", a.logits, {grad_fn_of("logits", qkv_bias, a.p)});
  walk.last().variant = text_variant;
  walk.record("loss", a.loss, {grad_fn_of("loss", qkv_bias, a.p)});
  walk.last().variant = text_variant;
}

// The attention weights of the first sequence in eval mode (no dropout): (H, T, T).
Tensor eval_attention(const AttentionLM& model, const TrainData& data) {
  TorchGenerator unused;
  return forward(model, unused, input_batch(model, data), data.targets, /*training=*/false).attn_weights[0];
}

size_t parameter_index(const std::vector<std::pair<std::string, Tensor*>>& params, const std::string& name) {
  for (size_t i = 0; i < params.size(); ++i)
    if (params[i].first == name) return i;
  return 0;
}

// A step whose text states a fact that holds only for finite numbers ("each row sums to 0",
// "its gradient is 0") gets its "nonfinite" variant when its tensor holds an infinity or a NaN:
// a float32 overflowed on the way (the inputs themselves are finite), and the text says so
// instead of a fact the tensor above it does not show.
void mark_nonfinite(Step& step, const Tensor& t) {
  if (any_nonfinite(t.data.data(), t.numel())) step.variant = "nonfinite";
}

// --text: print() of tok_emb.weight.grad shows the rows of the input ids (in order of first
// appearance), the only ones that can be nonzero, as print(tok_emb.weight.grad[[ids]]) does:
// the whole table's print() would show its first and last 3 rows, all 0.
void print_input_rows(Step& step, const Tensor& table, const std::vector<int64_t>& rows) {
  const int64_t D = table.size(1);
  Tensor part = Tensor::zeros({static_cast<int64_t>(rows.size()), D});
  for (size_t r = 0; r < rows.size(); ++r)
    std::copy_n(table.data.begin() + rows[r] * D, D, part.data.begin() + static_cast<int64_t>(r) * D);
  step.payload = TensorPayload{std::move(part)};
  step.print_label = fmt::format("{}[[{}]]:", step.name, fmt::join(rows, ", "));
}

// Every .grad in autograd's order, with the checks after the gradients they read.
void record_gradients(Walk& walk, const AttentionLM& model, const Activations& a, const Gradients& grads,
                      const std::vector<int64_t>& input_rows) {
  for (const auto& [name, grad] : grads.in_order) {
    if (name == "batch") continue;
    walk.record(name + ".grad", grad);
    if (name == "tok_emb.weight") print_input_rows(walk.steps.back(), grad, input_rows);
    if (name == "logits" || name == "queries") mark_nonfinite(walk.last(), grad);
    if (name == "attn_scores") {
      // The masked entries, and how many of them are -0.0 (the book's in-place mask).
      const int64_t T = grad.size(-1);
      int64_t masked = 0, negative_zeros = 0;
      for (int64_t k = 0; k < grad.numel(); ++k)
        if ((k % T) > (k / T) % T) {
          ++masked;
          negative_zeros += grad.data[k] == 0.0f && std::signbit(grad.data[k]);
        }
      walk.vars["masked_entries"] = std::to_string(masked);
      walk.vars["masked_negative_zeros"] = std::to_string(negative_zeros);
      add_check(walk, "scores_grad_rows_sum_to_zero", rows_sum_to_zero(grad, 1e-6));
      add_check(walk, "masked_scores_grad_exactly_zero", masked_exactly_zero(grad));
    }
    if (name == "W_query.weight") {
      // d loss / d W_query.weight[0, 0] by a central difference in float64 (h = 1e-3,
      // error O(h²)), against autograd's float32 value.
      const double fd = finite_difference(model, a, "W_query.weight", 0, 1e-3);
      add_check(walk, "grad_matches_finite_difference", gradient_matches(grad.data[0], fd, 1e-3, 1e-6));
    }
  }
}

// Named values the gradient texts quote (src/lang/backward_*.cpp), from the walk's tensors.
void set_gradient_vars(Walk& walk, const Activations& a, const Gradients& g) {
  const int64_t V = a.logits.size(-1), N = static_cast<int64_t>(a.targets.size());
  const auto num = [](double v) { return python_fixed(v, 4); };
  walk.vars["N"] = std::to_string(N);
  walk.vars["V"] = std::to_string(V);
  walk.vars["target0"] = std::to_string(a.targets[0]);
  const float p_target = std::exp(a.log_probs.data[a.targets[0]]);
  walk.vars["p_target0"] = num(p_target);
  walk.vars["logits_grad_target0"] = num(g.at("logits").data[a.targets[0]]);
  walk.vars["p_other0"] = num(std::exp(a.log_probs.data[a.targets[0] == 0 ? 1 : 0]));
  walk.vars["other0"] = std::to_string(a.targets[0] == 0 ? 1 : 0);
  walk.vars["logits_grad_other0"] = num(g.at("logits").data[a.targets[0] == 0 ? 1 : 0]);
  walk.vars["loss"] = num(a.loss.item());
}

// --text: the values the embeddings' gradient texts quote.
void set_text_vars(Walk& walk, const Config& cfg, const TrainData& data) {
  const int64_t T = data.num_inputs();
  const std::vector<int64_t> inputs(data.ids.begin(), data.ids.begin() + T);
  std::vector<int64_t> distinct;
  for (int64_t id : inputs)
    if (std::find(distinct.begin(), distinct.end(), id) == distinct.end()) distinct.push_back(id);
  walk.vars["tok_rows"] = std::to_string(distinct.size());
  walk.vars["zero_rows"] = std::to_string(data.vocab - static_cast<int64_t>(distinct.size()));
  // The first input token that comes back, else the first: its row sums its positions'.
  size_t shown = 0;
  for (size_t i = 0; i < inputs.size() && shown == 0; ++i)
    for (size_t j = 0; j < i; ++j)
      if (inputs[j] == inputs[i]) {
        shown = j;
        break;
      }
  const int64_t id = inputs[shown];
  const auto count = std::count(inputs.begin(), inputs.end(), id);
  walk.vars["tok_id"] = std::to_string(id);
  walk.vars["tok_piece"] = cfg.tokens[shown];
  walk.vars["tok_count"] = std::to_string(count);
  walk.vars["tok_positions"] = std::to_string(count * data.batch_size);
}

}  // namespace

std::string backward_misuse(const Config& cfg) {
  if (cfg.d_out % cfg.heads != 0)
    return fmt::format("--heads: MultiHeadAttention needs --d-out divisible by --heads, got d_out {} and {} heads",
                       cfg.d_out, cfg.heads);
  if (cfg.num_tokens() < 2)
    return "--stage backward: the targets are the inputs shifted by one token, so it needs at least 2 tokens";
  // --text trains 50257-row tables (tok_emb, out_head) with their gradients and AdamW's two
  // moments, and its logits have 50257 columns per position: bounded so that the walk stays
  // within a few hundred megabytes (and its JSON too).
  constexpr int64_t kMaxTextWidth = 64, kMaxTextPositions = 64;
  if (!cfg.token_ids.empty() && std::max(cfg.d_in(), cfg.d_out) > kMaxTextWidth)
    return fmt::format("--stage backward with --text trains GPT-2's 50257-row tables with their gradients and "
                       "AdamW's moments: --embed-dim and --d-out may be at most {} (got {} and {})",
                       kMaxTextWidth, cfg.d_in(), cfg.d_out);
  if (cfg.train.grad_step < 1 || cfg.train.grad_step > cfg.train.steps)
    return fmt::format("--grad-step: the step whose gradients are shown must be one of the {} training steps "
                       "(1 to --steps), got {}",
                       cfg.train.steps, cfg.train.grad_step);
  if (!cfg.token_ids.empty() && cfg.batch * (cfg.num_tokens() - 1) > kMaxTextPositions)
    return fmt::format("--stage backward with --text computes 50257 logits at each of --batch x (tokens - 1) "
                       "positions: at most {}, got {} x {}; shorten the text or lower --batch",
                       kMaxTextPositions, cfg.batch, cfg.num_tokens() - 1);
  return "";
}

Walk run_backward(const Config& cfg) { return run_backward_with(cfg, TrainChoices{}); }

Walk run_backward_with(const Config& cfg, const TrainChoices& choices) {
  Walk walk("backward", cfg);
  if (!backward_misuse(cfg).empty()) return walk;  // the command line refuses these first
  set_common_vars(walk, cfg);
  const TrainConfig& tc = cfg.train;
  walk.vars["steps"] = std::to_string(tc.steps);
  walk.vars["lr"] = format_number(tc.lr);
  walk.vars["weight_decay"] = format_number(tc.weight_decay);
  walk.vars["optimizer"] = tc.optimizer == OptimizerKind::AdamW ? "AdamW" : "SGD";

  // Chapter 5's shift: the inputs are the first T - 1 tokens, the targets the last T - 1.
  // torch.manual_seed(seed); mha = MultiHeadAttention(...); out_head = nn.Linear(d_out, V, bias=False)
  ChapterTraining training(cfg, choices);
  const TrainData& data = training.data;
  const int64_t T = data.num_inputs(), B = data.batch_size;
  walk.vars["T"] = std::to_string(T);
  if (!cfg.token_ids.empty()) set_text_vars(walk, cfg, data);
  const std::string text_variant = cfg.token_ids.empty() ? "" : "text";  // of the steps that speak of labels
  Tensor target_ids = Tensor::zeros({B, T});
  for (int64_t k = 0; k < B * T; ++k) target_ids(k) = static_cast<float>(data.targets[static_cast<size_t>(k)]);
  // The walk's inputs are the shifted ones: its heatmaps label rows and columns with them.
  walk.config.inputs = narrow(cfg.inputs, 0, 0, T);
  walk.config.tokens.resize(static_cast<size_t>(T));
  if (cfg.attn_dropout > 0.0) walk.notes.push_back(dropout_kernel_note(cfg.dropout_rng));
  const AttentionLM& model = training.model;
  const Tensor untrained = eval_attention(model, data);
  std::vector<int64_t> input_rows;  // the distinct input ids, in order of first appearance
  for (int64_t t = 0; t < T; ++t)
    if (std::find(input_rows.begin(), input_rows.end(), data.ids[static_cast<size_t>(t)]) == input_rows.end())
      input_rows.push_back(data.ids[static_cast<size_t>(t)]);

  TrainObserver observe;
  // Step --grad-step (1 by default) in detail: its forward pass, every gradient, and the
  // checks. A .grad printed after the loop is the last step's (--grad-step = --steps).
  const int64_t shown = tc.grad_step - 1;
  walk.vars["grad_step"] = std::to_string(tc.grad_step);
  observe.after_backward = [&](int64_t step, const Activations& a, const Gradients& grads) {
    if (step != shown) return;
    // With --text the batch is tok_emb(ids) + pos_emb(positions): AddBackward0.
    walk.add("batch", a.batch, cfg.token_ids.empty() ? std::vector<std::string>{} : std::vector<std::string>{"grad_fn=<AddBackward0>"});
    walk.last().variant = text_variant;
    walk.add("targets", target_ids);
    walk.last().variant = text_variant;
    walk.steps.back().is_int64 = true;
    record_forward(walk, a, model.mha, cfg.qkv_bias, text_variant);
    set_gradient_vars(walk, a, grads);
    record_gradients(walk, model, a, grads, input_rows);
  };
  // The first update of W_query.weight: AdamW's moments and the update itself, shown after
  // the gradients (of step 1, or of a later --grad-step).
  const auto params = training.model.parameters();
  std::vector<std::tuple<std::string, Tensor, std::string>> first_update;  // name, value, variant
  observe.after_step = [&](int64_t step, const std::vector<Tensor>& before) {
    if (step != 0) return;
    const size_t i = parameter_index(params, "W_query.weight");
    if (training.optimizer.kind == Optimizer::Kind::AdamW) {
      first_update.emplace_back("step1.exp_avg", training.optimizer.exp_avg[i], "");
      first_update.emplace_back("step1.exp_avg_sq", training.optimizer.exp_avg_sq[i], "");
    }
    Tensor update = *params[i].second;
    for (int64_t k = 0; k < update.numel(); ++k) update.data[k] -= before[i].data[k];
    const bool adamw = training.optimizer.kind == Optimizer::Kind::AdamW;
    const char* variant = !adamw ? "sgd" : any_nonfinite(update.data.data(), update.numel()) ? "nonfinite"
                                                                                             : "";
    first_update.emplace_back("step1.update", std::move(update), variant);
    first_update.emplace_back("step1.W_query.weight", *params[i].second, "");
  };
  const std::vector<float> losses = training.run(tc.steps, observe);
  for (auto& [name, value, variant] : first_update) {
    walk.add(name, std::move(value));
    walk.last().variant = variant;
  }
  walk.add("losses", Role::Series, Tensor({static_cast<int64_t>(losses.size())}, losses));  // HTML: a line plot too
  walk.last().series_axes = {"series.losses.x", "series.losses.y"};                         // training step, loss
  for (const auto& [name, p] : params) walk.add_parameter(name, *p);
  walk.add("attn_weights_untrained", Role::Weights, untrained);
  walk.add("attn_weights_trained", Role::Weights, eval_attention(model, data));
  mark_nonfinite(walk.last(), walk.last().value);
  if (walk.summaries_only) summarize(walk);  // the trained 50257-row tables of --text
  return walk;
}

}  // namespace attn
