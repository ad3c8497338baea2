#include "modules/flash.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ops/ops.h"

namespace attn {

namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// t[:, :, start:end] of a (b, H, T, d) tensor, materialised.
Tensor token_slice(const Tensor& t, int64_t start, int64_t end) {
  const int64_t T = t.size(2), d = t.size(3), n = end - start;
  Tensor out = Tensor::zeros({t.size(0), t.size(1), n, d});
  for (int64_t bh = 0; bh < t.size(0) * t.size(1); ++bh)
    std::copy_n(t.data.begin() + (bh * T + start) * d, n * d, out.data.begin() + bh * n * d);
  return out;
}

// Row-wise a - r, a * r of (..., n) by (..., 1): every element of a row with its row's value.
template <typename Op>
Tensor rowwise(const Tensor& a, const Tensor& r, Op op) {
  const int64_t n = a.size(-1);
  Tensor out = a;
  for (int64_t i = 0; i < a.numel(); ++i) out.data[i] = op(a.data[i], r.data[i / n]);
  return out;
}

// s.amax(dim=-1, keepdim=True)
Tensor row_max(const Tensor& s) {
  Shape shape = s.shape;
  shape.back() = 1;
  Tensor out = Tensor::full(shape, kNegInf);
  const int64_t n = s.size(-1);
  for (int64_t i = 0; i < s.numel(); ++i) out.data[i / n] = std::max(out.data[i / n], s.data[i]);
  return out;
}

Tensor elementwise_max(const Tensor& a, const Tensor& b) {  // torch.maximum, no NaN here
  Tensor out = a;
  for (int64_t i = 0; i < a.numel(); ++i) out.data[i] = std::max(a.data[i], b.data[i]);
  return out;
}

Tensor elementwise_sub(const Tensor& a, const Tensor& b) {
  Tensor out = a;
  for (int64_t i = 0; i < a.numel(); ++i) out.data[i] = a.data[i] - b.data[i];
  return out;
}

Tensor elementwise_add(const Tensor& a, const Tensor& b) {
  Tensor out = a;
  for (int64_t i = 0; i < a.numel(); ++i) out.data[i] = a.data[i] + b.data[i];
  return out;
}

}  // namespace

FlashTrace flash_attention(const Tensor& queries, const Tensor& keys, const Tensor& values,
                           int64_t block) {
  const int64_t b = queries.size(0), H = queries.size(1), T = queries.size(2), hd = queries.size(3);
  const Tensor causal = triu_ones(T, 1);  // (T, T), 1 above the diagonal
  // The heads are a transposed view in the module: with b > 1 torch.matmul copies the
  // transposed key tile before its product, with b = 1 it multiplies by the view
  // (causal_attention_weights in modules/chapter.cpp says the same for the whole matrix).
  const bool copied = b > 1;
  Tensor m = Tensor::full({b, H, T, 1}, kNegInf);
  Tensor l = Tensor::zeros({b, H, T, 1});
  Tensor acc = Tensor::zeros({b, H, T, hd});
  FlashTrace trace;
  for (int64_t start = 0; start < T; start += block) {
    const int64_t end = std::min(start + block, T);
    const Tensor k_blk = token_slice(keys, start, end), v_blk = token_slice(values, start, end);
    // The tile: queries @ k_blk.T with the causal mask's columns [start, end), then / sqrt(hd).
    Tensor s = copied ? matmul(queries, transpose(k_blk, -2, -1)) : matmul_transposed(queries, k_blk);
    Tensor mask_cols = Tensor::zeros({T, end - start});
    for (int64_t i = 0; i < T; ++i)
      for (int64_t j = start; j < end; ++j) mask_cols(i, j - start) = causal(i, j);
    s = div_scalar(masked_fill(s, mask_cols, kNegInf), std::sqrt(static_cast<double>(hd)));
    // A larger maximum shrinks what was summed so far by alpha = exp(m_old - m_new) (<= 1);
    // the first block has m_old = -inf, so alpha = 0. Key 0 is in the first block and every
    // query sees it, so m is finite from then on and s - m_new is never -inf - (-inf).
    const Tensor m_new = elementwise_max(m, row_max(s));  // (b, H, T, 1)
    const Tensor p = exp(rowwise(s, m_new, [](float x, float y) { return x - y; }));
    const Tensor alpha = exp(elementwise_sub(m, m_new));
    l = elementwise_add(mul(alpha, l), sum_lastdim(p, true));
    acc = elementwise_add(rowwise(acc, alpha, [](float x, float y) { return y * x; }),
                          matmul(p, v_blk));  // (b, H, T, hd)
    m = m_new;
    trace.blocks.push_back({start, end, std::move(s), m, l, acc});
  }
  trace.out = div_keepdim(acc, l);  // normalise once, at the end
  return trace;
}

}  // namespace attn
