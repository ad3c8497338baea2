#include "bench/mha_backward.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>

#include "ops/ops.h"
#include "ops/ops_backward.h"

namespace attn {

std::vector<std::pair<std::string, const Tensor*>> MhaGradients::named() const {
  return {{"x", &x},
          {"W_query.weight", &W_query},
          {"W_key.weight", &W_key},
          {"W_value.weight", &W_value},
          {"out_proj.weight", &out_proj_weight},
          {"out_proj.bias", &out_proj_bias}};
}

bool projection_grad_column_major(int64_t B, int64_t T, int64_t d_out, int64_t head_dim, bool keys) {
  // (B, H, T, hd) -> (B, T, H, hd) -> (B, T, d_out) -> (B*T, d_out): the heads merge into a
  // column-major view only when the rows of each head are one stride apart, T apart in
  // the transposed keys' block, and the batch folds in only when it is one.
  const int64_t rows = B * T;
  if (rows == 1 || d_out == 1 || B != 1) return false;
  return keys || head_dim == 1;
}

std::string fnv1a64(const float* data, size_t n) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < n; ++i) {
    unsigned char bytes[4];
    std::memcpy(bytes, data + i, 4);  // little-endian on every machine this builds for
    for (const unsigned char byte : bytes) h = (h ^ byte) * 0x100000001b3ULL;
  }
  return fmt::format("{:016x}", h);
}

MhaGradients mha_backward_reference(const MultiHeadAttention& mha, const Tensor& x, const MultiHeadAttention::Trace& t,
                                    const Tensor& grad_y) {
  const int64_t b = x.size(0), T = x.size(1), H = mha.num_heads, hd = mha.head_dim, d_out = mha.d_out;
  MhaGradients g;
  // out_proj: y = context_vec_merged @ W.T + bias
  LinearGrads proj = linear_backward(grad_y, t.context_vec_merged, mha.out_proj.weight, true);
  g.out_proj_weight = std::move(proj.weight);
  g.out_proj_bias = std::move(*proj.bias);
  // (b, T, d_out) -> (b, T, H, hd) -> (b, H, T, hd): the heads' context vectors' gradient.
  const Tensor context_grad = transpose(view(proj.input, {b, T, H, hd}), 1, 2);
  // context = attn_weights @ values: grad_weights = grad @ values.T, grad_values = weights.T @ grad
  const Tensor weights_grad = matmul_transposed(context_grad, t.values_t);  // (b, H, T, T)
  const Tensor values_t_grad = matmul_at(t.attn_weights, context_grad);     // (b, H, T, hd)
  // softmax, the division by sqrt(head_dim), the mask: back to the scores.
  Tensor scaled_grad = softmax_backward(weights_grad, t.attn_weights);
  div_scalar_(scaled_grad, std::sqrt(static_cast<double>(hd)));
  const Tensor scores_grad = masked_fill_backward(scaled_grad, T == mha.mask.size(0) ? mha.mask : triu_ones(T, 1));
  // scores = queries @ keys.T: grad_queries = grad @ keys, grad_keys = (queries.T @ grad).T.
  // matmul reshapes keys.T (b, H, hd, T) to (b*H, hd, T): a view when b or H is 1, a
  // contiguous copy otherwise, whose transpose reaches sgemm as a transposed view; with one
  // head of one dimension the view has the copy's strides (as modules/train.cpp's backward).
  const bool copied = (b > 1 && H > 1) || (H == 1 && hd == 1);
  const Tensor queries_t_grad = copied ? matmul_transposed(scores_grad, transpose(t.keys_t, -2, -1))
                                       : matmul(scores_grad, t.keys_t);
  const Tensor keys_t_grad = transpose(matmul_at(t.queries_t, scores_grad), -2, -1);
  const auto merge = [&](const Tensor& heads) { return view(transpose(heads, 1, 2), {b, T, d_out}); };
  // Each projection's Linear, in the order autograd reaches them (values, queries, keys);
  // x's gradient is their three inputs' gradients added as they arrive.
  const auto projection = [&](const Tensor& out_grad, const Linear& layer, bool keys, Tensor& weight_grad) {
    LinearGrads lg = linear_backward(out_grad, x, layer.weight, layer.bias.has_value(),
                                     projection_grad_column_major(b, T, d_out, hd, keys));
    weight_grad = std::move(lg.weight);
    g.x = g.x.data.empty() ? std::move(lg.input) : add(g.x, lg.input);
  };
  projection(merge(values_t_grad), mha.W_value, false, g.W_value);
  projection(merge(queries_t_grad), mha.W_query, false, g.W_query);
  projection(merge(keys_t_grad), mha.W_key, true, g.W_key);
  return g;
}

}  // namespace attn
