#include "kernels/attention.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/gemm.h"
#include "kernels/parallel.h"
#include "kernels/softmax.h"
#include "torch_kernels.h"

namespace attn::kernels {

namespace {

constexpr int64_t kRowBlock = 64;  // query rows at a time

// The scores product: queries (T, hd) @ keys.T. PyTorch multiplies by the transposed view
// of the keys, except with a batch of more than one, where matmul's reshape copies them.
SgemmKernel scores_kernel(int64_t batch, int64_t T, int64_t hd) { return sgemm_kernel(T, T, hd, batch == 1); }
// attn_weights (T, T) @ values (T, hd).
SgemmKernel context_kernel(int64_t T, int64_t hd) { return sgemm_kernel(T, hd, T, false); }

// The chain order of a product that needs no dot-like outputs (see causal_attention_fusable).
ChainOrder order_of(SgemmKernel kernel, int64_t K) {
  return kernel == SgemmKernel::Blocked ? blocked_chain_order(K) : single_chain(K);
}

// A block of rows x T weights owned by one thread. Columns past what a row last wrote are
// kept at zero, so every row always reads as a full, causally masked row of T weights.
struct WeightsBuffer {
  std::vector<float> data;
  std::vector<int64_t> written;  // per row: columns [0, written) may be nonzero
  float* rows(int64_t T) {
    if (data.size() != static_cast<size_t>(kRowBlock * T)) {
      data.assign(static_cast<size_t>(kRowBlock * T), 0.0f);
      written.assign(kRowBlock, 0);
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
  if (scores != SgemmKernel::Blocked) return false;  // small kernels: dot-like columns
  // The context product may use the small NN kernel if it has no dot-like columns.
  const bool dot_like_tail = head_dim % 16 != 0 && head_dim % 16 <= 8 && T >= 32 && head_dim > 1;
  return context == SgemmKernel::Blocked || (context == SgemmKernel::SmallNN && !dot_like_tail);
}

void causal_attention(const float* queries, const float* keys, const float* values, float* context,
                      int64_t batch, int64_t T, int64_t H, int64_t head_dim) {
  const int64_t D = H * head_dim, hd = head_dim;
  const ChainOrder scores_order = order_of(scores_kernel(batch, T, hd), hd);
  const ChainOrder context_order = order_of(context_kernel(T, hd), T);
  // attn_scores / keys.shape[-1] ** 0.5: a Python float, cast to float32 by the division.
  const float divisor = static_cast<float>(std::sqrt(static_cast<double>(hd)));

  // Tasks: every (b, h), its row blocks dealt round-robin into `groups` tasks when there
  // are fewer heads than twice the threads (round-robin keeps the causal work even).
  const int64_t blocks = (T + kRowBlock - 1) / kRowBlock;
  const int64_t heads = batch * H;
  const int64_t groups = std::min(blocks, std::max<int64_t>(1, (2 * num_threads() + heads - 1) / heads));
  parallel_for(heads * groups, [&](int64_t task) {
    const int64_t bh = task / groups, group = task % groups;
    const int64_t b = bh / H, h = bh % H;
    const float* q = queries + (b * T) * D + h * hd;  // (T, hd), row stride D
    const float* k = keys + (b * T) * D + h * hd;
    const float* v = values + (b * T) * D + h * hd;
    float* ctx = context + (b * T) * D + h * hd;
    // This task's last block sees the most keys.
    const int64_t last_block = group + (blocks - 1 - group) / groups * groups;
    const int64_t keys_seen = std::min(T, (last_block + 1) * kRowBlock);

    // The keys (as k.T: hd x keys_seen) and values (T x hd) of this head, packed once.
    thread_local PackedB keys_t, vals;
    pack_b(hd, keys_seen, ConstMat{k, D, true}, scores_order, keys_t);
    pack_b(T, hd, ConstMat{v, D, false}, context_order, vals, /*check_finite=*/true);

    thread_local WeightsBuffer buffer;
    float* w = buffer.rows(T);  // (kRowBlock, T)
    int64_t row_end[kRowBlock];
    for (int64_t block = group; block < blocks; block += groups) {
      const int64_t i0 = block * kRowBlock, i1 = std::min(T, i0 + kRowBlock), m = i1 - i0;

      // 1. scores of rows [i0, i1) against the keys they can see, [0, i1): q @ k.T
      gemm_chains_packed(m, i1, ConstMat{q + i0 * D, D, false}, keys_t, w, T, nullptr, zero_row(i1));  // C starts at 0

      // 2. mask (j > i), divide by sqrt(head_dim), softmax: row i keeps i + 1 scores
      masked_softmax_rows(w, m, T, i0 + 1, i1, T, divisor);
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
      gemm_chains_packed(m, hd, ConstMat{w, T, false}, vals, ctx + i0 * D, D, row_end, zero_row(hd));
    }
  });
}

}  // namespace attn::kernels
