#include "torch/torch_random.h"

#include <algorithm>
#include <cmath>

#include "core/config.h"
#include "core/float_bits.h"
#include "torch/fma32.h"
#include "torch/random_fill.h"

namespace attn {

// init_genrand, as std::mt19937::seed and PyTorch's at::mt19937 seed the state.
void Mt19937::seed(uint32_t s) {
  state_[0] = s;
  for (int i = 1; i < kN; ++i) state_[i] = 1812433253u * (state_[i - 1] ^ (state_[i - 1] >> 30)) + static_cast<uint32_t>(i);
  index_ = kN;
}

// The next 624 state words, all at once (the loops have no dependence shorter than 227
// words, so they vectorise).
void Mt19937::twist() {
  constexpr int kM = 397;
  constexpr uint32_t kUpper = 0x80000000u, kLower = 0x7fffffffu, kMatrix = 0x9908b0dfu;
  uint32_t* mt = state_;
  for (int i = 0; i < kN - kM; ++i) {
    const uint32_t y = (mt[i] & kUpper) | (mt[i + 1] & kLower);
    mt[i] = mt[i + kM] ^ (y >> 1) ^ ((0u - (y & 1u)) & kMatrix);
  }
  for (int i = kN - kM; i < kN - 1; ++i) {
    const uint32_t y = (mt[i] & kUpper) | (mt[i + 1] & kLower);
    mt[i] = mt[i + kM - kN] ^ (y >> 1) ^ ((0u - (y & 1u)) & kMatrix);
  }
  const uint32_t y = (mt[kN - 1] & kUpper) | (mt[0] & kLower);
  mt[kN - 1] = mt[kM - 1] ^ (y >> 1) ^ ((0u - (y & 1u)) & kMatrix);
  index_ = 0;
}

void Mt19937::discard(uint64_t n) {
  // Skipped draws need no tempering: only the state's regenerations matter.
  while (n > 0) {
    if (index_ >= kN) twist();
    const uint64_t step = std::min<uint64_t>(n, static_cast<uint64_t>(kN - index_));
    index_ += static_cast<int>(step);
    n -= step;
  }
}

void Mt19937::fill(uint32_t* out, int64_t n) {
  while (n > 0) {
    if (index_ >= kN) twist();
    const int step = static_cast<int>(std::min<int64_t>(n, kN - index_));
    const uint32_t* src = state_ + index_;
    for (int i = 0; i < step; ++i) out[i] = temper(src[i]);
    index_ += step;
    out += step;
    n -= step;
  }
}

void TorchGenerator::manual_seed(uint64_t seed) {
  // PyTorch's mt19937 uses the standard init_genrand recurrence on the low 32 bits.
  engine_.seed(static_cast<uint32_t>(seed & 0xFFFFFFFFu));
  next_double_normal_.reset();
}

uint32_t TorchGenerator::random() { return engine_(); }

uint64_t TorchGenerator::random64() {
  const uint64_t hi = random();
  const uint64_t lo = random();
  return (hi << 32) | lo;
}

float TorchGenerator::uniform_float(float from, float to) {
  // uniform_real<float>: keep the low 24 bits (float's digits), scale by 2^-24, in float.
  // PyTorch's build fuses x * (to - from) + from into one multiply-add.
  const float x = static_cast<float>(random() & 0xFFFFFFu) * (1.0f / 16777216.0f);
  return fma32(x, to - from, from);
}

void TorchGenerator::fill_uniform_float(float* out, int64_t n, float from, float to) {
  uint32_t bits[Mt19937::kN];
  while (n > 0) {
    const int64_t step = std::min<int64_t>(n, Mt19937::kN);
    engine_.fill(bits, step);
    kernels::uniform_from_bits(bits, out, step, from, to);
    out += step;
    n -= step;
  }
}

double TorchGenerator::uniform_double() {
  const uint64_t r = random64() & ((uint64_t{1} << 53) - 1);
  return static_cast<double>(r) * (1.0 / 9007199254740992.0);
}

double TorchGenerator::normal_double() {
  // at::normal_distribution<double>: Box-Muller that returns cos and caches sin.
  if (next_double_normal_) {
    const double spare = *next_double_normal_;
    next_double_normal_.reset();
    return spare;
  }
  const double u1 = uniform_double();
  const double u2 = uniform_double();
  const double r = std::sqrt(-2.0 * std::log1p(-u2));
  const double theta = 2.0 * M_PI * u1;
  next_double_normal_ = r * std::sin(theta);
  return r * std::cos(theta);
}

Tensor rand(TorchGenerator& gen, Shape shape) { return uniform(gen, std::move(shape), 0.0, 1.0); }

Tensor uniform(TorchGenerator& gen, Shape shape, double a, double b) {
  Tensor t = Tensor::zeros(std::move(shape));
  // The kernel casts the bounds to the tensor's dtype before drawing.
  const float from = static_cast<float>(a), to = static_cast<float>(b);
  gen.fill_uniform_float(t.data.data(), t.numel(), from, to);
  return t;
}

// ---- the 16-block normal path ---------------------------------------------------------
// On an AVX2 CPU PyTorch runs normal_fill_16_AVX2, whose log and sincos are the Cephes
// polynomials of avx_mathfun.h (not libm), compiled with multiply-adds fused. These are
// one-lane copies with the fusions written out as fma32, so every bit agrees.

static float cephes_logf(float x) {
  x = std::fmax(x, bits_to_float(0x00800000u));  // smallest normal: no denormals
  int32_t exponent = static_cast<int32_t>(float_to_bits(x) >> 23);
  // Keep the mantissa, set the exponent so that x is in [0.5, 1).
  x = bits_to_float((float_to_bits(x) & ~0x7f800000u) | float_to_bits(0.5f));
  exponent -= 0x7f;
  float e = static_cast<float>(exponent) + 1.0f;
  const bool below_sqrt_half = x < 0.707106781186547524f;
  const float tmp = below_sqrt_half ? x : 0.0f;
  x -= 1.0f;
  if (below_sqrt_half) e -= 1.0f;
  x += tmp;

  const float z = x * x;
  float y = 7.0376836292e-2f;
  y = fma32(y, x, -1.1514610310e-1f);
  y = fma32(y, x, 1.1676998740e-1f);
  y = fma32(y, x, -1.2420140846e-1f);
  y = fma32(y, x, 1.4249322787e-1f);
  y = fma32(y, x, -1.6668057665e-1f);
  y = fma32(y, x, 2.0000714765e-1f);
  y = fma32(y, x, -2.4999993993e-1f);
  y = fma32(y, x, 3.3333331174e-1f);
  y = y * x;
  y = fma32(y, z, e * -2.12194440e-4f);
  y = fma32(z, -0.5f, y);
  x = x + y;
  return fma32(e, 0.693359375f, x);
}

static void cephes_sincosf(float theta, float* sin_out, float* cos_out) {
  uint32_t sign_sin = float_to_bits(theta) & 0x80000000u;
  float x = bits_to_float(float_to_bits(theta) & 0x7fffffffu);

  // Reduce to an octant: j = (int(x * 4/pi) + 1) & ~1.
  int32_t j = static_cast<int32_t>(x * 1.27323954473516f);
  j = (j + 1) & ~1;
  const float yq = static_cast<float>(j);
  const uint32_t swap_sign = static_cast<uint32_t>(j & 4) << 29;
  const bool use_sin_poly = (j & 2) == 0;
  sign_sin ^= swap_sign;
  const uint32_t sign_cos = static_cast<uint32_t>(~(j - 2) & 4) << 29;

  // x - yq * pi/4 in three parts (extended precision).
  x = fma32(yq, -0.78515625f, x);
  x = fma32(yq, -2.4187564849853515625e-4f, x);
  x = fma32(yq, -3.77489497744594108e-8f, x);

  const float z = x * x;
  float yc = fma32(2.443315711809948e-5f, z, -1.388731625493765e-3f);
  yc = fma32(yc, z, 4.166664568298827e-2f);
  yc = yc * z;
  yc = fma32(yc, z, -(z * 0.5f));
  yc = yc + 1.0f;

  float ys = fma32(-1.9515295891e-4f, z, 8.3321608736e-3f);
  ys = fma32(ys, z, -1.6666654611e-1f);
  ys = ys * z;
  ys = fma32(ys, x, x);

  const float s = use_sin_poly ? ys : yc;
  const float c = use_sin_poly ? yc : ys;
  *sin_out = bits_to_float(float_to_bits(s) ^ sign_sin);
  *cos_out = bits_to_float(float_to_bits(c) ^ sign_cos);
}

static void normal_fill_16(float* d) {
  const float two_pi = static_cast<float>(2.0 * M_PI);
  for (int j = 0; j < 8; ++j) {
    const float u1 = 1.0f - d[j];  // [0, 1) -> (0, 1] so the log is finite
    const float u2 = d[j + 8];
    const float radius = std::sqrt(-2.0f * cephes_logf(u1));
    float s, c;
    cephes_sincosf(two_pi * u2, &s, &c);
    // fmadd(n, std, mean) with std 1 and mean 0: exact, but -0.0 comes out +0.0.
    d[j] = radius * c + 0.0f;
    d[j + 8] = radius * s + 0.0f;
  }
}

Tensor randn(TorchGenerator& gen, Shape shape) {
  Tensor t = Tensor::zeros(std::move(shape));
  const int64_t n = t.numel();
  float* d = t.data.data();
  if (n < 16) {
    // Serial path: double Box-Muller, one value per element, rounded to float.
    // normal_distribution returns sample * std + mean (1 and 0): -0.0 comes out +0.0.
    for (int64_t i = 0; i < n; ++i) d[i] = static_cast<float>(gen.normal_double() + 0.0);
    return t;
  }
  // Block path: uniforms for every element first, then Box-Muller 16 at a time.
  gen.fill_uniform_float(d, n);
  for (int64_t i = 0; i + 16 <= n; i += 16) normal_fill_16(d + i);
  if (n % 16 != 0) {
    // The tail: redraw the last 16 slots (overlapping finished ones) and redo them.
    float* tail = d + n - 16;
    for (int i = 0; i < 16; ++i) tail[i] = gen.uniform_float();
    normal_fill_16(tail);
  }
  return t;
}

Tensor randn_rows(TorchGenerator& gen, int64_t rows, int64_t cols, const std::vector<int64_t>& wanted) {
  const int64_t n = rows * cols;
  Tensor out = Tensor::zeros({static_cast<int64_t>(wanted.size()), cols});
  if (n < 16) {  // the serial path draws per element: nothing to skip
    const Tensor all = randn(gen, {rows, cols});
    for (size_t r = 0; r < wanted.size(); ++r)
      std::copy_n(all.data.begin() + wanted[r] * cols, cols, out.data.begin() + static_cast<int64_t>(r) * cols);
    return out;
  }
  // Element k comes from block k / 16, except the last 16 when n % 16 != 0: the tail block.
  const int64_t tail_start = n % 16 != 0 ? n - 16 : n;
  std::vector<int64_t> slot(static_cast<size_t>(n / 16), -1);  // block -> its place in `blocks`
  std::vector<float> blocks;
  for (const int64_t r : wanted)
    for (int64_t k = r * cols; k < std::min((r + 1) * cols, tail_start); k += 16 - k % 16)
      if (slot[static_cast<size_t>(k / 16)] < 0) {
        slot[static_cast<size_t>(k / 16)] = static_cast<int64_t>(blocks.size());
        blocks.resize(blocks.size() + 16);
      }
  constexpr int64_t kChunk = 4096;  // a multiple of 16: the chunks hold whole blocks
  float chunk[kChunk];
  for (int64_t c0 = 0; c0 < n; c0 += kChunk) {
    const int64_t len = std::min(kChunk, n - c0);
    gen.fill_uniform_float(chunk, len);
    for (int64_t i = c0; i < c0 + len; i += 16) {
      const int64_t s = i / 16 < n / 16 ? slot[static_cast<size_t>(i / 16)] : -1;
      if (s >= 0) std::copy_n(chunk + (i - c0), std::min<int64_t>(16, n - i), blocks.begin() + s);
    }
  }
  for (size_t b = 0; b < blocks.size(); b += 16) normal_fill_16(blocks.data() + b);
  float tail[16] = {};
  if (tail_start < n) {
    for (float& u : tail) u = gen.uniform_float();
    normal_fill_16(tail);
  }
  for (size_t r = 0; r < wanted.size(); ++r)
    for (int64_t c = 0; c < cols; ++c) {
      const int64_t k = wanted[r] * cols + c;
      out.data[r * static_cast<size_t>(cols) + static_cast<size_t>(c)] =
          k >= tail_start ? tail[k - tail_start] : blocks[static_cast<size_t>(slot[static_cast<size_t>(k / 16)] + k % 16)];
    }
  return out;
}

std::vector<uint8_t> dropout_keep_mask(TorchGenerator& gen, int64_t n, double p,
                                       DropoutKernel kernel) {
  const double keep_prob = 1.0 - p;
  std::vector<uint8_t> keep(static_cast<size_t>(n));
  if (kernel == DropoutKernel::Default) {
    // bernoulli_(1 - p), default CPU kernel: one double uniform per element, row-major.
    for (auto& k : keep) k = gen.uniform_double() < keep_prob;
  } else {
    // MKL kernel: a single 32-bit draw seeds an MCG31m1 stream (viRngBernoulli, ICDF).
    const uint64_t m = 2147483647u;  // 2^31 - 1
    uint64_t x = gen.random() % m;
    if (x == 0) x = 1;
    for (auto& k : keep) {
      k = static_cast<double>(x) / static_cast<double>(m) < keep_prob;
      x = (1132489760u * x) % m;
    }
  }
  return keep;
}

}  // namespace attn
