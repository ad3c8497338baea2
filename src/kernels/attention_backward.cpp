// causal_attention's backward (kernels/attention.h), one head per thread at a time: the
// attention weights recomputed block by block, the gradient of the scores formed from them,
// then the four products of bmm's backward in OpenBLAS's blocked order.
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/cpu.h"
#include "core/float_bits.h"
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
  float divisor;                  // float(sqrt(head_dim))
  ChainOrder dot_order, t_order;  // products over head_dim (one block of 64) and over T
  // Haswell's two-chain outputs of the (T, T) x head_dim products (the weights, their
  // gradient), of the (T, head_dim) x T ones (the queries' and values' gradients), and of the
  // keys' gradient, which autograd computes as (queries.T @ grad_scores).T: an (head_dim, T) x
  // T product's outputs, transposed.
  TwoChainOutputs dot_two, t_two, keys_two;
};

// A thread's storage for one head: one block of rows of the weights, of their gradient and of
// the scores' gradient; the chains of grad_keys and grad_values over the slab so far (the
// rows of one K-block of the products over T: see slab_chains_done), and their sums over the
// slabs so far, (T, head_dim) rows side by side (keys_sums, values_sums: the head's columns of
// grad_keys and grad_values, D floats apart, are written once, at the end); and the head's
// packed operands.
// So the storage grows as T, not T^2.
// With Haswell's order, the two-chain outputs of grad_keys and grad_values keep their even and
// odd chains apart (keys_two, values_two: gemm_two_chains_resume's state).
struct HeadBuffers {
  Buffer weights, grad_scores, grad_weights, keys_chains, values_chains, keys_sums, values_sums;
  Buffer weights_t, grad_scores_t;  // the block's weights and scores' gradient transposed
  Buffer keys_two, values_two;
  PackedB keys_t, values_t, keys;
  void size_for(const Call& c) {
    for (Buffer* block : {&weights, &grad_scores, &grad_weights, &weights_t, &grad_scores_t})
      block->resize(static_cast<size_t>(kRows * c.T));
    for (Buffer* rows : {&keys_chains, &values_chains, &keys_sums, &values_sums})
      rows->resize(static_cast<size_t>(c.T * c.hd));
    keys_two.resize(two_chain_state_size(c.keys_two, c.hd));
    values_two.resize(two_chain_state_size(c.t_two, c.hd));
  }
};

// The rows' pieces on the vector unit the fused backward runs on: aarch64's NEON, else x86's
// AVX2 (the same floats either way).
bool neon_rows() { return active_isa() == Isa::Neon; }
float fold_sum(const float lanes[8]) {
  return neon_rows() ? detail::fold_sum_neon(lanes) : detail::fold_sum_avx2(lanes);
}
float causal_grad_dot(const float* g, const float* w, int64_t valid) {
  return neon_rows() ? detail::causal_grad_dot_neon(g, w, valid) : detail::causal_grad_dot_avx2(g, w, valid);
}
// Four rows ld floats apart, row r's valid + r entries: sums[r] (AVX2 runs their chains side by side).
void causal_grad_dot4(const float* g, const float* w, int64_t ld, int64_t valid, float sums[4]) {
  if (neon_rows())
    for (int64_t r = 0; r < 4; ++r) sums[r] = detail::causal_grad_dot_neon(g + r * ld, w + r * ld, valid + r);
  else
    detail::causal_grad_dot4_avx2(g, w, ld, valid, sums);
}
void causal_grad_scale(const float* g, const float* w, float sum, float divisor, float* out, int64_t valid) {
  if (neon_rows()) detail::causal_grad_scale_neon(g, w, sum, divisor, out, valid);
  else detail::causal_grad_scale_avx2(g, w, sum, divisor, out, valid);
}

