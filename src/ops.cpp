#include "ops.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "torch_kernels.h"

namespace attn {

namespace {

[[noreturn]] void shape_error(const char* op, const Shape& a, const Shape& b) {
  throw std::logic_error(std::string(op) + ": incompatible shapes " + shape_str(a) + " and " +
                         shape_str(b));
}

// Adds 16 lanes as a tree of neighbours: (0+1), (2+3), ... then pairs of those, ...
// (REDUCE_M4 in OpenBLAS's small-matrix kernel).
float reduce_lanes_neighbours(float* lanes) {
  for (int shift : {1, 2, 4, 8})
    for (int l = 0; l < 16; l += 2 * shift) lanes[l] = lanes[l] + lanes[l + shift];
  return lanes[0];
}

// Adds 16 lanes as GCC's _mm512_reduce_add_ps does: halves (l + l+8), then (l + l+4),
// then (l + l+2), then the last two.
float reduce_lanes_halves(float* lanes) {
  for (int half : {8, 4, 2, 1})
    for (int l = 0; l < half; ++l) lanes[l] = lanes[l + half] + lanes[l];
  return lanes[0];
}

// C (M, N) = A (M, K) @ B (K, N), row-major: what OpenBLAS's sgemm computes for torch.mm.
// PyTorch hands OpenBLAS the transposed problem (column-major), so OpenBLAS's rows are
// our columns. Its small-matrix kernel accumulates each output in one of two ways:
//   - a k-ordered chain of fused multiply-adds (full 16-column blocks, or when K < 32,
//     or when more than 8 columns are left over);
//   - "dot-like" for the last <= 8 columns when K >= 32: 16 lanes, lane l fusing the
//     products k = l, l+16, ..., then the lanes added up. Columns in groups of four,
//     and rows in groups of four, use the neighbour tree; the rest use GCC's halving.
//     (A lone last column of an odd N > 1 with K >= 32 can still differ in the last bit.)
void gemm(const float* A, const float* B, float* C, int64_t M, int64_t K, int64_t N) {
  const int64_t full_blocks = N & ~int64_t{15};
  // A single column (N == 1) is not transposed by PyTorch, and OpenBLAS's kernel for that
  // problem is a plain fused chain.
  const bool dot_like_tail = (N - full_blocks) <= 8 && K >= 32 && N > 1;
  const int64_t cols_by_4 = N & ~int64_t{3}, rows_by_4 = M & ~int64_t{3};
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) {
      if (j < full_blocks || !dot_like_tail) {
        float acc = 0.0f;
        for (int64_t k = 0; k < K; ++k) acc = std::fma(A[i * K + k], B[k * N + j], acc);
        C[i * N + j] = acc;
        continue;
      }
      float lanes[16] = {};
      for (int64_t k = 0; k < K; ++k) lanes[k % 16] = std::fma(A[i * K + k], B[k * N + j], lanes[k % 16]);
      const bool neighbours = j < cols_by_4 || i < rows_by_4;
      C[i * N + j] = neighbours ? reduce_lanes_neighbours(lanes) : reduce_lanes_halves(lanes);
    }
  }
}

