#include "modules/torch_mha.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "ops/ops.h"
#include "torch/torch_kernels.h"

namespace attn {

namespace {

// xavier_normal_ on a (1, 1, E) tensor: fan_in = fan_out = E (the receptive field is E), so
// std = sqrt(2 / (2E)). normal_(0, std) draws as torch.randn does and scales: below 16
// elements in double before the rounding to float, from 16 up the float value times std.
Tensor xavier_normal_row(TorchGenerator& gen, int64_t E) {
  const double std_dev = std::sqrt(2.0 / static_cast<double>(E + E));
  Tensor t = Tensor::zeros({1, 1, E});
  if (E < 16) {
    for (int64_t i = 0; i < E; ++i) t.data[i] = static_cast<float>(gen.normal_double() * std_dev + 0.0);  // + mean: -0.0 -> +0.0
    return t;
  }
  const Tensor z = randn(gen, {E});
  const float s = static_cast<float>(std_dev);
  for (int64_t i = 0; i < E; ++i) t.data[i] = z.data[i] * s + 0.0f;  // fmadd(n, std, mean)
  return t;
}

// F.linear on a tensor that may be a transposed view: PyTorch fuses the bias into addmm only
// for a contiguous input; otherwise it multiplies, then adds the bias.
Tensor linear_on_view(const Tensor& x, const Tensor& weight, const std::optional<Tensor>& bias, bool contiguous) {
  if (!bias) return matmul_transposed(x, weight);
  if (contiguous) return linear(x, weight, &*bias);
  return add_bias(matmul_transposed(x, weight), *bias);
}

}  // namespace

TorchMultiheadAttention::TorchMultiheadAttention(TorchGenerator& gen, int64_t E, int64_t H, bool bias,
                                                 bool add_bias_kv)
    : embed_dim(E), num_heads(H), head_dim(E / H), out_proj(gen, E, E, bias) {
  if (E % H != 0) throw std::invalid_argument("embed_dim must be divisible by num_heads");
  // _reset_parameters()
  in_proj_weight = xavier_uniform(gen, 3 * E, E);
  if (bias) {
    in_proj_bias = Tensor::zeros({3 * E});
    out_proj.bias = Tensor::zeros({E});
  }
  if (add_bias_kv) {
    bias_k = xavier_normal_row(gen, E);
    bias_v = xavier_normal_row(gen, E);
  }
}

MHAPyTorchClass::MHAPyTorchClass(TorchGenerator& gen, int64_t d_out, int64_t num_heads, bool qkv_bias)
    : multihead_attn(gen, d_out, num_heads, qkv_bias, qkv_bias), proj(gen, d_out, d_out, true) {}

void MHAPyTorchClass::copy_from(const MultiHeadAttention& m) {
  TorchMultiheadAttention& a = multihead_attn;
  const int64_t E = a.embed_dim;
  a.in_proj_weight = cat({m.W_query.weight, m.W_key.weight, m.W_value.weight}, 0);
  if (a.in_proj_bias) {
    a.in_proj_bias = cat({*m.W_query.bias, *m.W_key.bias, *m.W_value.bias}, 0);
    a.out_proj.bias = Tensor::zeros({E});
    a.bias_k.reset();
    a.bias_v.reset();
  }
  a.out_proj.weight = Tensor::zeros({E, E});  // torch.eye(E)
  for (int64_t i = 0; i < E; ++i) a.out_proj.weight.data[i * E + i] = 1.0f;
  proj = m.out_proj;
}

MHAPyTorchClass::Trace MHAPyTorchClass::forward_traced(const Tensor& x) const {
  const TorchMultiheadAttention& a = multihead_attn;
  Trace t;
  const int64_t b = x.size(0), T = x.size(1), E = a.embed_dim, H = a.num_heads, hd = a.head_dim;
  // batch_first: query = x.transpose(1, 0), (T, b, E); a view, contiguous only if b or T is 1.
  const bool query_contiguous = b == 1 || T == 1;
  const Tensor query = transpose(x, 0, 1);
  // _in_projection_packed: linear(query, in_proj_weight, in_proj_bias).chunk(3, dim=-1)
  const Tensor qkv = linear_on_view(query, a.in_proj_weight, a.in_proj_bias, query_contiguous);  // (T, b, 3E)
  const Tensor q = narrow(qkv, 2, 0, E);
  Tensor k = narrow(qkv, 2, E, E), v = narrow(qkv, 2, 2 * E, E);
  // attn_mask (T, T) -> (1, T, T); with bias_k each sequence gets one more key and value,
  // bias_k.repeat(1, b, 1), and the mask a column of False for it (pad(attn_mask, (0, 1))).
  if (a.bias_k) {
    k = cat({k, repeat_along(*a.bias_k, b, 1)}, 0);  // (T + 1, b, E)
    v = cat({v, repeat_along(*a.bias_v, b, 1)}, 0);
  }
  const int64_t S = k.size(0);
  // (T, b, E) -> (T, b*H, head_dim) -> (b*H, T, head_dim): the heads of every sequence as one batch
  auto heads = [&](const Tensor& p) { return transpose(view(p, {p.size(0), b * H, hd}), 0, 1); };
  // the boolean mask converted: zeros, -inf where True
  t.attn_mask = Tensor::zeros({1, T, S});
  const float inf = std::numeric_limits<float>::infinity();
  for (int64_t i = 0; i < T; ++i)
    for (int64_t j = i + 1; j < T; ++j) t.attn_mask.data[i * S + j] = -inf;
  // q is scaled before the product, unlike the chapter's scores / sqrt(head_dim)
  t.q_scaled = div_scalar(heads(q), std::sqrt(static_cast<double>(hd)));
  // baddbmm(attn_mask, q_scaled, k.transpose(-2, -1)): the products, then attn_mask added
  // (beta = alpha = 1; adding 0 changes no bit). k.transpose is a transposed view.
  t.scores = matmul_transposed(t.q_scaled, heads(k));
  for (int64_t i = 0; i < t.scores.numel(); ++i) t.scores.data[i] = t.attn_mask.data[i % (T * S)] + t.scores.data[i];
  t.attn_weights = softmax_lastdim(t.scores);
  // bmm(attn_weights, v) (b*H, T, hd) -> (T, b*H, hd) -> (T*b, E), out_proj, -> (T, b, E)
  const Tensor merged = view(transpose(matmul(t.attn_weights, heads(v)), 0, 1), {T * b, E});
  const Tensor out = view(a.out_proj(merged), {T, b, E});
  t.attn_output = transpose(out, 0, 1);  // batch first again: a view of (T, b, E)
  // need_weights=True: attn_output_weights.view(b, H, T, S).sum(dim=1) / H. Per batch item a
  // sum down the H rows of an (H, T * S) matrix, in SumKernel's order for a dimension that is
  // not the innermost (with 8 or more heads' worth of columns the lanes differ from left to right).
  t.avg_weights = Tensor::zeros({b, T, S});
  for (int64_t bi = 0; bi < b; ++bi)
    kernels::column_sums(t.attn_weights.data.data() + bi * H * T * S, H, T * S, t.avg_weights.data.data() + bi * T * S);
  t.avg_weights = div_scalar(t.avg_weights, static_cast<double>(H));
  t.context_vec = linear_on_view(t.attn_output, proj.weight, proj.bias, query_contiguous);
  return t;
}

}  // namespace attn