// map2_reduce_all(g * w, +) over a full row of n >= 8 values (ops_backward.cpp's definition),
// for the rare row whose sum came out zero, where the sign of the skipped zero products counts.
float full_row_dot(const float* g, const float* w, int64_t n) {
  float acc[8];
  for (int64_t l = 0; l < 8; ++l) acc[l] = g[l] * w[l];
  int64_t d = 8;
  for (; d + 8 <= n; d += 8)
    for (int64_t l = 0; l < 8; ++l) acc[l] = fma32(g[d + l], w[d + l], acc[l]);
  for (int64_t l = 0; d + l < n; ++l) acc[l] = fma32(g[d + l], w[d + l], acc[l]);
  return fold_sum(acc);
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

// Rows [i0, i1) of head (b, h): the weights, their gradient, the scores' gradient, the queries'
// gradient rows, and the slab's chains of grad_keys and grad_values continued over these rows
// (slab_chains_done says how they end).
void backward_row_block(const Call& c, HeadBuffers& hb, const float* q, const float* v, const float* gc, float* gq,
                        int64_t i0, int64_t i1, int64_t s0, int64_t s1) {
  const int64_t T = c.T, D = c.D, m = i1 - i0;
  float* w = hb.weights.data();
  float* gw = hb.grad_weights.data();
  float* gs = hb.grad_scores.data();
  // 1. the weights, as the forward computes them: q @ k.T, then mask, / sqrt(d), softmax
  const TwoChainView dot_two{&c.dot_two, i0};
  gemm_chains_packed(m, i1, ConstMat{q + i0 * D, D, false}, hb.keys_t, w, T, nullptr, zero_row(i1), dot_two);
  masked_softmax_rows(w, m, T, i0 + 1, i1, T, c.divisor);
  // 2. their gradient, grad_context @ values.T, for the columns the block can see
  gemm_chains_packed(m, i1, ConstMat{gc + i0 * D, D, false}, hb.values_t, gw, T, nullptr, zero_row(i1), dot_two);
  // 3. the scores' gradient: ((g - sum(g * w)) * w) / sqrt(d), +0 above the diagonal: what
  //    MaskedFillBackward0 hands the products below (softmax's own -0.0 there, which the walk's
  //    attn_scores.grad shows, never reaches them)
  int64_t row_end[kRows];
  for (int64_t r0 = 0; r0 < m; r0 += 4) {  // four rows at a time, while they are in cache
    const int64_t rows = std::min<int64_t>(4, m - r0);
    float sums[4];
    if (rows == 4)
      causal_grad_dot4(gw + r0 * T, w + r0 * T, T, i0 + r0 + 1, sums);
    else
      for (int64_t r = 0; r < rows; ++r) sums[r] = causal_grad_dot(gw + (r0 + r) * T, w + (r0 + r) * T, i0 + r0 + r + 1);
    for (int64_t r = r0; r < r0 + rows; ++r) {
      const int64_t i = i0 + r, valid = i + 1;
      const float* g_row = gw + r * T;
      const float* w_row = w + r * T;
      float sum = sums[r - r0];
      if (sum == 0.0f) sum = zero_sum_row(c, gc + i * D, v, g_row, w_row, i1);
      float* out = gs + r * T;
      causal_grad_scale(g_row, w_row, sum, c.divisor, out, valid);
      std::fill(out + valid, out + i1, 0.0f);
      row_end[r] = valid;
    }
  }
  // 4. grad_queries rows = grad_scores @ keys (the zeros past each row's diagonal skipped)
  gemm_chains_packed(m, c.hd, ConstMat{gs, T, false}, hb.keys, gq + i0 * D, D, row_end, zero_row(c.hd),
                     TwoChainView{&c.t_two, i0});
  // 5. grad_keys = grad_scores.T @ queries and grad_values = weights.T @ grad_context, as bmm's
  //    backward hands them to OpenBLAS (A the transposed view of a (T, T) matrix): their chains
  //    over the slab continue over this block's rows, read from the block while it is in cache.
  //    Rows j >= i1 of the transposed matrices are zero here (j > i): they are left as they are.
  //    The transposed views are copied to rows first, (i1, m): the tiles then read them in
  //    place, where packing the view tile by tile gathered m floats T apart per step.
  float* gs_t = hb.grad_scores_t.data();
  float* w_t = hb.weights_t.data();
  transpose_rows(gs, T, m, i1, gs_t);
  transpose_rows(w, T, m, i1, w_t);
  gemm_chains_resume(i1, c.hd, m, ConstMat{gs_t, m, false}, ConstMat{q + i0 * D, D, false}, hb.keys_chains.data(),
                     c.hd);
  gemm_chains_resume(i1, c.hd, m, ConstMat{w_t, m, false}, ConstMat{gc + i0 * D, D, false}, hb.values_chains.data(),
                     c.hd);
  //    Haswell's two-chain outputs among them: their even and odd chains, over the block's
  //    steps [i0 - s0, i1 - s0) of the slab's K-block.
  gemm_two_chains_resume(i1, c.hd, m, ConstMat{gs_t, m, false}, ConstMat{q + i0 * D, D, false}, hb.keys_two.data(),
                         i0 - s0, s1 - s0, c.keys_two);
  gemm_two_chains_resume(i1, c.hd, m, ConstMat{w_t, m, false}, ConstMat{gc + i0 * D, D, false},
                         hb.values_two.data(), i0 - s0, s1 - s0, c.t_two);
}

// The end of one K-block [s0, s1) of C (T, hd) = M.T @ B (T, hd), for a causal (T, T) matrix M
// (zero above its diagonal): OpenBLAS's blocked order over T adds each K-block's chain, from 0
// in k order, to C. The chains ran block of rows by block of rows (backward_row_block's step 5, from 0
// at the slab's start), which gives the same floats as one call over the slab. Rows j < s0 of C
// add their chain to C. Rows [s0, s1) start in this block (M.T's row j is zero before column j,
// so the earlier blocks added chains of zeros, +0 each, to C's start of +0): C = chain + 0.
// Skipping the zeros of M (rows j >= i1 of a block) leaves a chain as it was, since B is finite.
// C is `sums`, (T, hd) rows side by side; the chains are zeroed as they are read, ready for
// the next slab's to start from 0.
void slab_chains_done(float* chains, float* sums, int64_t s0, int64_t s1, int64_t hd) {
  const int64_t started = s0 * hd, end = s1 * hd;
  for (int64_t x = 0; x < started; ++x) sums[x] = chains[x] + sums[x];
  for (int64_t x = started; x < end; ++x) sums[x] = chains[x] + 0.0f;
  std::fill(chains, chains + end, 0.0f);
}

// The head's columns of a (T, D) gradient from its sums, (T, hd) rows side by side.
void store_head(const float* sums, float* out, int64_t T, int64_t hd, int64_t D) {
  for (int64_t j = 0; j < T; ++j) std::copy_n(sums + j * hd, hd, out + j * D);
}

void one_head(const Call& c, int64_t bh) {
  const int64_t T = c.T, D = c.D, hd = c.hd;
  const int64_t offset = (bh / c.H) * T * D + (bh % c.H) * hd;
  const float *q = c.q + offset, *k = c.k + offset, *v = c.v + offset, *gc = c.gc + offset;
  const std::vector<int64_t>& slabs = c.t_order.k_bounds;  // OpenBLAS's K-blocks over T
  thread_local HeadBuffers hb;
  hb.size_for(c);
  pack_b(hd, T, ConstMat{k, D, true}, c.dot_order, hb.keys_t);
  pack_b(hd, T, ConstMat{v, D, true}, c.dot_order, hb.values_t);
  pack_b(T, hd, ConstMat{k, D, false}, c.t_order, hb.keys, /*check_finite=*/true);
  // Each slab's chains start from 0 (slab_chains_done zeroes them for the next).
  std::fill(hb.keys_chains.begin(), hb.keys_chains.end(), 0.0f);
  std::fill(hb.values_chains.begin(), hb.values_chains.end(), 0.0f);
  for (size_t s = 0; s + 1 < slabs.size(); ++s) {
    const int64_t s0 = slabs[s], s1 = slabs[s + 1];
    for (Buffer* two : {&hb.keys_two, &hb.values_two}) std::fill(two->begin(), two->end(), 0.0f);
    for (int64_t i0 = s0; i0 < s1; i0 += kRows)
      backward_row_block(c, hb, q, v, gc, c.gq + offset, i0, std::min(s1, i0 + kRows), s0, s1);
    // Haswell's two-chain outputs: their sums, odd + even, where slab_chains_done takes the one-chain ones.
    two_chain_state_sums(c.keys_two, hb.keys_two.data(), s1, hd, hb.keys_chains.data(), hd);
    two_chain_state_sums(c.t_two, hb.values_two.data(), s1, hd, hb.values_chains.data(), hd);
    slab_chains_done(hb.keys_chains.data(), hb.keys_sums.data(), s0, s1, hd);
    slab_chains_done(hb.values_chains.data(), hb.values_sums.data(), s0, s1, hd);
  }
  store_head(hb.keys_sums.data(), c.gk + offset, T, hd, D);
  store_head(hb.values_sums.data(), c.gv + offset, T, hd, D);
}

// What the skipped products ask of the operands (causal_attention_backward), over rows
// [r0, r1): the sum of each row's |grad_context| (their sum and maximum), the sum and the lanes'
// maxima of |values|, and whether the queries hold an infinity or a NaN.
struct OperandBounds {
  float sum_rows = 0.0f, max_row = 0.0f, sum_v = 0.0f, max_v = 0.0f;
  bool queries_nonfinite = false;
};

OperandBounds operand_bounds(const float* q, const float* gc, const float* v, int64_t r0, int64_t r1, int64_t D) {
  constexpr int64_t kLanes = 16;  // the sums and maxima in 16 lanes, so that they vectorise
  OperandBounds b;
  float max_v[kLanes] = {}, sum_v[kLanes] = {};
  for (int64_t i = r0; i < r1; ++i) {
    const float *g_row = gc + i * D, *v_row = v + i * D;
    float row[kLanes] = {};
    for (int64_t d = 0; d < D; d += kLanes) {
      const int64_t n = std::min(kLanes, D - d);  // the row's last lanes may be fewer
      for (int64_t l = 0; l < n; ++l) {
        row[l] += std::fabs(g_row[d + l]);
        const float a = std::fabs(v_row[d + l]);
        sum_v[l] += a;
        max_v[l] = max_v[l] > a ? max_v[l] : a;
      }
    }
    float sum = 0.0f;
    for (const float lane : row) sum += lane;
    b.sum_rows += sum;
    b.max_row = std::max(b.max_row, sum);
  }
  for (int64_t l = 0; l < kLanes; ++l) {
    b.sum_v += sum_v[l];
    b.max_v = std::max(b.max_v, max_v[l]);
  }
  b.queries_nonfinite = any_nonfinite(q + r0 * D, (r1 - r0) * D);
  return b;
}

// The skipped products are exact only against finite operands (a NaN or an infinity times a
// masked weight's 0 is NaN in autograd), and the masked weights' gradients must be finite:
// each is a sum of head_dim products, at most max_i sum_d |gc_id| * max_jd |v_jd|. A sum of
// absolute values keeps an infinity or a NaN in either. The threads share the rows: in any
// order the sums and maxima bound the same.
bool operands_allow_skipping(const float* q, const float* gc, const float* v, int64_t rows, int64_t D) {
  constexpr int64_t kRowsPerTask = 256;
  const int64_t tasks = (rows + kRowsPerTask - 1) / kRowsPerTask;
  std::vector<OperandBounds> parts(static_cast<size_t>(tasks));
  parallel_for(tasks, [&](int64_t t) {
    parts[static_cast<size_t>(t)] =
        operand_bounds(q, gc, v, t * kRowsPerTask, std::min(rows, (t + 1) * kRowsPerTask), D);
  });
  OperandBounds all;
  for (const OperandBounds& b : parts) {
    all.sum_rows += b.sum_rows;
    all.max_row = std::max(all.max_row, b.max_row);
    all.sum_v += b.sum_v;
    all.max_v = std::max(all.max_v, b.max_v);
    all.queries_nonfinite = all.queries_nonfinite || b.queries_nonfinite;
  }
  return !all.queries_nonfinite && std::isfinite(all.sum_rows) && std::isfinite(all.sum_v) &&
         static_cast<double>(all.max_row) * all.max_v < 1e30;
}

}  // namespace

