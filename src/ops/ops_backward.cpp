#include "ops/ops_backward.h"

#include <algorithm>
#include <stdexcept>

#include "kernels/sgemm.h"
#include "ops/ops.h"
#include "torch/fma32.h"
#include "torch/torch_kernels.h"
#include "torch/torch_sleef.h"

namespace attn {

namespace {

int64_t last_dim(const Tensor& t) { return t.dim() == 0 ? 1 : t.size(-1); }

using kernels::mm;  // one (M, K) @ (K, N) product as torch.mm hands it to sgemm

// vec::map2_reduce_all(x * y, +) over one row: rows shorter than 8 add the rounded products
// left to right; longer ones start 8 lanes from the first 8 products and fuse each further
// product into its lane (acc + x * y contracts to one FMA), the tail into the first lanes,
// then fold the lanes as reduce_all does (halves, then l ^ 2, then l ^ 1).
float sum_of_products(const float* x, const float* y, int64_t n) {
  constexpr int64_t lanes = 8;
  if (n < lanes) {
    float acc = x[0] * y[0];
    for (int64_t i = 1; i < n; ++i) acc = acc + x[i] * y[i];
    return acc;
  }
  float acc[lanes];
  for (int64_t l = 0; l < lanes; ++l) acc[l] = x[l] * y[l];
  int64_t d = lanes;
  for (; d + lanes <= n; d += lanes)
    for (int64_t l = 0; l < lanes; ++l) acc[l] = fma32(x[d + l], y[d + l], acc[l]);
  for (int64_t l = 0; d + l < n; ++l) acc[l] = fma32(x[d + l], y[d + l], acc[l]);
  for (int shift : {4, 2, 1}) {
    float folded[lanes];
    for (int l = 0; l < lanes; ++l) folded[l] = acc[l] + acc[l ^ shift];
    std::copy(folded, folded + lanes, acc);
  }
  return acc[0];
}

// _vec_host_softmax_backward_lastdim<log_softmax>, the one loop of both backwards: per row
// of the last dimension a sum over the row, then each element from the gradient g, the
// forward's output y and that sum:
//   log_softmax: sum = reduce_all(g), then g - exp(y) * sum (the product and the
//                subtraction fused);
//   softmax:     sum = Σ g * y (map2_reduce_all), then (g - sum) * y.
template <bool kLogSoftmax>
Tensor host_softmax_backward_lastdim(const char* op, const Tensor& grad, const Tensor& output) {
  if (grad.shape != output.shape) shape_error(op, grad.shape, output.shape);
  Tensor out = grad;
  const int64_t n = last_dim(grad);
  for (int64_t r = 0; r < grad.numel() / n; ++r) {
    const float* g = grad.data.data() + r * n;
    const float* y = output.data.data() + r * n;
    float* o = out.data.data() + r * n;
    if constexpr (kLogSoftmax) {
      const float sum = kernels::reduce_all_sum(g, n);
      for (int64_t i = 0; i < n; ++i) o[i] = fma32(-kernels::sleef_expf(y[i]), sum, g[i]);
    } else {
      const float sum = sum_of_products(g, y, n);
      for (int64_t i = 0; i < n; ++i) o[i] = (g[i] - sum) * y[i];
    }
  }
  return out;
}

}  // namespace

// ---- the loss ------------------------------------------------------------------------------

Tensor log_softmax_lastdim(const Tensor& x) {
  // _vec_log_softmax_lastdim: the row's max and sum of exp(x - max) through vec::reduce_all,
  // the log of the sum (SLEEF), then (x - max) - log_sum, in that order.
  Tensor out = x;
  const int64_t n = last_dim(x);
  std::vector<float> e(static_cast<size_t>(n));
  for (int64_t r = 0; r < x.numel() / n; ++r) {
    const float* in = x.data.data() + r * n;
    const float max = kernels::reduce_all_max(in, n);
    for (int64_t i = 0; i < n; ++i) e[i] = kernels::sleef_expf(in[i] - max);
    const float log_sum = kernels::sleef_logf(kernels::reduce_all_sum(e.data(), n));
    for (int64_t i = 0; i < n; ++i) out.data[r * n + i] = (in[i] - max) - log_sum;
  }
  return out;
}

Tensor nll_loss_sum(const Tensor& log_probs, const std::vector<int64_t>& targets) {
  // nll_loss_out_frame: -log_probs[n, target] added into a cascade of 8 partial sums (each
  // level takes over the one below every 16 rows), the partials then added up.
  const int64_t N = log_probs.size(0), V = log_probs.size(1);
  if (static_cast<int64_t>(targets.size()) != N) shape_error("nll_loss", log_probs.shape, {N});
  constexpr int kLevels = 8;
  constexpr int64_t kLevelPower = 4, kLevelMask = (int64_t{1} << kLevelPower) - 1;
  float partial[kLevels] = {};
  for (int64_t b = 0; b < N; ++b) {
    partial[0] -= log_probs.data[b * V + targets[b]];
    for (int j = 0; j + 1 < kLevels; ++j) {
      if ((b & (kLevelMask << (j * kLevelPower))) != 0) break;
      partial[j + 1] += partial[j];
      partial[j] = 0.0f;
    }
  }
  float loss = 0.0f;
  for (float p : partial) loss += p;
  return Tensor::scalar(loss);
}

Tensor nll_loss_mean(const Tensor& log_probs, const std::vector<int64_t>& targets) {
  // The sum, divided by the number of rows (the total weight).
  return Tensor::scalar(nll_loss_sum(log_probs, targets).item() / static_cast<float>(log_probs.size(0)));
}

Tensor nll_loss_backward(int64_t N, int64_t V, const std::vector<int64_t>& targets, bool reduction_sum) {
  // grad_input[n, target] = -(grad_output / total_weight) for the mean, -grad_output for the
  // sum; grad_output = 1 for loss.backward().
  Tensor grad = Tensor::zeros({N, V});
  const float g = reduction_sum ? -1.0f : -(1.0f / static_cast<float>(N));
  for (int64_t n = 0; n < N; ++n) grad.data[n * V + targets[n]] = g;
  return grad;
}

Tensor log_softmax_backward(const Tensor& grad, const Tensor& log_probs) {
  return host_softmax_backward_lastdim<true>("log_softmax_backward", grad, log_probs);
}

// ---- attention -----------------------------------------------------------------------------

Tensor softmax_backward(const Tensor& grad, const Tensor& weights) {
  return host_softmax_backward_lastdim<false>("softmax_backward", grad, weights);
}

Tensor masked_fill_backward(const Tensor& grad, const Tensor& mask) { return masked_fill(grad, mask, 0.0f); }

Tensor dropout_backward(const Tensor& grad, const std::vector<uint8_t>& keep, double p) {
  // The forward multiplied by noise = bernoulli(1 - p) / (1 - p): so does the backward.
  if (p == 0.0) return grad;
  if (p == 1.0) return mul_scalar(grad, 0.0);
  const float scale = 1.0f / static_cast<float>(1.0 - p);
  Tensor out = grad;
  for (int64_t i = 0; i < grad.numel(); ++i) out.data[i] *= keep[static_cast<size_t>(i)] ? scale : 0.0f;
  return out;
}

Tensor matmul_at(const Tensor& a, const Tensor& b) {
  // a (..., K, M), b (..., K, N) -> (..., M, N).
  if (a.dim() < 2 || a.dim() != b.dim() || a.size(-2) != b.size(-2)) shape_error("matmul", a.shape, b.shape);
  if (!std::equal(a.shape.begin(), a.shape.end() - 2, b.shape.begin(), b.shape.end() - 2))
    shape_error("matmul", a.shape, b.shape);
  const int64_t K = a.size(-2), M = a.size(-1), N = b.size(-1);
  // torch.bmm below 400 multiply-adds per matrix is a plain loop whatever the layout: the
  // materialised transpose gives the same numbers. From 400 up, sgemm with a transposed A.
  if (a.dim() > 2 && K * M * N < 400) return matmul(transpose(a, -2, -1), b);
  Shape out_shape(a.shape.begin(), a.shape.end() - 2);
  out_shape.push_back(M);
  out_shape.push_back(N);
  Tensor out = Tensor::zeros(out_shape);
  if (out.numel() == 0) return out;
  const int64_t batch = out.numel() / (M * N);
  for (int64_t i = 0; i < batch; ++i)
    mm(a.data.data() + i * K * M, true, b.data.data() + i * K * N, false, out.data.data() + i * M * N, M, K, N);
  return out;
}

// ---- nn.Linear -------------------------------------------------------------------------------

LinearGrads linear_backward(const Tensor& grad_out, const Tensor& x, const Tensor& weight, bool has_bias,
                            bool grad_column_major) {
  const int64_t out_f = weight.size(0), in_f = weight.size(1);
  const int64_t rows = grad_out.numel() / out_f;
  if (x.numel() != rows * in_f) shape_error("linear_backward", x.shape, grad_out.shape);
  // grad_out as PyTorch holds it in memory: (rows, out) row-major, or column-major, i.e. its
  // transpose (out, rows) row-major.
  const Tensor grad_t = grad_column_major ? transpose(view(grad_out, {rows, out_f}), 0, 1) : Tensor();
  const float* G = grad_column_major ? grad_t.data.data() : grad_out.data.data();
  LinearGrads g;
  // grad_x (rows, in) = grad_out (rows, out) @ W (out, in): W.T's transpose is W itself.
  Shape in_shape = grad_out.shape;
  in_shape.back() = in_f;
  g.input = Tensor::zeros(in_shape);
  mm(G, grad_column_major, weight.data.data(), false, g.input.data.data(), rows, out_f, in_f);
  // W.T is a column-major operand, so autograd computes its gradient as (grad_out.T @ x).T,
  // i.e. W.grad (out, in) = grad_out.T @ x with grad_out.T a transposed view.
  g.weight = Tensor::zeros({out_f, in_f});
  mm(G, !grad_column_major, x.data.data(), false, g.weight.data.data(), out_f, rows, in_f);
  if (has_bias) {
    // addmm's bias: grad_out.sum(0), down each column.
    g.bias = Tensor::zeros({out_f});
    if (grad_column_major) {
      for (int64_t j = 0; j < out_f; ++j) g.bias->data[j] = 0.0f + kernels::cascade_sum(G + j * rows, rows);
    } else {
      kernels::column_sums(G, rows, out_f, g.bias->data.data());
    }
  }
  return g;
}

Tensor sum_dim0(const Tensor& t) {
  const Shape rest(t.shape.begin() + 1, t.shape.end());
  Tensor out = Tensor::zeros(rest);
  kernels::column_sums(t.data.data(), t.size(0), out.numel(), out.data.data());
  return out;
}

Tensor embedding_backward_rows(const Tensor& grad, const std::vector<int64_t>& ids,
                               const std::vector<int64_t>& rows) {
  const int64_t D = grad.size(-1);
  Tensor out = Tensor::zeros({static_cast<int64_t>(rows.size()), D});
  for (size_t r = 0; r < rows.size(); ++r)
    for (size_t i = 0; i < ids.size(); ++i)
      if (ids[i] == rows[r])
        for (int64_t d = 0; d < D; ++d) out.data[r * D + d] += grad.data[static_cast<int64_t>(i) * D + d];
  return out;
}

}  // namespace attn
