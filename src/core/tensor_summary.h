// What print(tensor) shows of a large tensor. PyTorch (torch/_tensor_str.py, default
// print options) summarises a tensor of more than 1000 elements: of every dimension longer
// than 6 it prints only the first 3 and the last 3 entries, with "..." between them.
//
// A walk that is only printed (text output) needs nothing else of a (B, H, T, T) tensor,
// so it can keep this part instead of the whole (Walk::summaries_only).
#pragma once

#include <cstdint>

#include "core/tensor.h"

namespace attn {

constexpr int64_t kPrintThreshold = 1000;  // more elements than this: summarised
constexpr int64_t kPrintEdgeItems = 3;     // entries kept at each end of a summarised dimension

// Whether print() summarises a tensor of this shape.
inline bool print_summarizes(const Shape& s) { return numel_of(s) > kPrintThreshold; }
// Whether a summarised print cuts this dimension (shows "..." for its middle).
inline bool print_cuts(int64_t size) { return size > 2 * kPrintEdgeItems; }

// The entries a summarised print shows, in order: a tensor whose every dimension d has
// min(size(d), 6) entries (the first 3 and the last 3 where it is cut). Only that part is
// read, so this costs nothing like a copy of t.
Tensor shown_part(const Tensor& t);

}  // namespace attn
