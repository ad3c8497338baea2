// The operations chapter 4's GPTModel adds to chapter 3's (ops.h), each as PyTorch 1.13's CPU
// kernels compute it in float32 (AVX2 build), so that a trained model's walk is bit for bit
// the book's:
//   - x.mean(dim=-1, keepdim=True): the cascade sum of the row, then divided by its length
//     (mean_out on the CPU is sum_out(...).div_(n));
//   - x.var(dim=-1, keepdim=True, unbiased=False): Welford's running mean and M2 in double,
//     element by element (WelfordOps of std_var_kernel), M2 / n rounded once to float;
//   - torch.sqrt: correctly rounded; torch.tanh: SLEEF's tanhf_u10 on every element;
//     torch.pow(x, 3): x * x * x; every other elementwise op one float32 rounding each.
#pragma once

#include <cstdint>
#include <vector>

#include "core/tensor.h"

namespace attn {

namespace kernels {
class PackedWeights;
}

// A read-only (rows, cols) matrix where it lies (a weights file's mapped page): row-major, or,
// when `transposed`, stored as its (cols, rows) transpose (Hugging Face's Conv1D weight, which
// load_weights_into_gpt assigns as a .T view). 1-D vectors have rows == 1. `ld`: the floats
// between its rows (row-major) or its columns (transposed); 0 for packed ones. A third of Hugging
// Face's c_attn is such a view, with ld 3 * emb_dim, as PyTorch's q_w.T is (weights/gpt_weights.h).
struct MatView {
  const float* data = nullptr;
  int64_t rows = 0, cols = 0;
  bool transposed = false;
  int64_t ld = 0;
  // The floats between rows (row-major) or columns (transposed).
  int64_t stride() const { return ld ? ld : transposed ? rows
                                                       : cols; }
  // Element (i, j) of the (rows, cols) matrix, wherever its layout puts it.
  float at(int64_t i, int64_t j) const { return transposed ? data[j * stride() + i] : data[i * stride() + j]; }
  // Where linear() keeps this weight packed for the matrix kernel from one product to the next
  // (kernels/sgemm.h), if anywhere: the same bits, without packing it again every call.
  kernels::PackedWeights* packed = nullptr;
};

Tensor mean_lastdim(const Tensor& x);                  // x.mean(dim=-1, keepdim=True)
Tensor var_lastdim(const Tensor& x);                   // x.var(dim=-1, keepdim=True, unbiased=False)
Tensor sub_keepdim(const Tensor& x, const Tensor& m);  // x - m, m (..., 1) broadcast along the rows
Tensor add_scalar(const Tensor& x, double s);          // x + s (s cast to float) or s + x
Tensor sqrt_values(const Tensor& x);                   // torch.sqrt
Tensor tanh_values(const Tensor& x);                   // torch.tanh (SLEEF)
Tensor pow3(const Tensor& x);                          // torch.pow(x, 3) = x * x * x
// v * x and x + v for a 1-D parameter v (N) broadcast over x (..., N): scale * norm_x + shift.
Tensor mul_vector(const MatView& v, const Tensor& x);
Tensor add_vector(const Tensor& x, const MatView& v);
// The book's LayerNorm: scale * (x - mean) / torch.sqrt(var + eps) + shift, eps = 1e-5; each
// op's float32 rounding as the ops above, fused into one pass per row.
Tensor layer_norm(const Tensor& x, const MatView& scale, const MatView& shift);
// The book's GELU: 0.5 * x * (1 + torch.tanh(torch.sqrt(torch.tensor(2.0 / torch.pi)) *
// (x + 0.044715 * torch.pow(x, 3)))), in that order, each op rounded to float32; one fused,
// vectorised pass (kernels/gelu.h).
Tensor gelu(const Tensor& x);
// nn.Linear's F.linear(x, weight, bias) on a weight where it lies: (out, in), row-major or a
// transposed view. x (..., in). With a bias and 2-D or 3-D x, addmm from the bias (ops.h's
// linear); without, x @ weight.T. The transpose flags OpenBLAS sees follow the weight's layout.
Tensor linear(const Tensor& x, const MatView& weight, const MatView* bias);
// nn.Embedding's rows of `weight` at `ids`: (len(ids), cols).
Tensor embedding(const MatView& weight, const std::vector<int64_t>& ids);
// torch.argmax(row): the first index of the largest value (NaN counts as the largest).
int64_t argmax(const float* row, int64_t n);

}  // namespace attn
