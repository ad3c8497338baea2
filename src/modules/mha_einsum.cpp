#include "modules/mha_einsum.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "kernels/sgemm.h"
#include "ops/ops.h"
#include "ops/ops_backward.h"

namespace attn {

namespace {

// kaiming_uniform_(W, a=sqrt(5)) on a (rows, fan_in) tensor: the bound nn.Linear uses.
Tensor kaiming_uniform(TorchGenerator& gen, int64_t rows, int64_t fan_in) {
  const double a = std::sqrt(5.0);
  const double gain = std::sqrt(2.0 / (1.0 + a * a));
  const double bound = std::sqrt(3.0) * (gain / std::sqrt(static_cast<double>(fan_in)));
  return uniform(gen, {rows, fan_in}, -bound, bound);
}

// out_proj on context.transpose(1, 2).reshape(b, n, d_out) with head_dim 1: the reshape only
// drops the last dimension, so with several heads and tokens out_proj gets a (b, n, H) view of
// the (b, H, n) buffer that is not contiguous. F.linear then takes matmul, which cannot fold
// such a view into one mm without a copy unless b is 1: it runs bmm per batch item, (n, H) as a
// transposed operand times W.T (below 400 multiply-adds a plain loop), and adds the bias after.
// With b = 1 it folds: one mm of the same operands, whatever its size.
Tensor out_proj_on_heads_view(const Tensor& heads_by_tokens, const Linear& proj) {
  const int64_t b = heads_by_tokens.size(0), H = heads_by_tokens.size(1), n = heads_by_tokens.size(2);
  const int64_t d_out = proj.weight.size(0);
  Tensor out;
  if (b > 1 && n * H * d_out < 400) {
    const Tensor wt = transpose(proj.weight, 0, 1);  // (H, d_out), one copy per batch item
    Tensor wt_batch = Tensor::zeros({b, H, d_out});
    for (int64_t i = 0; i < b; ++i) std::copy(wt.data.begin(), wt.data.end(), wt_batch.data.begin() + i * H * d_out);
    out = matmul_at(heads_by_tokens, wt_batch);  // (b, n, d_out)
  } else {
    out = Tensor::zeros({b, n, d_out});
    for (int64_t i = 0; i < b; ++i)  // A (n, H) stored (H, n); B = W.T, W stored (d_out, H)
      kernels::mm(heads_by_tokens.data.data() + i * H * n, true, proj.weight.data.data(), true,
                  out.data.data() + i * n * d_out, n, H, d_out);
  }
  return proj.bias ? add_bias(out, *proj.bias) : out;
}

}  // namespace

MHAEinsum::MHAEinsum(TorchGenerator& gen, int64_t d_in, int64_t d_out_, int64_t num_heads_, bool qkv_bias)
    : d_out(d_out_), num_heads(num_heads_), head_dim(d_out_ / num_heads_),
      proj_eq(d_in == d_out_ ? "bnd,di->bni" : "bnd,id->bni"),
      // nn.Parameter(torch.randn(d_out, d_in)) three times, then out_proj: draws in this order
      W_query(randn(gen, {d_out_, d_in})), W_key(randn(gen, {d_out_, d_in})), W_value(randn(gen, {d_out_, d_in})),
      out_proj(gen, d_out_, d_out_, true) {
  if (d_out_ % num_heads_ != 0) throw std::invalid_argument("d_out must be divisible by num_heads");
  // reset_parameters(): the randn values are overwritten, their draws stay spent.
  W_query = kaiming_uniform(gen, d_out_, d_in);
  W_key = kaiming_uniform(gen, d_out_, d_in);
  W_value = kaiming_uniform(gen, d_out_, d_in);
  if (qkv_bias) {
    const double bound = 1.0 / std::sqrt(static_cast<double>(d_in));  // fan_in of W_query
    bias_q = uniform(gen, {d_out_}, -bound, bound);
    bias_k = uniform(gen, {d_out_}, -bound, bound);
    bias_v = uniform(gen, {d_out_}, -bound, bound);
  }
}

void MHAEinsum::copy_from(const MultiHeadAttention& m) {
  auto w = [this](const Tensor& linear_weight) { return multiplies_by_w() ? transpose2d(linear_weight) : linear_weight; };
  W_query = w(m.W_query.weight);
  W_key = w(m.W_key.weight);
  W_value = w(m.W_value.weight);
  if (bias_q) {
    bias_q = *m.W_query.bias;
    bias_k = *m.W_key.bias;
    bias_v = *m.W_value.bias;
  }
  out_proj = m.out_proj;
}

MHAEinsum::Trace MHAEinsum::forward_traced(const Tensor& x) const {
  Trace t;
  const int64_t b = x.size(0), n = x.size(1), d_in = x.size(2);
  // einsum(proj_eq, x, W): no index is shared by both and kept, so one bmm of batch 1:
  // x as (1, b*n, d_in) times W as (1, d, i), W itself or its transposed view.
  const Tensor x3 = view(x, {1, b * n, d_in});
  auto project = [&](const Tensor& W, const std::optional<Tensor>& bias) {
    const Tensor w3 = view(W, {1, W.size(0), W.size(1)});
    Tensor out = view(multiplies_by_w() ? matmul(x3, w3) : matmul_transposed(x3, w3), {b, n, d_out});
    return bias ? add_bias(out, *bias) : out;  // Q += self.bias_q
  };
  // (b, n, d_out) -> (b, n, H, head_dim) -> (b, H, n, head_dim)
  auto heads = [&](const Tensor& P) { return transpose(view(P, {b, n, num_heads, head_dim}), 1, 2); };
  t.Q = project(W_query, bias_q);
  const Tensor Q = heads(t.Q), K = heads(project(W_key, bias_k)), V = heads(project(W_value, bias_v));
  // einsum("bhnd,bhmd->bhnm", Q, K): bmm over b*h of Q (n, d) and K permuted to (d, m). The
  // reshape copies that permuted K unless b == 1, where it stays a transposed view.
  t.scores = b == 1 ? matmul_transposed(Q, K) : matmul(Q, transpose(K, -2, -1));
  Tensor scores = div_scalar(t.scores, std::sqrt(static_cast<double>(head_dim)));
  masked_fill_(scores, triu_ones(n, 1), -std::numeric_limits<float>::infinity());
  t.attn_weights = softmax_lastdim(scores);
  // einsum("bhnm,bhmd->bhnd", attn_weights, V), then (b, n, H, head_dim) -> (b, n, d_out)
  const Tensor context = matmul(t.attn_weights, V);  // (b, H, n, head_dim)
  if (head_dim == 1 && num_heads > 1 && n > 1)
    t.context_vec = out_proj_on_heads_view(view(context, {b, num_heads, n}), out_proj);
  else
    t.context_vec = out_proj(view(transpose(context, 1, 2), {b, n, d_out}));
  return t;
}

}  // namespace attn