// baddbmm_cpu_kernel: a float running sum, each product rounded before it is added.
void gemm_unfused(const float* A, const float* B, float* C, int64_t M, int64_t K, int64_t N) {
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) {
      float acc = 0.0f;
      for (int64_t k = 0; k < K; ++k) {
        const float product = A[i * K + k] * B[k * N + j];
        acc += product;
      }
      C[i * N + j] = acc;
    }
  }
}

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b) {
  if (a.dim() == 1 && b.dim() == 2) {
    // (K) @ (K, N): PyTorch treats it as (1, K) @ (K, N).
    if (a.size(0) != b.size(0)) shape_error("matmul", a.shape, b.shape);
    Tensor out = Tensor::zeros({b.size(1)});
    gemm(a.data.data(), b.data.data(), out.data.data(), 1, a.size(0), b.size(1));
    return out;
  }
  if (a.dim() < 2 || b.dim() < 2) shape_error("matmul", a.shape, b.shape);
  const int64_t M = a.size(-2), K = a.size(-1), N = b.size(-1);
  if (b.size(-2) != K) shape_error("matmul", a.shape, b.shape);
  const int64_t batch = a.numel() / (M * K);
  Shape out_shape(a.shape.begin(), a.shape.end() - 1);
  out_shape.push_back(N);
  Tensor out = Tensor::zeros(out_shape);
  if (b.dim() == 2) {
    // (..., M, K) @ (K, N): fold the batch into M, as PyTorch does.
    gemm(a.data.data(), b.data.data(), out.data.data(), batch * M, K, N);
    return out;
  }
  if (!std::equal(a.shape.begin(), a.shape.end() - 2, b.shape.begin(), b.shape.end() - 2))
    shape_error("matmul", a.shape, b.shape);
  // torch.bmm: below 400 multiply-adds per matrix PyTorch loops itself (plain float
  // multiply then add); from 400 up it calls sgemm once per matrix of the batch.
  const bool small = K * M * N < 400;
  for (int64_t i = 0; i < batch; ++i)
    (small ? gemm_unfused : gemm)(a.data.data() + i * M * K, b.data.data() + i * K * N, out.data.data() + i * M * N, M,
         K, N);
  return out;
}

Tensor dot(const Tensor& a, const Tensor& b) {
  if (a.dim() != 1 || b.dim() != 1 || a.numel() != b.numel()) shape_error("dot", a.shape, b.shape);
  return Tensor::scalar(kernels::blas_sdot(a.data.data(), b.data.data(), a.numel()));
}

