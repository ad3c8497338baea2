// Chapter 5's loss and training loop around chapter 3's MultiHeadAttention:
//
//   torch.manual_seed(seed)
//   mha = MultiHeadAttention(d_in, d_out, T, attn_dropout, H, qkv_bias)
//   out_head = nn.Linear(d_out, V, bias=False)          # drawn right after mha
//   optimizer = torch.optim.AdamW(params, lr=lr, weight_decay=wd)     # or SGD(params, lr, weight_decay=wd)
//   for step in range(steps):
//       optimizer.zero_grad()
//       loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten())
//       loss.backward()
//       optimizer.step()
//
// forward() keeps every tensor the backward pass needs; backward() computes each gradient
// as PyTorch 1.13's autograd does (ops/ops_backward.h), in the order autograd reaches them.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/config.h"
#include "core/tensor.h"
#include "modules/chapter.h"
#include "torch/torch_random.h"

namespace attn {

struct AttentionLM {
  MultiHeadAttention mha;
  Linear out_head;  // nn.Linear(d_out, V, bias=False)
  // --text: tok_emb = nn.Embedding(50257, D) and pos_emb = nn.Embedding(T + 1, D), drawn as
  // --text draws them (chapter 2), are parameters too: the inputs are their rows' sums.
  std::optional<Tensor> tok_emb, pos_emb;
  AttentionLM(TorchGenerator& gen, int64_t d_in, int64_t d_out, int64_t T, double attn_dropout,
              int64_t heads, bool qkv_bias, DropoutKernel kernel, int64_t vocab);
  // model.parameters(): (name, tensor) in the optimizer's order: tok_emb.weight and
  // pos_emb.weight first (with --text), then mha's, then out_head.weight.
  std::vector<std::pair<std::string, Tensor*>> parameters();
};

// How the learner wrote the loop. The defaults are chapter 5's; each other value is a
// mistake `attn-walk check` diagnoses, computed as PyTorch 1.13 computes it.
struct TrainChoices {
  // false (grad_not_zeroed): no optimizer.zero_grad(), so each backward() adds its
  // gradients to the previous steps' .grad.
  bool zero_grad = true;
  // true: F.cross_entropy(torch.softmax(logits, -1).flatten(0, 1), ...): a softmax of the
  // softmax, so the loss can never get near 0.
  bool softmax_before_cross_entropy = false;
  // false (targets_not_shifted): targets = the inputs themselves, so the model learns to
  // copy the current token instead of predicting the next one.
  bool shift_targets = true;
  // false (adam_instead_of_adamw): torch.optim.Adam(params, lr, weight_decay=wd), which adds
  // wd * param to the gradient (L2) instead of decaying the parameter apart from Adam's step.
  bool decoupled_weight_decay = true;
  // true: F.cross_entropy(..., reduction="sum"): the gradients are N times the mean's.
  bool loss_reduction_sum = false;
  // true (grad_zeroed_before_step): optimizer.zero_grad() between loss.backward() and
  // optimizer.step(): the step sees zero gradients (AdamW then only decays the weights).
  bool zero_grad_before_step = false;
};

// Every tensor of one forward pass (B = batch, T tokens, H heads, V labels).
struct Activations {
  // clang-format off
  Tensor batch;                          // (B, T, d_in)
  std::vector<int64_t> targets;          // B * T ids, row-major
  Tensor keys, queries, values;          // (B, T, d_out)
  Tensor keys_t, queries_t, values_t;    // (B, H, T, head_dim)
  Tensor attn_scores;                    // (B, H, T, T), queries @ keys.T
  Tensor attn_scores_masked;             // (B, H, T, T), -inf above the diagonal
  Tensor softmax;                        // (B, H, T, T), before dropout
  std::vector<uint8_t> keep;             // dropout's mask (empty: no dropout)
  double p = 0.0;                        // dropout rate used
  Tensor attn_weights;                   // (B, H, T, T), after dropout
  Tensor context_vec;                    // (B, T, H, head_dim)
  Tensor context_vec_merged;             // (B, T, d_out)
  Tensor context_vecs;                   // (B, T, d_out), out_proj's output
  Tensor logits;                         // (B, T, V)
  Tensor probs;                          // (B * T, V): softmax(logits), only when it comes first
  Tensor log_probs;                      // (B * T, V)
  Tensor loss;                           // 0-dim
  bool softmax_before_cross_entropy = false, loss_reduction_sum = false;  // as computed
  // clang-format on
};

// The forward pass; `training` draws dropout masks from gen (nn.Module.train()). `choices`
// says how the loss is written (softmax_before_cross_entropy, loss_reduction_sum).
Activations forward(const AttentionLM& m, TorchGenerator& gen, const Tensor& batch,
                    const std::vector<int64_t>& targets, bool training, const TrainChoices& choices = {});

// Gradients by name ("logits", "out_head.weight", ..., "W_key.weight"), in the order autograd
// computes them. Also holds "batch" (the input's gradient, for --text's embeddings).
struct Gradients {
  std::vector<std::pair<std::string, Tensor>> in_order;
  const Tensor& at(const std::string& name) const;
  Tensor& at_mut(const std::string& name);
  void add(std::string name, Tensor t) { in_order.emplace_back(std::move(name), std::move(t)); }
};
Gradients backward(const AttentionLM& m, const Activations& a);

// ---- optimizers ------------------------------------------------------------------------------

// torch.optim.AdamW's _single_tensor_adamw (1.13), or _single_tensor_sgd without momentum
// (its weight_decay, when not 0, added to the gradient: grad + wd * param), on one parameter
// list. step() applies one update given each parameter's gradient (same order). AdamW with
// decoupled_weight_decay false is torch.optim.Adam's _single_tensor_adam with the same
// weight_decay: grad + wd * param goes into the moments, and the parameter is not decayed.
struct Optimizer {
  enum class Kind {
    AdamW,
    SGD
  };
  Kind kind = Kind::AdamW;
  double lr = 0.0, weight_decay = 0.0;
  bool decoupled_weight_decay = true;
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  int64_t steps_taken = 0;
  std::vector<Tensor> exp_avg, exp_avg_sq;  // AdamW's state, per parameter
  void step(const std::vector<Tensor*>& params, const std::vector<const Tensor*>& grads);
};

// ---- chapter 5's loop (train_loop.cpp) --------------------------------------------------------

// Chapter 5's data loader on the walk's input: the inputs are the first T tokens (T = the
// walk's tokens - 1), the targets the last T, `--batch` copies of each.
struct TrainData {
  // clang-format off
  std::vector<int64_t> ids;      // the walk's T + 1 token ids: each label's (first appearance)
  int64_t vocab = 0;             // V: the distinct labels
  int64_t batch_size = 0;        // B
  Tensor batch;                  // (B, T, d_in): the first T embeddings, B copies (not with --text)
  std::vector<int64_t> targets;  // B * T ids: ids[1..T] per copy, or ids[0..T-1] not shifted
  int64_t num_inputs() const { return static_cast<int64_t>(ids.size()) - 1; }  // T
  // clang-format on
};
// With --text the ids are GPT-2's and V = 50257, as GPTModel's out_head.
constexpr int64_t kGpt2Vocab = 50257;  // text::vocab_size(), which this layer does not include
TrainData chapter_data(const Config& cfg, const TrainChoices& choices = {});

// The model's input: data.batch, or with --text tok_emb(input ids) + pos_emb(arange(T)) for
// each of the B copies (B, T, D).
Tensor input_batch(const AttentionLM& m, const TrainData& data);
// With --text, the embeddings' gradients from the input's ("batch"), added to g in autograd's
// order: pos_emb.weight (batch.grad summed over the copies, at rows 0..T-1), then
// tok_emb.weight (each input position's row added to its id's row, in order).
void embeddings_backward(const AttentionLM& m, const TrainData& data, Gradients& g);

// What a caller sees of each step (both optional).
struct TrainObserver {
  // After loss.backward(): the step's forward pass and gradients, in autograd's order; each
  // parameter's entry is its .grad (summed over the steps so far without zero_grad).
  std::function<void(int64_t step, const Activations&, const Gradients&)> after_backward;
  // After optimizer.step(): the parameters as they were before it (model.parameters() order).
  std::function<void(int64_t step, const std::vector<Tensor>& before)> after_step;
};

// The model, data and optimizer of a walk's configuration, drawn as PyTorch draws them.
struct ChapterTraining {
  TrainChoices choices;
  TrainData data;
  TorchGenerator gen;  // torch.manual_seed(seed): the model's init, then the dropout masks
  AttentionLM model;
  Optimizer optimizer;
  explicit ChapterTraining(const Config& cfg, const TrainChoices& choices = {});
  // `steps` steps of the loop; returns the loss before each update (train_losses).
  std::vector<float> run(int64_t steps, const TrainObserver& observe = {});
};

}  // namespace attn
