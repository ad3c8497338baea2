// Refusing walks that cannot fit in memory, before anything is allocated.
//
// A walk keeps every step's tensor until it is rendered, and the largest are the (T, T)
// attention matrices, B x H of them in the multi-head stage; JSON and HTML then spell every
// element out. estimate_walk_bytes() adds these up from the sizes alone, and check_fits()
// compares the sum with the memory this process can get, so 2,000,000 tokens end in a
// message with the bytes needed, not in a late "out of memory" or the kernel's OOM killer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace attn {

// The walks whose (T, T) attention matrices the estimate counts, each at its measured cost
// (the other stages hold few or small ones), and bench's forward. The request layer says
// which a walk runs (input does not know its stages).
enum class CostedWalk {
  DotProduct,
  Softmax,
  Trainable,
  Causal,
  Dropout,
  MultiHead,
  Bench
};

struct WalkSize {
  std::string name;               // what the message calls the walk: a stage, "all", "bench"
  std::vector<CostedWalk> walks;  // the costed walks it runs (none: only its vectors count)
  std::string document;           // the document it becomes ("json", "html"), or empty for text
  double tokens = 0;              // T
  double d_in = 0;
  double d_out = 0;
  double heads = 1;
  double batch = 1;
};

// About how many bytes the walk's tensors and rendered document take at their peak.
double estimate_walk_bytes(const WalkSize& w);

// The memory this process can still get: the least of MemAvailable (/proc/meminfo), the
// cgroup's memory.max minus memory.current, and RLIMIT_AS; a huge number if none is known.
double available_memory_bytes();

// Throws InputError ("needs about N bytes ...") if the walk cannot fit. `what` says where
// the sizes came from, e.g. "data/big.npy".
void check_fits(const WalkSize& w, const std::string& what);

// "1.5 GiB", "512 MiB", "3.0 TiB"
std::string human_bytes(double bytes);

}  // namespace attn
