// The backward passes of the operations chapter 3's MultiHeadAttention and chapter 5's loss
// use, each computed as PyTorch 1.13's autograd computes it in float32 (docs/fidelity.md,
// "Backward"): the same formula, the same kernel, the same order of operations.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/tensor.h"

namespace attn {

// ---- the loss: F.cross_entropy = log_softmax, then nll_loss (mean) ----------------------

// log_softmax(x, dim=-1): (x - max) - log(sum(exp(x - max))), per row.
Tensor log_softmax_lastdim(const Tensor& x);
// nll_loss(log_probs, targets), reduction "mean": -(sum of log_probs[n, targets[n]]) / N.
// log_probs is (N, V).
Tensor nll_loss_mean(const Tensor& log_probs, const std::vector<int64_t>& targets);
// The same, reduction "sum": -(sum of log_probs[n, targets[n]]), not divided.
Tensor nll_loss_sum(const Tensor& log_probs, const std::vector<int64_t>& targets);
// d loss / d log_probs: -1/N at each row's target (-1 for reduction "sum"), 0 elsewhere.
Tensor nll_loss_backward(int64_t N, int64_t V, const std::vector<int64_t>& targets, bool reduction_sum = false);
// log_softmax's backward: g - exp(log_probs) * sum(g), per row. With the NLL's g this is
// softmax - one-hot, over N.
Tensor log_softmax_backward(const Tensor& grad, const Tensor& log_probs);

// ---- attention ---------------------------------------------------------------------------

// softmax's backward, per row of the last dimension: w * (g - sum(g * w)).
Tensor softmax_backward(const Tensor& grad, const Tensor& weights);
// masked_fill's backward: the gradient with zeros where the (T, T) mask is set (the filled
// entries did not depend on the input).
Tensor masked_fill_backward(const Tensor& grad, const Tensor& mask);
// Dropout's backward: grad * noise, noise = keep / (1 - p) (the mask of the forward pass).
Tensor dropout_backward(const Tensor& grad, const std::vector<uint8_t>& keep, double p);

// a.transpose(-2, -1) @ b where a is stored as (..., K, M): the product autograd issues for
// a matrix product's second operand (bmm: self.transpose(1, 2).bmm(grad)); OpenBLAS gets
// a transposed A. Same batch dimensions for a and b.
Tensor matmul_at(const Tensor& a, const Tensor& b);

// ---- nn.Linear ------------------------------------------------------------------------------

// The gradients of y = x @ W.T (+ b) for x (..., in), y (..., out), with x and grad_out
// flattened to rows:
//   input  = grad_out @ W                 (mm, as autograd's mm_mat1_backward)
//   weight = grad_out.T @ x               (mm of the transposed view: mm_mat2_backward)
//   bias   = grad_out summed over rows    (addmm's sum_to_size)
struct LinearGrads {
  Tensor input, weight;
  std::optional<Tensor> bias;
};
// grad_column_major: autograd's grad_out is a column-major view (the keys' gradient of a
// batch of one reaches W_key as keys.grad's transposes, never copied): then W.grad's product
// gets grad_out.T as a plain matrix, x.grad's a transposed one, and the bias sums each
// column as a contiguous row (cascade_sum).
LinearGrads linear_backward(const Tensor& grad_out, const Tensor& x, const Tensor& weight, bool has_bias,
                            bool grad_column_major = false);

// t summed over its first dimension: (n, ...) -> (...), as t.sum(dim=0) (a broadcast's backward).
Tensor sum_dim0(const Tensor& t);

// nn.Embedding's backward: grad_weight[ids[i]] += grad[i], in the order of i (embedding's
// dense backward on the CPU), over a (num_embeddings, D) table of zeros. Only the rows in
// `rows` are kept (a vocabulary of 50257 rows is mostly zeros): the result is
// (rows.size(), D).
Tensor embedding_backward_rows(const Tensor& grad, const std::vector<int64_t>& ids,
                               const std::vector<int64_t>& rows);

}  // namespace attn
