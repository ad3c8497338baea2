#include "ops/ops.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "kernels/parallel.h"
#include "kernels/sgemm.h"
#include "kernels/softmax.h"
#include "torch/torch_kernels.h"

namespace attn {

namespace {

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

// One (M, K) @ (K, N) product through OpenBLAS's sgemm (kernels::sgemm). B is row-major
// (K, N), or, when b_transposed, stored as (N, K) and used as its transpose.
void sgemm(const float* A, const float* B, bool b_transposed, float* C, int64_t M, int64_t K,
           int64_t N, const float* bias = nullptr) {
  kernels::SgemmCall call;
  call.M = M;
  call.N = N;
  call.K = K;
  call.A = A;
  call.lda = K;
  call.B = kernels::ConstMat{B, b_transposed ? K : N, b_transposed};
  call.C = C;
  call.ldc = N;
  call.bias = bias;
  kernels::sgemm(call);
}

// matmul with B given as is (b_transposed = false) or as the transpose of what multiplies.
Tensor product(const Tensor& a, const Tensor& b, bool b_transposed) {
  const int64_t b_rows = b_transposed ? -1 : -2, b_cols = b_transposed ? -2 : -1;
  if (a.dim() == 1 && b.dim() == 2) {
    // (K) @ (K, N): PyTorch treats it as (1, K) @ (K, N).
    if (a.size(0) != b.size(b_rows)) shape_error("matmul", a.shape, b.shape);
    Tensor out = Tensor::zeros({b.size(b_cols)});
    sgemm(a.data.data(), b.data.data(), b_transposed, out.data.data(), 1, a.size(0), b.size(b_cols));
    return out;
  }
  if (a.dim() < 2 || b.dim() < 2) shape_error("matmul", a.shape, b.shape);
  const int64_t M = a.size(-2), K = a.size(-1), N = b.size(b_cols);
  if (b.size(b_rows) != K) shape_error("matmul", a.shape, b.shape);
  Shape out_shape(a.shape.begin(), a.shape.end() - 1);
  out_shape.push_back(N);
  Tensor out = Tensor::zeros(out_shape);
  if (out.numel() == 0) return out;
  const int64_t batch = out.numel() / (M * N);
  if (b.dim() == 2) {
    // (..., M, K) @ (K, N): fold the batch into M, as PyTorch does.
    sgemm(a.data.data(), b.data.data(), b_transposed, out.data.data(), batch * M, K, N);
    return out;
  }
  if (!std::equal(a.shape.begin(), a.shape.end() - 2, b.shape.begin(), b.shape.end() - 2))
    shape_error("matmul", a.shape, b.shape);
  // torch.bmm: below 400 multiply-adds per matrix PyTorch loops itself (plain float
  // multiply then add); from 400 up it calls sgemm once per matrix of the batch.
  const bool small = K * M * N < 400;
  if (small && b_transposed) return product(a, transpose(b, -2, -1), false);  // same numbers
  auto one_matrix = [&](int64_t i) {
    const float* A = a.data.data() + i * M * K;
    const float* B = b.data.data() + i * K * N;
    float* C = out.data.data() + i * M * N;
    if (small) gemm_unfused(A, B, C, M, K, N);
    else sgemm(A, B, b_transposed, C, M, K, N);
  };
  // The matrices of the batch are independent: with enough of them, one per task (each
  // sgemm then runs serially); otherwise one after the other, each on all threads.
  if (batch >= kernels::num_threads()) {
    kernels::parallel_for(batch, one_matrix);
  } else {
    for (int64_t i = 0; i < batch; ++i) one_matrix(i);
  }
  return out;
}

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b) { return product(a, b, false); }

Tensor matmul_transposed(const Tensor& a, const Tensor& b) { return product(a, b, true); }

Tensor linear(const Tensor& x, const Tensor& weight, const Tensor* bias) {
  if (!bias) return matmul_transposed(x, weight);
  // F.linear calls addmm(bias, x, W.T) for 2-D x, and for 3-D x viewed as 2-D; other
  // shapes get x @ W.T and then the bias added.
  if (x.dim() != 2 && x.dim() != 3) return add_bias(matmul_transposed(x, weight), *bias);
  // addmm on x viewed as (rows, in_features): C starts as the bias.
  const int64_t in = weight.size(1), out_features = weight.size(0);
  if (x.dim() < 1 || x.size(-1) != in) shape_error("linear", x.shape, weight.shape);
  if (bias->dim() != 1 || bias->size(0) != out_features) shape_error("linear", weight.shape, bias->shape);
  Shape out_shape = x.shape;
  out_shape.back() = out_features;
  Tensor out = Tensor::zeros(out_shape);
  if (out.numel() == 0) return out;
  sgemm(x.data.data(), weight.data.data(), true, out.data.data(), out.numel() / out_features, in,
        out_features, bias->data.data());
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
  std::vector<int64_t> dims(static_cast<size_t>(nd));
  for (int64_t d = 0; d < nd; ++d) dims[d] = d;
  std::swap(dims[d0], dims[d1]);
  return permute(t, dims);
}

Tensor permute(const Tensor& t, const std::vector<int64_t>& dims) {
  const int64_t nd = t.dim();
  if (static_cast<int64_t>(dims.size()) != nd) throw std::logic_error("permute: wrong number of dims");
  Shape out_shape(static_cast<size_t>(nd));
  for (int64_t d = 0; d < nd; ++d) out_shape[d] = t.shape[dims[d]];
  Tensor out = Tensor::zeros(out_shape);
  if (out.numel() == 0 || nd == 0) return out;
  // Strides of the input, in the order of the output's dimensions; then walk the output in
  // row-major order, one run along its last dimension at a time.
  Shape strides(t.shape.size(), 1);
  for (int64_t d = nd - 2; d >= 0; --d) strides[d] = strides[d + 1] * t.shape[d + 1];
  Shape in_strides;
  for (const int64_t d : dims) in_strides.push_back(strides.at(static_cast<size_t>(d)));
  const int64_t run = out_shape[nd - 1], step = in_strides[nd - 1];
  std::vector<int64_t> idx(nd, 0);
  const float* in = t.data.data();
  float* dst = out.data.data();
  for (int64_t flat = 0; flat < out.numel(); flat += run) {
    int64_t src = 0;
    for (int64_t d = 0; d + 1 < nd; ++d) src += idx[d] * in_strides[d];
    if (step == 1) std::copy_n(in + src, run, dst + flat);
    else
      for (int64_t j = 0; j < run; ++j) dst[flat + j] = in[src + j * step];
    for (int64_t d = nd - 2; d >= 0; --d) {
      if (++idx[d] < out_shape[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

Tensor transpose2d(const Tensor& t) { return transpose(t, 0, 1); }

Tensor view(Tensor t, Shape new_shape) { return Tensor(std::move(new_shape), std::move(t.data)); }

Tensor softmax_lastdim(const Tensor& t) {
  // Per row: subtract the maximum, exponentiate, multiply by 1/sum (kernels/softmax.h).
  Tensor out = t;
  const int64_t n = t.dim() == 0 ? 1 : t.size(-1);
  if (n == 0) return out;
  kernels::softmax_rows(out.data.data(), t.numel() / n, n);
  return out;
}

Tensor softmax_dim1(const Tensor& t, int64_t torch_threads) {
  if (t.dim() != 3) throw std::invalid_argument("softmax_dim1 expects a (b, T, T) tensor");
  Tensor out = t;
  kernels::softmax_over_dim(t.data.data(), out.data.data(), t.size(0), t.size(1), t.size(2),
                            torch_threads);
  return out;
}

Tensor softmax_naive(const Tensor& t) {
  const Tensor e = exp(t);
  return div_keepdim(e, sum_lastdim(e, /*keepdim=*/true));
}

Tensor exp(const Tensor& t) {
  Tensor out = t;
  kernels::exp_values(t.data.data(), out.data.data(), t.numel());
  return out;
}

Tensor add(const Tensor& a, const Tensor& b) {
  if (a.shape != b.shape) shape_error("add", a.shape, b.shape);
  Tensor out = a;
  for (int64_t i = 0; i < a.numel(); ++i) out.data[i] += b.data[i];
  return out;
}

Tensor embedding(const Tensor& weight, const std::vector<int64_t>& ids) {
  const int64_t D = weight.size(1);
  Tensor out = Tensor::zeros({static_cast<int64_t>(ids.size()), D});
  for (size_t i = 0; i < ids.size(); ++i)
    std::copy_n(weight.data.begin() + ids[i] * D, D, out.data.begin() + static_cast<int64_t>(i) * D);
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
  div_scalar_(out, s);
  return out;
}

void div_scalar_(Tensor& a, double s) {
  const float f = static_cast<float>(s);
  for (float& v : a.data) v /= f;
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
  Tensor out = t;
  masked_fill_(out, mask, value);
  return out;
}

void masked_fill_(Tensor& t, const Tensor& mask, float value) {
  const int64_t block = mask.numel();
  if (t.size(-1) * t.size(-2) != block) shape_error("masked_fill", t.shape, mask.shape);
  for (int64_t b = 0; b < t.numel(); b += block) {
    float* o = t.data.data() + b;
    for (int64_t i = 0; i < block; ++i)
      if (mask.data[i] != 0.0f) o[i] = value;
  }
}

Tensor stack_copies(const Tensor& t, int64_t copies) {
  Shape s = t.shape;
  s.insert(s.begin(), copies);
  std::vector<float> d;
  d.reserve(static_cast<size_t>(t.numel() * copies));
  for (int64_t c = 0; c < copies; ++c) d.insert(d.end(), t.data.begin(), t.data.end());
  return Tensor(s, std::move(d));
}

Tensor cat(const std::vector<Tensor>& parts, int64_t dim) {
  if (parts.empty()) throw std::logic_error("cat: no tensors");
  Shape s = parts[0].shape;
  if (dim < 0) dim += static_cast<int64_t>(s.size());
  if (dim < 0 || dim >= static_cast<int64_t>(s.size())) throw std::logic_error("cat: bad dim");
  // Every part is `outer` slabs of size(dim) * inner values; the output interleaves them.
  const int64_t outer = numel_of(Shape(s.begin(), s.begin() + dim));
  const int64_t inner = numel_of(Shape(s.begin() + dim + 1, s.end()));
  int64_t total = 0;
  for (const auto& p : parts) {
    Shape expected = s;
    expected[static_cast<size_t>(dim)] = p.shape.size() == s.size() ? p.shape[static_cast<size_t>(dim)] : -1;
    if (p.shape != expected) shape_error("cat", s, p.shape);
    total += p.shape[static_cast<size_t>(dim)];
  }
  s[static_cast<size_t>(dim)] = total;
  Tensor out = Tensor::zeros(s);
  auto dst = out.data.begin();
  for (int64_t o = 0; o < outer; ++o)
    for (const auto& p : parts) {
      const int64_t n = p.shape[static_cast<size_t>(dim)] * inner;
      dst = std::copy_n(p.data.begin() + o * n, n, dst);
    }
  return out;
}

Tensor cat_lastdim(const std::vector<Tensor>& parts) { return cat(parts, -1); }

Tensor repeat_interleave(const Tensor& t, int64_t repeats, int64_t dim) {
  // Each slice along dim, `repeats` times in a row: [K1, K2] -> [K1, K1, K2, K2].
  std::vector<Tensor> slices;
  const int64_t n = t.shape.at(static_cast<size_t>(dim));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t r = 0; r < repeats; ++r) slices.push_back(narrow(t, dim, i, 1));
  return cat(slices, dim);
}

Tensor repeat_along(const Tensor& t, int64_t times, int64_t dim) {
  // The whole tensor, `times` times along dim: [K1, K2] -> [K1, K2, K1, K2].
  return cat(std::vector<Tensor>(static_cast<size_t>(times), t), dim);
}

Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length) {
  if (dim < 0) dim += t.dim();
  Shape s = t.shape;
  const int64_t n = s.at(static_cast<size_t>(dim));
  if (start < 0 || length < 0 || start + length > n) throw std::logic_error("narrow: out of range");
  const int64_t outer = numel_of(Shape(s.begin(), s.begin() + dim));
  const int64_t inner = numel_of(Shape(s.begin() + dim + 1, s.end()));
  s[static_cast<size_t>(dim)] = length;
  Tensor out = Tensor::zeros(s);
  for (int64_t o = 0; o < outer; ++o)
    std::copy_n(t.data.begin() + (o * n + start) * inner, length * inner,
                out.data.begin() + o * length * inner);
  return out;
}

void copy_into_lastdim(Tensor& dst, const Tensor& part, int64_t col) {
  const int64_t n = part.size(-1), total = dst.size(-1);
  if (n == 0) return;
  const int64_t rows = part.numel() / n;
  if (col + n > total || rows * total != dst.numel()) shape_error("cat", dst.shape, part.shape);
  for (int64_t r = 0; r < rows; ++r)
    std::copy_n(part.data.begin() + r * n, n, dst.data.begin() + r * total + col);
}

}  // namespace attn
