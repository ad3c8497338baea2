// A random generator that reproduces torch.manual_seed(S) on the CPU, draw for draw
// (facts: docs/pytorch-compat.md and aten/src/ATen/core/TransformationHelper.h,
// aten/src/ATen/native/cpu/DistributionTemplates.h in PyTorch 1.13).
#pragma once

#include <cstdint>
#include <optional>
#include <random>

#include "core/config.h"
#include "core/tensor.h"

namespace attn {

// MT19937 (Matsumoto and Nishimura), the same sequence as std::mt19937 and PyTorch's
// at::mt19937, with 32-bit state words (std::mt19937 keeps 64-bit ones on x86-64) so that
// regenerating the state and tempering a block of outputs run as vector loops, and with a
// discard() that regenerates the state once per 624 skipped draws instead of drawing each.
class Mt19937 {
 public:
  static constexpr int kN = 624;
  void seed(uint32_t s);
  uint32_t operator()() {
    if (index_ >= kN) twist();
    return temper(state_[index_++]);
  }
  void discard(uint64_t n);
  // The next n draws into out.
  void fill(uint32_t* out, int64_t n);

 private:
  static uint32_t temper(uint32_t y) {
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    return y ^ (y >> 18);
  }
  void twist();
  uint32_t state_[kN] = {};
  int index_ = kN;
};

class TorchGenerator {
 public:
  explicit TorchGenerator(uint64_t seed = 67280421310721ULL) { manual_seed(seed); }

  // torch.manual_seed(S): MT19937 seeded with the low 32 bits; clears the cached normal.
  void manual_seed(uint64_t seed);

  uint32_t random();                                // one 32-bit draw
  void discard(uint64_t n) { engine_.discard(n); }  // as n calls of random(), unused
  uint64_t random64();                              // two draws, the first one is the high word

  float uniform_float(float from = 0.0f, float to = 1.0f);  // 24 random bits
  // n calls of uniform_float(from, to) into out, in order (vectorised; the same bits).
  void fill_uniform_float(float* out, int64_t n, float from = 0.0f, float to = 1.0f);
  double uniform_double();  // 53 random bits, [0, 1)
  double normal_double();   // serial Box-Muller with the cached spare sample

 private:
  Mt19937 engine_;
  std::optional<double> next_double_normal_;
};

// torch.rand(shape): one float uniform per element, row-major.
Tensor rand(TorchGenerator& gen, Shape shape);
// tensor.uniform_(a, b) on a fresh tensor of this shape.
Tensor uniform(TorchGenerator& gen, Shape shape, double a, double b);
// torch.randn(shape): the serial path below 16 elements, the 16-block path from 16 up.
Tensor randn(TorchGenerator& gen, Shape shape);

// Rows `wanted` of randn(gen, {rows, cols}), as a (wanted.size(), cols) tensor, leaving the
// generator exactly where randn would: every uniform is still drawn, but only the 16-blocks
// that hold a wanted row are transformed. nn.Embedding(50257, D) looked up at a few ids.
Tensor randn_rows(TorchGenerator& gen, int64_t rows, int64_t cols, const std::vector<int64_t>& wanted);

// Bernoulli keep-masks as nn.Dropout(p) draws them (1 = keep), for p strictly in (0, 1).

std::vector<uint8_t> dropout_keep_mask(TorchGenerator& gen, int64_t n, double p, DropoutKernel kernel);

}  // namespace attn