Tensor transpose(const Tensor& t, int64_t d0, int64_t d1) {
  const int64_t nd = t.dim();
  if (d0 < 0) d0 += nd;
  if (d1 < 0) d1 += nd;
  Shape out_shape = t.shape;
  std::swap(out_shape[d0], out_shape[d1]);
  Tensor out = Tensor::zeros(out_shape);
  // Strides of the input, then walk the output in row-major order.
  std::vector<int64_t> in_strides(nd, 1);
  for (int64_t d = nd - 2; d >= 0; --d) in_strides[d] = in_strides[d + 1] * t.shape[d + 1];
  std::swap(in_strides[d0], in_strides[d1]);
  std::vector<int64_t> idx(nd, 0);
  for (int64_t flat = 0; flat < out.numel(); ++flat) {
    int64_t src = 0;
    for (int64_t d = 0; d < nd; ++d) src += idx[d] * in_strides[d];
    out.data[flat] = t.data[src];
    for (int64_t d = nd - 1; d >= 0; --d) {
      if (++idx[d] < out_shape[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

Tensor transpose2d(const Tensor& t) { return transpose(t, 0, 1); }

Tensor view(const Tensor& t, Shape new_shape) { return Tensor(std::move(new_shape), t.data); }

Tensor softmax_lastdim(const Tensor& t) {
  Tensor out = t;
  const int64_t n = t.dim() == 0 ? 1 : t.size(-1);
  if (n == 0) return out;
  for (int64_t r = 0; r < t.numel() / n; ++r) {
    float* row = out.data.data() + r * n;
    // 1. the row maximum, so that exp never overflows
    const float max_input = kernels::reduce_all_max(row, n);
    // 2. exponentiate the shifted scores (exp(-inf) = 0 for masked entries) and sum
    for (int64_t i = 0; i < n; ++i) row[i] = kernels::sleef_expf(row[i] - max_input);
    const float sum = kernels::reduce_all_sum(row, n);
    // 3. normalise: PyTorch multiplies by the reciprocal rather than dividing
    const float inv_sum = 1.0f / sum;
    for (int64_t i = 0; i < n; ++i) row[i] *= inv_sum;
  }
  return out;
}

Tensor softmax_naive(const Tensor& t) {
  const Tensor e = exp(t);
  return div_keepdim(e, sum_lastdim(e, /*keepdim=*/true));
}

Tensor exp(const Tensor& t) {
  Tensor out = t;
  for (float& v : out.data) v = kernels::sleef_expf(v);
  return out;
}

Tensor mul(const Tensor& a, const Tensor& b) {
  if (a.shape != b.shape) shape_error("mul", a.shape, b.shape);
  Tensor out = a;
  for (int64_t i = 0; i < a.numel(); ++i) out.data[i] *= b.data[i];
  return out;
}

Tensor mul_scalar(const Tensor& a, double s) {
  Tensor out = a;
  const float f = static_cast<float>(s);
  for (float& v : out.data) v *= f;
  return out;
}

Tensor div_scalar(const Tensor& a, double s) {
  Tensor out = a;
  const float f = static_cast<float>(s);
  for (float& v : out.data) v /= f;
  return out;
}

Tensor add_bias(const Tensor& a, const Tensor& bias) {
  const int64_t n = a.size(-1);
  if (bias.dim() != 1 || bias.size(0) != n) shape_error("add", a.shape, bias.shape);
  Tensor out = a;
  for (int64_t i = 0; i < a.numel(); ++i) out.data[i] += bias.data[i % n];
  return out;
}

Tensor div_keepdim(const Tensor& a, const Tensor& b) {
  const int64_t n = a.dim() == 0 ? 1 : a.size(-1);
  if (b.numel() * n != a.numel()) shape_error("div", a.shape, b.shape);
  Tensor out = a;
  for (int64_t i = 0; i < a.numel(); ++i) out.data[i] /= b.data[i / n];
  return out;
}

Tensor sum_all(const Tensor& t) {
  return Tensor::scalar(kernels::cascade_sum(t.data.data(), t.numel()));
}

Tensor sum_lastdim(const Tensor& t, bool keepdim) {
  const int64_t n = t.size(-1);
  Shape out_shape(t.shape.begin(), t.shape.end() - 1);
  if (keepdim) out_shape.push_back(1);
  Tensor out = Tensor::zeros(out_shape);
  for (int64_t r = 0; r < out.numel(); ++r)
    out.data[r] = kernels::cascade_sum(t.data.data() + r * n, n);
  return out;
}

Tensor tril_ones(int64_t n) {
  Tensor out = Tensor::zeros({n, n});
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j <= i; ++j) out(i, j) = 1.0f;
  return out;
}

Tensor triu_ones(int64_t n, int64_t diagonal) {
  Tensor out = Tensor::zeros({n, n});
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = std::max<int64_t>(0, i + diagonal); j < n; ++j) out(i, j) = 1.0f;
  return out;
}

Tensor masked_fill(const Tensor& t, const Tensor& mask, float value) {
  const int64_t block = mask.numel();
  if (t.size(-1) * t.size(-2) != block) shape_error("masked_fill", t.shape, mask.shape);
  Tensor out = t;
  for (int64_t i = 0; i < t.numel(); ++i)
    if (mask.data[i % block] != 0.0f) out.data[i] = value;
  return out;
}

Tensor stack_copies(const Tensor& t, int64_t copies) {
  Shape s = t.shape;
  s.insert(s.begin(), copies);
  std::vector<float> d;
  d.reserve(static_cast<size_t>(t.numel() * copies));
  for (int64_t c = 0; c < copies; ++c) d.insert(d.end(), t.data.begin(), t.data.end());
  return Tensor(s, std::move(d));
}

Tensor cat_lastdim(const std::vector<Tensor>& parts) {
  if (parts.empty()) throw std::logic_error("cat: no tensors");
  Shape s = parts[0].shape;
  int64_t total = 0;
  for (const auto& p : parts) total += p.size(-1);
  s.back() = total;
  Tensor out = Tensor::zeros(s);
  const int64_t rows = out.numel() / total;
  for (int64_t r = 0; r < rows; ++r) {
    int64_t col = 0;
    for (const auto& p : parts) {
      const int64_t n = p.size(-1);
      std::copy_n(p.data.begin() + r * n, n, out.data.begin() + r * total + col);
      col += n;
    }
  }
  return out;
}

}  // namespace attn
