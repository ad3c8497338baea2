// The tensor operations chapter 3 uses, each computed the way PyTorch's CPU kernels
// compute it in float32, so the printed digits agree:
//   - matrix products follow the OpenBLAS sgemm kernel PyTorch's call reaches, and its
//     order of fused multiply-adds (torch_kernels.h: sgemm);
//   - softmax subtracts the row maximum, exponentiates, and multiplies by 1/sum.
// The heavy ones run on the fast kernels of src/kernels/ (all threads, vector units), which
// compute the same bits as the readable definitions in torch_kernels.cpp.
#pragma once

#include <vector>

#include "core/tensor.h"

namespace attn {

// torch.matmul for the shapes the chapter uses:
//   (K) @ (K, N) -> (N);  (M, K) @ (K, N) -> (M, N);  (..., M, K) @ (K, N) -> (..., M, N);
//   (..., M, K) @ (..., K, N) -> (..., M, N) with equal batch dimensions.
Tensor matmul(const Tensor& a, const Tensor& b);
// a @ b.transpose(-2, -1) where PyTorch multiplies by the transposed *view* (x @ W.T,
// queries @ keys.T): same result as matmul(a, transpose(b, -2, -1)) mathematically, but
// OpenBLAS gets a transposed operand and may pick another kernel, so the last bits follow
// that. b is (..., N, K) (2-D, or the same batch dimensions as a).
Tensor matmul_transposed(const Tensor& a, const Tensor& b);
// nn.Linear: x @ weight.T + bias. With a bias PyTorch calls addmm, whose result starts
// from the bias before the products are added (that order shows for in_features > 320).
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor* bias);
// torch.dot for two 1-D tensors.
Tensor dot(const Tensor& a, const Tensor& b);

// t.transpose(d0, d1), materialised (as .contiguous() would).
Tensor transpose(const Tensor& t, int64_t d0, int64_t d1);
// t.permute(dims), materialised: output dimension d is input dimension dims[d].
Tensor permute(const Tensor& t, const std::vector<int64_t>& dims);
// t.T for a 2-D tensor.
Tensor transpose2d(const Tensor& t);
// t.view(new_shape): same data, new shape (numel must agree). Given a tensor to move
// from, its data moves over instead of being copied.
Tensor view(Tensor t, Shape new_shape);

// torch.softmax(t, dim=-1), numerically stable (max subtracted first).
Tensor softmax_lastdim(const Tensor& t);
// torch.softmax(t, dim=1) of a (b, T, T) tensor: over the queries, each column summing to 1.
// `torch_threads` is the PyTorch run's torch.get_num_threads() (torch_kernels.h).
Tensor softmax_dim1(const Tensor& t, int64_t torch_threads);
// The chapter's softmax_naive: exp(x) / exp(x).sum(dim=-1), no max subtraction.
Tensor softmax_naive(const Tensor& t);

Tensor exp(const Tensor& t);
Tensor add(const Tensor& a, const Tensor& b);          // same shape, elementwise
Tensor mul(const Tensor& a, const Tensor& b);          // same shape, elementwise
Tensor mul_scalar(const Tensor& a, double s);          // a * s (s cast to float, as PyTorch does)
Tensor div_scalar(const Tensor& a, double s);          // a / s (s cast to float)
void div_scalar_(Tensor& a, double s);                 // a /= s, in place
Tensor add_bias(const Tensor& a, const Tensor& bias);  // (..., N) + (N)
// a / b where b has the same shape as a except a last dimension of 1 (keepdim sums).
Tensor div_keepdim(const Tensor& a, const Tensor& b);

Tensor sum_all(const Tensor& t);                    // t.sum() -> 0-dim
Tensor sum_lastdim(const Tensor& t, bool keepdim);  // t.sum(dim=-1, keepdim)

Tensor tril_ones(int64_t n);                    // torch.tril(torch.ones(n, n))
Tensor triu_ones(int64_t n, int64_t diagonal);  // torch.triu(torch.ones(n, n), diagonal)
// t.masked_fill(mask.bool(), value) where mask is (T, T), applied to every (T, T) block.
Tensor masked_fill(const Tensor& t, const Tensor& mask, float value);
void masked_fill_(Tensor& t, const Tensor& mask, float value);  // in place, as masked_fill_
// dst[..., col:col + part.size(-1)] = part, for dst and part alike but in the last dimension.
void copy_into_lastdim(Tensor& dst, const Tensor& part, int64_t col);

// nn.Embedding's lookup: the rows of `weight` (num_embeddings, D) at `ids`, as (len(ids), D).
Tensor embedding(const Tensor& weight, const std::vector<int64_t>& ids);

// torch.stack((t,) * copies): a new leading dimension.
Tensor stack_copies(const Tensor& t, int64_t copies);
// torch.cat(parts, dim=-1).
Tensor cat_lastdim(const std::vector<Tensor>& parts);
// torch.cat(parts, dim): every other dimension must agree.
Tensor cat(const std::vector<Tensor>& parts, int64_t dim);
// t.narrow(dim, start, length), materialised: t[:, start:start + length] for dim 1.
Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length);
// t.repeat_interleave(repeats, dim): each slice `repeats` times in a row ([K1, K1, K2, K2]).
Tensor repeat_interleave(const Tensor& t, int64_t repeats, int64_t dim);
// t.repeat(1, ..., times, ..., 1): the whole tensor `times` times along dim ([K1, K2, K1, K2]).
Tensor repeat_along(const Tensor& t, int64_t times, int64_t dim);

}  // namespace attn
