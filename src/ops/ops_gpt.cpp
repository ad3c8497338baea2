#include "ops/ops_gpt.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/gelu.h"
#include "kernels/parallel.h"
#include "kernels/sgemm.h"
#include "ops/ops.h"
#include "torch/torch_kernels.h"
#include "torch/torch_sleef.h"

namespace attn {

namespace {

int64_t row_length(const Tensor& x) { return x.dim() == 0 ? 1 : x.size(-1); }

// out[i] = f(x[i]) for every element.
template <class F>
Tensor map_values(const Tensor& x, F f) {
  Tensor out = x;
  for (float& v : out.data) v = f(v);
  return out;
}

// x.var(unbiased=False) of one row: WelfordOps<float, double, int64_t, double>, one element at
// a time in double, M2 / n rounded once to float (correction 0: divide by n).
float welford_var_row(const float* row, int64_t n) {
  double mean = 0.0, m2 = 0.0;
  for (int64_t k = 0; k < n; ++k) {
    const double value = row[k];
    const double delta = value - mean;
    mean += delta / static_cast<double>(k + 1);
    m2 += delta * (value - mean);
  }
  return static_cast<float>(m2 / static_cast<double>(n));
}

// welford_var_row of `rows` consecutive rows into out: four rows side by side, each with its
// own running mean and M2 and the very same operations, so that the processor overlaps the four
// chains of dependent divisions (one row's chain alone waits on each division in turn).
void welford_var_rows(const float* x, int64_t n, int64_t rows, float* out) {
  constexpr int kSide = 4;
  int64_t r = 0;
  for (; r + kSide <= rows; r += kSide) {
    double mean[kSide] = {}, m2[kSide] = {};
    for (int64_t k = 0; k < n; ++k) {
      const double count = static_cast<double>(k + 1);
      for (int j = 0; j < kSide; ++j) {
        const double value = x[(r + j) * n + k];
        const double delta = value - mean[j];
        mean[j] += delta / count;
        m2[j] += delta * (value - mean[j]);
      }
    }
    for (int j = 0; j < kSide; ++j) out[r + j] = static_cast<float>(m2[j] / static_cast<double>(n));
  }
  for (; r < rows; ++r) out[r] = welford_var_row(x + r * n, n);
}

}  // namespace

Tensor mean_lastdim(const Tensor& x) {
  // mean_out on the CPU: sum_out (the cascade sum of SumKernel.cpp), then div_(n).
  const Tensor sums = sum_lastdim(x, /*keepdim=*/true);
  return div_scalar(sums, static_cast<double>(row_length(x)));
}

Tensor var_lastdim(const Tensor& x) {
  const int64_t n = row_length(x);
  Shape shape = x.shape;
  if (!shape.empty()) shape.back() = 1;
  Tensor out = Tensor::zeros(shape);
  welford_var_rows(x.data.data(), n, out.numel(), out.data.data());
  return out;
}

Tensor sub_keepdim(const Tensor& x, const Tensor& m) {
  const int64_t n = row_length(x);
  if (m.numel() * n != x.numel()) shape_error("sub", x.shape, m.shape);
  Tensor out = x;
  for (int64_t i = 0; i < x.numel(); ++i) out.data[i] -= m.data[i / n];
  return out;
}

Tensor add_scalar(const Tensor& x, double s) {
  const float f = static_cast<float>(s);
  return map_values(x, [f](float v) { return v + f; });
}

Tensor sqrt_values(const Tensor& x) {
  return map_values(x, [](float v) { return std::sqrt(v); });
}

Tensor tanh_values(const Tensor& x) { return map_values(x, kernels::sleef_tanhf); }

Tensor pow3(const Tensor& x) {
  return map_values(x, [](float v) { return v * v * v; });
}

Tensor mul_vector(const MatView& v, const Tensor& x) {
  const int64_t n = row_length(x);
  if (v.rows * v.cols != n) shape_error("mul", {v.rows * v.cols}, x.shape);
  Tensor out = x;
  for (int64_t i = 0; i < x.numel(); ++i) out.data[i] = v.data[i % n] * x.data[i];
  return out;
}

Tensor add_vector(const Tensor& x, const MatView& v) {
  const int64_t n = row_length(x);
  if (v.rows * v.cols != n) shape_error("add", x.shape, {v.rows * v.cols});
  Tensor out = x;
  for (int64_t i = 0; i < x.numel(); ++i) out.data[i] += v.data[i % n];
  return out;
}

Tensor layer_norm(const Tensor& x, const MatView& scale, const MatView& shift) {
  // scale * ((x - mean) / torch.sqrt(var + eps)) + shift, each op rounded to float32 as the
  // separate ops (sub_keepdim, div_keepdim, mul_vector, add_vector) round it, in one pass per
  // row into one buffer; rows apart over the pool (each row's values computed alone).
  const int64_t n = row_length(x);
  if (scale.rows * scale.cols != n) shape_error("mul", {scale.rows * scale.cols}, x.shape);
  if (shift.rows * shift.cols != n) shape_error("add", x.shape, {shift.rows * shift.cols});
  const Tensor mean = mean_lastdim(x);  // (..., 1)
  Tensor out = x;
  if (n == 0) return out;
  const float eps = static_cast<float>(1e-5);
  kernels::parallel_for_shares(x.numel() / n, 8, [&](int64_t begin, int64_t end) {
    std::vector<float> var(static_cast<size_t>(end - begin));
    welford_var_rows(x.data.data() + begin * n, n, end - begin, var.data());
    for (int64_t r = begin; r < end; ++r) {
      const float* row = x.data.data() + r * n;
      float* dst = out.data.data() + r * n;
      const float m = mean.data[r];
      const float std_dev = std::sqrt(var[r - begin] + eps);  // torch.sqrt(var + eps)
      for (int64_t k = 0; k < n; ++k) dst[k] = scale.data[k] * ((row[k] - m) / std_dev) + shift.data[k];
    }
  });
  return out;
}

Tensor gelu(const Tensor& x) {
  // x + 0.044715 * x^3, then 1 + tanh(c * inner), then (0.5 * x) * (...): each of the book's
  // elementwise ops rounded to float32 as PyTorch's, fused into one pass (kernels/gelu.h).
  Tensor out = x;
  kernels::gelu_values(out.data.data(), out.data.data(), out.numel());
  return out;
}

Tensor linear(const Tensor& x, const MatView& weight, const MatView* bias) {
  const int64_t in = weight.cols, out_features = weight.rows;
  if (x.dim() < 1 || x.size(-1) != in) shape_error("linear", x.shape, {weight.rows, weight.cols});
  if (bias && bias->rows * bias->cols != out_features) shape_error("linear", {out_features}, {bias->cols});
  Shape out_shape = x.shape;
  out_shape.back() = out_features;
  Tensor out = Tensor::zeros(out_shape);
  if (out.numel() == 0) return out;
  // F.linear: addmm(bias, x2d, weight.t()) for 2-D and 3-D x with a bias, else matmul(x,
  // weight.t()), which folds x's leading dimensions into the rows of one mm. Either way one
  // sgemm whose B is weight.t(): a transposed view of a row-major (out, in) weight, or, for a
  // weight that is itself a .T view, the row-major (in, out) matrix underneath.
  kernels::SgemmCall call;
  call.M = x.numel() / in;
  call.N = out_features;
  call.K = in;
  call.A = x.data.data();
  call.lda = in;
  call.B = kernels::ConstMat{weight.data, weight.stride(), !weight.transposed};
  call.C = out.data.data();
  call.ldc = out_features;
  const bool fused_bias = bias && (x.dim() == 2 || x.dim() == 3);
  call.bias = fused_bias ? bias->data : nullptr;
  kernels::sgemm(call, weight.packed);
  if (bias && !fused_bias) out = add_vector(out, *bias);
  return out;
}

Tensor embedding(const MatView& weight, const std::vector<int64_t>& ids) {
  const int64_t D = weight.cols;
  Tensor out = Tensor::zeros({static_cast<int64_t>(ids.size()), D});
  for (size_t i = 0; i < ids.size(); ++i)
    for (int64_t d = 0; d < D; ++d)
      out.data[i * D + d] = weight.at(ids[i], d);
  return out;
}

int64_t argmax(const float* row, int64_t n) {
  int64_t best = 0;
  for (int64_t i = 1; i < n; ++i) {
    if (std::isnan(row[best])) break;
    if (std::isnan(row[i]) || row[i] > row[best]) best = i;
  }
  return best;
}

}  // namespace attn
