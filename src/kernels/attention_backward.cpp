// causal_attention's backward (kernels/attention.h), one head per thread at a time: the
// attention weights recomputed block by block, the gradient of the scores formed from them,
// then the four products of bmm's backward in OpenBLAS's blocked order.
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/cpu.h"
#include "kernels/attention.h"
#include "kernels/gemm.h"
#include "kernels/parallel.h"
#include "kernels/softmax.h"
#include "kernels/softmax_detail.h"
#include "torch/fma32.h"
#include "torch/sgemm_order.h"

namespace attn::kernels {

namespace {

constexpr int64_t kRows = 32;  // query rows per block

using Buffer = std::vector<float, CacheLineAllocator<float>>;

// One call's operands and sizes.
struct Call {
  const float *q, *k, *v, *gc;  // (B, T, D), head h in columns [h * hd, (h + 1) * hd)
  float *gq, *gk, *gv;
  int64_t T, H, hd, D;
  float divisor;  // float(sqrt(head_dim))
  ChainOrder dot_order, t_order;  // products over head_dim (one block of 64) and over T
};

// A thread's storage for one head: one slab of rows of the weights and of the scores'
// gradient (the rows of one K-block of the products over T, at most GEMM_Q of them: so the
// storage grows as T, not T^2), a block of the weights' gradient, and the head's packed
// operands.
struct HeadBuffers {
  Buffer weights, grad_scores, grad_weights;
  PackedB keys_t, values_t, keys;
  void size_for(int64_t T, int64_t slab_rows) {
    const size_t n = static_cast<size_t>(slab_rows * T);
    if (weights.size() < n) {
      weights.resize(n);
      grad_scores.resize(n);
    }
    grad_weights.resize(static_cast<size_t>(kRows * T));
  }
};

// map2_reduce_all(g * w, +) over a full row of n >= 8 values (ops_backward.cpp's definition),
// for the rare row whose sum came out zero, where the sign of the skipped zero products counts.
float full_row_dot(const float* g, const float* w, int64_t n) {
  float acc[8];
  for (int64_t l = 0; l < 8; ++l) acc[l] = g[l] * w[l];
  int64_t d = 8;
  for (; d + 8 <= n; d += 8)
    for (int64_t l = 0; l < 8; ++l) acc[l] = fma32(g[d + l], w[d + l], acc[l]);
  for (int64_t l = 0; d + l < n; ++l) acc[l] = fma32(g[d + l], w[d + l], acc[l]);
  return detail::fold_sum_avx2(acc);
}

// Row i's sum of g * w when the kept part summed to zero: the whole row, with the masked
// weights' gradients computed too (grad_context_i . v_j, one chain from 0, plus 0).
float zero_sum_row(const Call& c, const float* gc_row, const float* v, const float* g, const float* w,
                   int64_t computed) {
  std::vector<float> full_g(g, g + computed), full_w(w, w + computed);
  full_g.resize(static_cast<size_t>(c.T));
  full_w.resize(static_cast<size_t>(c.T), 0.0f);
  for (int64_t j = computed; j < c.T; ++j) {
    float acc = 0.0f;
    for (int64_t d = 0; d < c.hd; ++d) acc = fma32(gc_row[d], v[j * c.D + d], acc);
    full_g[static_cast<size_t>(j)] = acc + 0.0f;
  }
  return full_row_dot(full_g.data(), full_w.data(), c.T);
}

// Rows [i0, i1) of head (b, h), inside the slab [s0, s1): the weights, their gradient, the
// scores' gradient, and the queries' gradient rows. The slab's rows keep the weights and the
// scores' gradient, each row written up to column s1 (zero past its diagonal), as the products
// of the slab read them.
void row_block(const Call& c, HeadBuffers& hb, const float* q, const float* v, const float* gc, float* gq,
               int64_t i0, int64_t i1, int64_t s0, int64_t s1) {
  const int64_t T = c.T, D = c.D, m = i1 - i0;
  float* w = hb.weights.data() + (i0 - s0) * T;
  float* gw = hb.grad_weights.data();
  float* gs = hb.grad_scores.data() + (i0 - s0) * T;
  // 1. the weights, as the forward computes them: q @ k.T, then mask, / sqrt(d), softmax
  gemm_chains_packed(m, i1, ConstMat{q + i0 * D, D, false}, hb.keys_t, w, T, nullptr, zero_row(i1));
  masked_softmax_rows(w, m, T, i0 + 1, i1, T, c.divisor);
  // 2. their gradient, grad_context @ values.T, for the columns the block can see
  gemm_chains_packed(m, i1, ConstMat{gc + i0 * D, D, false}, hb.values_t, gw, T, nullptr, zero_row(i1));
  // 3. the scores' gradient: ((g - sum(g * w)) * w) / sqrt(d), exactly 0 above the diagonal
  int64_t row_end[kRows];
  for (int64_t r = 0; r < m; ++r) {
    const int64_t i = i0 + r, valid = i + 1;
    const float* g_row = gw + r * T;
    const float* w_row = w + r * T;
    float sum = detail::causal_grad_dot_avx2(g_row, w_row, valid);
    if (sum == 0.0f) sum = zero_sum_row(c, gc + i * D, v, g_row, w_row, i1);
    float* out = gs + r * T;
    detail::causal_grad_scale_avx2(g_row, w_row, sum, c.divisor, out, valid);
    std::fill(out + valid, out + i1, 0.0f);
    row_end[r] = valid;
  }
  // 4. grad_queries rows = grad_scores @ keys (the zeros past each row's diagonal skipped)
  gemm_chains_packed(m, c.hd, ConstMat{gs, T, false}, hb.keys, gq + i0 * D, D, row_end, zero_row(c.hd));
  // 5. zeros up to the slab's end, where an earlier slab (or call) may have left its values
  for (int64_t r = 0; r < m; ++r) {
    std::fill(w + r * T + i1, w + r * T + s1, 0.0f);
    std::fill(gs + r * T + i1, gs + r * T + s1, 0.0f);
  }
}

// One K-block [s0, s1) of C (T, hd) = M.T @ B (T, hd), for a causal (T, T) matrix M (zero
// above its diagonal) whose rows [s0, s1) are m (row i at m + (i - s0) * T): OpenBLAS's
// blocked order over T adds each K-block's chain, from 0 in k order, to C, so the slabs of
// rows, taken in order, give C's bits without the whole (T, T) matrix. Rows j < s0 of C add
// the whole block's chain. Row j of M.T is zero before column j, so rows [s0, s1) start at
// j: the block is their first (the earlier ones added chains of zeros, +0 each, to C's start
// of +0), and running their chains from their chunk's first row j0 rather than s0 leaves
// them at +0 until j (fma(a, 0, +0) is +0), so starting there gives the same floats.
void slab_product(const Call& c, const float* m, const float* b, float* out, int64_t s0, int64_t s1) {
  constexpr int64_t kChunk = 64;  // rows per call: the chains past j0 they share cost (kChunk / 2)^2 each
  const int64_t T = c.T, D = c.D;
  const ChainOrder whole{{0, s1 - s0}, true};
  if (s0 > 0)  // C already holds the earlier blocks' sum: added to, so no c_init
    gemm_chains(s0, c.hd, s1 - s0, ConstMat{m, T, true}, ConstMat{b, D, false}.offset(s0, 0), out, D, whole);
  for (int64_t j0 = s0; j0 < s1; j0 += kChunk) {
    const ChainOrder from_j0{{0, s1 - j0}, true};
    gemm_chains(std::min(kChunk, s1 - j0), c.hd, s1 - j0, ConstMat{m, T, true}.offset(j0, j0 - s0),
                ConstMat{b, D, false}.offset(j0, 0), out + j0 * D, D, from_j0, nullptr, zero_row(c.hd));
  }
}

void one_head(const Call& c, int64_t bh) {
  const int64_t T = c.T, D = c.D, hd = c.hd;
  const int64_t offset = (bh / c.H) * T * D + (bh % c.H) * hd;
  const float *q = c.q + offset, *k = c.k + offset, *v = c.v + offset, *gc = c.gc + offset;
  const std::vector<int64_t>& slabs = c.t_order.k_bounds;  // OpenBLAS's K-blocks over T
  int64_t slab_rows = 0;
  for (size_t s = 0; s + 1 < slabs.size(); ++s) slab_rows = std::max(slab_rows, slabs[s + 1] - slabs[s]);
  thread_local HeadBuffers hb;
  hb.size_for(T, slab_rows);
  pack_b(hd, T, ConstMat{k, D, true}, c.dot_order, hb.keys_t);
  pack_b(hd, T, ConstMat{v, D, true}, c.dot_order, hb.values_t);
  pack_b(T, hd, ConstMat{k, D, false}, c.t_order, hb.keys, /*check_finite=*/true);
  for (size_t s = 0; s + 1 < slabs.size(); ++s) {
    const int64_t s0 = slabs[s], s1 = slabs[s + 1];
    for (int64_t i0 = s0; i0 < s1; i0 += kRows)
      row_block(c, hb, q, v, gc, c.gq + offset, i0, std::min(s1, i0 + kRows), s0, s1);
    // grad_keys = grad_scores.T @ queries, grad_values = weights.T @ grad_context: A is the
    // transposed view of a (T, T) matrix, as bmm's backward hands it to OpenBLAS.
    slab_product(c, hb.grad_scores.data(), q, c.gk + offset, s0, s1);
    slab_product(c, hb.weights.data(), gc, c.gv + offset, s0, s1);
  }
}

// Every grad_weights entry finite, the masked ones (never computed) included: each is a sum of
// head_dim products, at most max_i sum_d |gc_id| * max_jd |v_jd|.
bool bounded(const float* gc, const float* v, int64_t rows, int64_t D) {
  float max_v = 0.0f, max_row = 0.0f;
  for (int64_t i = 0; i < rows; ++i) {
    float row = 0.0f;
    for (int64_t d = 0; d < D; ++d) {
      row += std::fabs(gc[i * D + d]);
      max_v = std::max(max_v, std::fabs(v[i * D + d]));
    }
    max_row = std::max(max_row, row);
  }
  return std::isfinite(max_row) && std::isfinite(max_v) && static_cast<double>(max_row) * max_v < 1e30;
}

}  // namespace

bool causal_attention_backward(const float* queries, const float* keys, const float* values,
                               const float* grad_context, float* grad_queries, float* grad_keys, float* grad_values,
                               int64_t batch, int64_t T, int64_t H, int64_t head_dim) {
  const int64_t D = H * head_dim;
  // Every product of the backward in OpenBLAS's blocked kernel (M*N*K above 100^3, the same
  // for all four), the forward's weights from the fused pass, a vector unit for the rows.
  const double mnk = static_cast<double>(T) * static_cast<double>(T) * static_cast<double>(head_dim);
  if (active_isa() == Isa::Scalar || mnk <= 1e6 || !causal_attention_fusable(batch, T, head_dim) || T < 8) return false;
  if (!bounded(grad_context, values, batch * T, D)) return false;
  Call c{queries, keys, values, grad_context, grad_queries, grad_keys, grad_values, T, H, head_dim, D,
         static_cast<float>(std::sqrt(static_cast<double>(head_dim))), blocked_chain_order(head_dim),
         blocked_chain_order(T)};
  parallel_for(batch * H, [&](int64_t bh) { one_head(c, bh); });
  return true;
}

}  // namespace attn::kernels
