// Flash attention's online softmax (attn-walk's own reference, tests/golden/bonus/flash.py:
// the book has none): causal softmax(Q K^T / sqrt(hd)) V computed one block of keys at a
// time, so only a (T, block) tile of scores ever exists instead of the (T, T) matrix.
#pragma once

#include <cstdint>
#include <vector>

#include "core/tensor.h"

namespace attn {

// The state after one block of keys, for every query row.
struct FlashBlock {
  int64_t start = 0, end = 0;  // keys [start, end)
  Tensor scores;               // (b, H, T, end - start): the tile, masked and divided by sqrt(hd)
  Tensor m;                    // (b, H, T, 1): the running maximum of the scores seen so far
  Tensor l;                    // (b, H, T, 1): the running sum of exp(score - m)
  Tensor acc;                  // (b, H, T, hd): the running sum of exp(score - m) * value
};

struct FlashTrace {
  std::vector<FlashBlock> blocks;
  Tensor out;  // (b, H, T, hd): acc / l after the last block
};

// queries, keys, values: (b, H, T, hd) as MultiHeadAttention has them after transpose(1, 2).
// Per block: s = masked tile / sqrt(hd); m_new = max(m, rowmax(s)); p = exp(s - m_new);
// alpha = exp(m - m_new); l = alpha * l + rowsum(p); acc = alpha * acc + p @ v_blk.
FlashTrace flash_attention(const Tensor& queries, const Tensor& keys, const Tensor& values,
                           int64_t block);

}  // namespace attn
