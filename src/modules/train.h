// Chapter 5's loss and training loop around chapter 3's MultiHeadAttention:
//
//   torch.manual_seed(seed)
//   mha = MultiHeadAttention(d_in, d_out, T, attn_dropout, H, qkv_bias)
//   out_head = nn.Linear(d_out, V, bias=False)          # drawn right after mha
//   loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten())
//   loss.backward(); optimizer.step()
//
// forward() keeps every tensor the backward pass needs; backward() computes each gradient
// as PyTorch 1.13's autograd does (ops/ops_backward.h), in the order autograd reaches them.
#pragma once

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
  AttentionLM(TorchGenerator& gen, int64_t d_in, int64_t d_out, int64_t T, double attn_dropout,
              int64_t heads, bool qkv_bias, DropoutKernel kernel, int64_t vocab);
  // model.parameters(): (name, tensor) in the optimizer's order.
  std::vector<std::pair<std::string, Tensor*>> parameters();
};

// Every tensor of one forward pass (B = batch, T tokens, H heads, V labels).
struct Activations {
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
  Tensor log_probs;                      // (B * T, V)
  Tensor loss;                           // 0-dim
};

// The forward pass; `training` draws dropout masks from gen (nn.Module.train()).
Activations forward(const AttentionLM& m, TorchGenerator& gen, const Tensor& batch,
                    const std::vector<int64_t>& targets, bool training);

// Gradients by name ("logits", "out_head.weight", ..., "W_key.weight"), in the order autograd
// computes them. Also holds "batch" (the input's gradient, for --text's embeddings).
struct Gradients {
  std::vector<std::pair<std::string, Tensor>> in_order;
  const Tensor& at(const std::string& name) const;
  void add(std::string name, Tensor t) { in_order.emplace_back(std::move(name), std::move(t)); }
};
Gradients backward(const AttentionLM& m, const Activations& a);

// ---- optimizers ------------------------------------------------------------------------------

// torch.optim.AdamW's _single_tensor_adamw (1.13), or SGD without momentum, on one parameter
// list. step() applies one update given each parameter's gradient (same order).
struct Optimizer {
  enum class Kind { AdamW, SGD };
  Kind kind = Kind::AdamW;
  double lr = 0.0, weight_decay = 0.0;
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  int64_t steps_taken = 0;
  std::vector<Tensor> exp_avg, exp_avg_sq;  // AdamW's state, per parameter
  void step(const std::vector<Tensor*>& params, const std::vector<const Tensor*>& grads);
};

}  // namespace attn
