// attn-walk bench --gpt: chapter 4's GPTModel forward on a weights file (every block, the final
// norm and out_head), timed. The model is the walk's (modules/gpt.h), so the logits are the
// --stage gpt walk's out_head bit for bit, and PyTorch's running the book's GPTModel on the file.
#pragma once

#include <cstdint>
#include <vector>

#include "bench/bench.h"

namespace attn {

// The bench's token ids, the same in every peer: ids[i] = (seed + 9973 * i) % vocab_size, a
// walk through the vocabulary (9973 is prime, so no id repeats before vocab_size tokens).
// In PyTorch: (seed + 9973 * torch.arange(T)) % vocab_size.
std::vector<int64_t> gpt_bench_ids(int64_t tokens, int64_t vocab_size, uint64_t seed);

// Loads options.weights (heads: options.heads), then times options.repeat forwards of
// model(in_idx) after one warm-up. The report's digests hold the logits' FNV-1a; with
// options.save_output, the logits (1, T, vocab_size) are written there as .npy.
BenchReport run_gpt_bench(const BenchOptions& options);

}  // namespace attn