bool causal_attention_backward(const float* queries, const float* keys, const float* values,
                               const float* grad_context, float* grad_queries, float* grad_keys, float* grad_values,
                               int64_t batch, int64_t T, int64_t H, int64_t head_dim) {
  const int64_t D = H * head_dim;
  // Every product of the backward in OpenBLAS's blocked kernel (M*N*K above 100^3, the same
  // for all four), the forward's weights from the fused pass, a vector unit for the rows (x86's
  // AVX2 or aarch64's NEON; the page and the scalar build run the reference backward).
  const double mnk = static_cast<double>(T) * static_cast<double>(T) * static_cast<double>(head_dim);
  const Isa isa = active_isa();
  if (!(x86_vectors(isa) || isa == Isa::Neon)) return false;
  if (mnk <= 1e6 || !causal_attention_fusable(batch, T, head_dim) || T < 8) return false;
  if (!operands_allow_skipping(queries, grad_context, values, batch * T, D)) return false;
  Call c{queries, keys, values, grad_context, grad_queries, grad_keys, grad_values, T, H, head_dim, D,
         static_cast<float>(std::sqrt(static_cast<double>(head_dim))), product_chain_order(T, T, head_dim),
         product_chain_order(T, head_dim, T), two_chain_outputs(T, T, head_dim), two_chain_outputs(T, head_dim, T),
         two_chain_outputs_transposed(T, head_dim, T)};
  // The keys' gradient, an (head_dim, T) x T product, must share the others' K-blocks over T.
  if (product_chain_order(head_dim, T, T).k_bounds != c.t_order.k_bounds) return false;
  parallel_for(batch * H, [&](int64_t bh) { one_head(c, bh); });
  return true;
}

}  // namespace attn::kernels
