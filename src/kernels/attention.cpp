#include "kernels/attention.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>
#include <vector>

#include "kernels/gemm.h"
#include "kernels/parallel.h"
#include "kernels/softmax.h"
#include "torch/sgemm_order.h"

namespace attn::kernels {

namespace {

// Query rows at a time: four register tiles of the active kernel (32 rows with AVX-512, 24
// with AVX2, so that no tile is cut), at most kRowBlock. Measured on 2 threads with the
// executable's huge pages, in a stand-alone harness, against 64 rows: 32 took 10 % less time
// at T = 1024 and the same at T = 4096 (24 rows, on AVX-512, 2-12 % more there); with AVX2,
// 24 rows beat both 32 (which cuts a 6-row tile) and 64. In the bench: 0-3 %.
// From T = kLongRows on, AVX-512 takes eight tiles, 64 rows: each block then reads every key
// and value (1 MiB each per head at T = 4096, more than a core's L2 beside the weights) once
// for twice the rows. The bench at T = 4096 (AMD EPYC Zen 5, AVX-512, Cooperlake's order,
// 9 runs of each, interleaved): medians 105-116 ms, mean 111.3, against 107-124 ms, mean 115.2,
// with 32 rows; the CPU samples of the attention and the products did not move (2321-2388 against
// 2320-2361), so the gain is in waiting, and small against this host's noise. T = 2048: no
// difference.
constexpr int64_t kRowBlock = 64;
constexpr int64_t kMaxBlockRows = kRowBlock + 2 * kTwoChainReach;  // moved bounds (causal_attention)
constexpr int64_t kLongRows = 4096;
int64_t rows_per_block(int64_t T) {
  const int64_t tile_rows = gemm_tile_rows();
  if (tile_rows == 1) return 32;  // the scalar definition
  const int64_t tiles = T >= kLongRows && tile_rows == 8 ? 8 : 4;
  return std::min(kRowBlock, tiles * tile_rows);
}
constexpr int64_t kLineFloats = 16;  // floats per 64-byte cache line

// The scores product: queries (T, hd) @ keys.T. PyTorch multiplies by the transposed view
// of the keys, except with a batch of more than one, where matmul's reshape copies them.
SgemmKernel scores_kernel(int64_t batch, int64_t T, int64_t hd) { return sgemm_kernel(T, T, hd, batch == 1); }
// attn_weights (T, T) @ values (T, hd).
SgemmKernel context_kernel(int64_t T, int64_t hd) { return sgemm_kernel(T, hd, T, false); }

bool blocked(SgemmKernel kernel) { return kernel == SgemmKernel::Blocked || kernel == SgemmKernel::HaswellBlocked; }

// The chain order of an (M, N) x K product that needs no dot-like outputs (see
// causal_attention_fusable).
ChainOrder order_of(SgemmKernel kernel, int64_t M, int64_t N, int64_t K) {
  return blocked(kernel) ? product_chain_order(M, N, K) : single_chain(K);
}

// A block of rows x T weights owned by one thread. Columns past what a row last wrote are
// kept at zero, so every row always reads as a full, causally masked row of T weights.
struct WeightsBuffer {
  std::vector<float, CacheLineAllocator<float>> data;  // on cache-line boundaries (see gemm.h)
  std::vector<int64_t> written;                        // per row: columns [0, written) may be nonzero
  float* rows(int64_t block_rows, int64_t T) {
    if (data.size() != static_cast<size_t>(block_rows * T)) {
      data.assign(static_cast<size_t>(block_rows * T), 0.0f);
      written.assign(static_cast<size_t>(block_rows), 0);
    }
    return data.data();
  }
};

}  // namespace

bool causal_attention_fusable(int64_t batch, int64_t T, int64_t head_dim) {
  if (batch < 1 || T < 1 || head_dim < 1) return false;
  // bmm loops by itself below 400 multiply-adds per matrix.
  if (T * T * head_dim < 400) return false;
  const SgemmKernel scores = scores_kernel(batch, T, head_dim), context = context_kernel(T, head_dim);
  if (!blocked(scores)) return false;  // small kernels: dot-like columns
  // The context product may use the small NN kernel if it has no dot-like columns.
  const bool dot_like_tail = head_dim % 16 != 0 && head_dim % 16 <= 8 && T >= 32 && head_dim > 1;
  return blocked(context) || (context == SgemmKernel::SmallNN && !dot_like_tail);
}

namespace {

// Who does which rows: every head is claimed by one thread, which packs its keys and values
// and then takes its row blocks, the costliest (the last, which see the most keys) first.
// Once no head is left to claim, a thread that runs out of work takes the remaining blocks of
// heads other threads are still working on, reading their packed keys and values. The
// threads then finish within about one of the cheap first blocks of each other, instead of
// within one whole head. (The attention on 2 threads: 4-5 % less time in a stand-alone harness
// at T = 1024 and 4096; 0-5 % in the bench, whose heads already cost nearly the same.)
//
// A thread packs into its own buffers only when it claims a head, which never happens once
// stealing has started (stealing waits until every head is claimed), so a head's packed
// data stays in place while anyone reads it.
struct HeadState {
  std::atomic<int64_t> next_block{0};  // blocks handed out, counted from the last block down
  std::atomic<bool> ready{false};      // keys and values packed; the pointers below are set
  const PackedB* keys_t = nullptr;
  const PackedB* vals = nullptr;
};

}  // namespace

namespace {

// What every row block of one call shares: the operands, the sizes and the orders.
struct AttentionCall {
  const float* queries;
  const float* keys;
  const float* values;
  float* context;
  int64_t T, H, hd, D;
  ChainOrder scores_order, context_order;
  TwoChainOutputs scores_two, context_two;  // Haswell's two-chain outputs of each (T, T) product
  float divisor;                            // sqrt(head_dim), as a float32
  bool scaling;                             // dividing by it is a scaling by 2^scale_exp (head_dim 64: 8)
  int scale_exp;
  // Blocks of query rows: block b is rows [bounds[b], bounds[b + 1]), at most `rows` of them.
  std::vector<int64_t> bounds;
  int64_t rows, blocks;
};

// Rows [i0, i1) of head bh: scores, masked softmax, weights @ values.
void row_block(const AttentionCall& c, int64_t bh, int64_t block, const PackedB& keys_t, const PackedB& vals) {
  const int64_t T = c.T, D = c.D, hd = c.hd;
  const int64_t b = bh / c.H, h = bh % c.H;
  const float* q = c.queries + (b * T) * D + h * hd;  // (T, hd), row stride D
  float* ctx = c.context + (b * T) * D + h * hd;
  const size_t at = static_cast<size_t>(block);
  const int64_t i0 = c.bounds[at], i1 = c.bounds[at + 1], m = i1 - i0;
  thread_local WeightsBuffer buffer;
  float* w = buffer.rows(c.rows, T);  // (rows, T), of which the first m rows are used
  int64_t row_end[kMaxBlockRows];

  // 1. scores of rows [i0, i1) against the keys they can see, [0, i1): q @ k.T. Every row
  //    keeps the columns left of the block's diagonal, [0, i0): where a kernel for it
  //    exists, they leave the product already divided by sqrt(head_dim), with each row's
  //    maximum of them (the softmax's first pass, done by the adders the multiply-adds
  //    leave idle). The diagonal's columns [i0, i1) are computed as they are.
  const ConstMat q_rows{q + i0 * D, D, false};
  float left_max[kMaxBlockRows];
  bool left_unchecked[kMaxBlockRows];
  const TwoChainView scores_two{&c.scores_two, i0};
  const bool fused = c.scaling && i0 > 0 &&
                     gemm_scores_scaled_max(m, i0, q_rows, keys_t, w, T, c.scale_exp, left_max, left_unchecked,
                                            scores_two);
  if (fused) gemm_chains_packed_part(0, m, i0, i1 - i0, q_rows, keys_t, w, T, zero_row(i1), scores_two);  // C starts at 0
  else gemm_chains_packed(m, i1, q_rows, keys_t, w, T, nullptr, zero_row(i1), scores_two);
  // The query rows of the block before, usually this thread's next: asked for now, they
  // arrive while this block's softmax runs (they are apart, D floats, and not yet cached).
  for (int64_t i = at > 0 ? c.bounds[at - 1] : 0; i < i0; ++i)
    for (int64_t k = 0; k < hd; k += kLineFloats) __builtin_prefetch(q + i * D + k);

  // 2. mask (j > i), divide by sqrt(head_dim), softmax: row i keeps i + 1 scores
  const DividedPrefix left{i0, left_max, left_unchecked};
  masked_softmax_rows(w, m, T, i0 + 1, i1, T, c.divisor, fused ? &left : nullptr);
  for (int64_t r = 0; r < m; ++r) {
    const int64_t i = i0 + r;
    float* row = w + r * T;
    // Zero what an earlier, longer block left behind past this row's columns.
    int64_t& written = buffer.written[static_cast<size_t>(r)];
    if (written > i1) std::fill(row + i1, row + written, 0.0f);
    written = i1;
    row_end[r] = i + 1;
  }

  // 3. context rows = weights @ v, straight into (b, T, H, head_dim); masked weights skipped
  gemm_chains_packed(m, hd, ConstMat{w, T, false}, vals, ctx + i0 * D, D, row_end, zero_row(hd),
                     TwoChainView{&c.context_two, i0});
}

// Takes blocks of head bh (packed) until none is left.
void take_blocks(const AttentionCall& c, HeadState& s, int64_t bh) {
  for (int64_t n; (n = s.next_block.fetch_add(1)) < c.blocks;) row_block(c, bh, c.blocks - 1 - n, *s.keys_t, *s.vals);
}

// Packs the keys (as k.T: hd x T) and values (T x hd) of head bh into this thread's
// buffers, publishes them, and takes the head's blocks.
void claim_head(const AttentionCall& c, HeadState& s, int64_t bh) {
  const int64_t b = bh / c.H, h = bh % c.H;
  const float* k = c.keys + (b * c.T) * c.D + h * c.hd;
  const float* v = c.values + (b * c.T) * c.D + h * c.hd;
  thread_local PackedB keys_t, vals;
  try {
    pack_b(c.hd, c.T, ConstMat{k, c.D, true}, c.scores_order, keys_t);
    pack_b(c.T, c.hd, ConstMat{v, c.D, false}, c.context_order, vals, /*check_finite=*/true);
  } catch (...) {
    s.next_block.store(c.blocks);  // nothing to wait for: the others must not spin on it
    throw;
  }
  s.keys_t = &keys_t;
  s.vals = &vals;
  s.ready.store(true, std::memory_order_release);
  take_blocks(c, s, bh);
}

// Helps with the heads other threads are still on, until every block is handed out.
void help_others(const AttentionCall& c, std::vector<HeadState>& state) {
  for (bool pending = true; pending;) {
    pending = false;
    for (size_t bh = 0; bh < state.size(); ++bh) {
      HeadState& s = state[bh];
      if (s.next_block.load(std::memory_order_relaxed) >= c.blocks) continue;
      if (!s.ready.load(std::memory_order_acquire)) {
        pending = true;  // still being packed
        continue;
      }
      take_blocks(c, s, static_cast<int64_t>(bh));
    }
    if (pending) std::this_thread::yield();
  }
}

}  // namespace

void causal_attention(const float* queries, const float* keys, const float* values, float* context,
                      int64_t batch, int64_t T, int64_t H, int64_t head_dim) {
  AttentionCall c{queries, keys, values, context, T, H, head_dim, H * head_dim, {}, {}, {}, {}, 0.0f, false, 0, {}, 0, 0};
  c.scores_order = order_of(scores_kernel(batch, T, head_dim), T, T, head_dim);
  c.context_order = order_of(context_kernel(T, head_dim), T, head_dim, T);
  c.scores_two = two_chain_outputs(T, T, head_dim);
  c.context_two = two_chain_outputs(T, head_dim, T);
  // attn_scores / keys.shape[-1] ** 0.5: a Python float, cast to float32 by the division.
  c.divisor = static_cast<float>(std::sqrt(static_cast<double>(head_dim)));
  // A power-of-two divisor (head_dim 64: 8) is a multiplication by 2^scale_exp, exactly, which
  // the scores' product can apply. Others stay divisions, in the softmax's own pass.
  c.scaling = division_is_scaling(c.divisor, c.scale_exp);
  // Blocks of rows_per_block rows. With tiles of 6 rows (AVX2's, NEON's), each bound moves to
  // the nearest edge of the context's Haswell two-chain rows (runs of 6 rows, which a 4-row band
  // shifts every so often; the scores' come in the same rows): a block that cut a run would
  // compute it in a tile of 2 and one of 4 rows, in both products. (AVX-512's tiles of 8 rows
  // never fit the runs, and its fused scores want blocks of whole tiles.)
  const TwoChainView runs = gemm_tile_rows() == 6 ? TwoChainView{&c.context_two, 0} : TwoChainView{};
  c.bounds = two_chain_row_bounds(T, rows_per_block(T), runs);
  c.blocks = static_cast<int64_t>(c.bounds.size()) - 1;
  c.rows = 0;
  for (int64_t b = 0; b < c.blocks; ++b)
    c.rows = std::max(c.rows, c.bounds[static_cast<size_t>(b) + 1] - c.bounds[static_cast<size_t>(b)]);
  const int64_t heads = batch * H;
  std::vector<HeadState> state(static_cast<size_t>(heads));
  std::atomic<int64_t> next_head{0};
  parallel_for(num_threads(), [&](int64_t) {
    // Claim heads while there are any, then help with the others'.
    for (int64_t bh; (bh = next_head.fetch_add(1)) < heads;) claim_head(c, state[static_cast<size_t>(bh)], bh);
    help_others(c, state);
  });
}

}  // namespace attn::kernels
