#include "torch_kernels.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>

namespace attn::kernels {

// ---- exp ---------------------------------------------------------------------------------
// SLEEF's xexpf: split x = q*ln2 + s (ln2 in two parts), a degree-6 polynomial for e^s,
// then scale by 2^q. With FMA available every "mla" is one fused multiply-add.
float sleef_expf(float d) {
  if (std::isnan(d)) return d;
  const float q_f = std::nearbyint(d * 1.442695040888963407359924681001892137426645954152985934135449406931f);
  const int32_t q = static_cast<int32_t>(q_f);
  float s = std::fma(q_f, -0.693145751953125f, d);
  s = std::fma(q_f, -1.428606765330187045e-06f, s);

  float u = 0.000198527617612853646278381f;
  u = std::fma(u, s, 0.00139304355252534151077271f);
  u = std::fma(u, s, 0.00833336077630519866943359f);
  u = std::fma(u, s, 0.0416664853692054748535156f);
  u = std::fma(u, s, 0.166666671633720397949219f);
  u = std::fma(u, s, 0.5f);
  u = 1.0f + std::fma(s * s, u, s);

  // ldexp in two halves so that neither power of two overflows on its own.
  const int32_t q1 = q >> 1, q2 = q - q1;
  u = u * std::ldexp(1.0f, q1) * std::ldexp(1.0f, q2);
  if (d < -104.0f) u = 0.0f;
  if (d > 100.0f) u = std::numeric_limits<float>::infinity();
  return u;
}

// ---- sum ---------------------------------------------------------------------------------

namespace {

struct Vec8 {
  std::array<float, 8> v{};
  Vec8& operator+=(const Vec8& o) {
    for (int i = 0; i < 8; ++i) v[i] += o.v[i];
    return *this;
  }
};

inline void add_to(float& acc, float x) { acc += x; }
inline void add_to(Vec8& acc, const Vec8& x) { acc += x; }

int64_t ceil_log2(int64_t x) {
  if (x <= 2) return 1;
  int64_t bits = 0;
  for (uint64_t v = static_cast<uint64_t>(x) - 1; v; v >>= 1) ++bits;
  return bits;
}

// multi_row_sum: nrows running sums over `size` rows, with a cascade of 4 levels so
// only partial sums of similar size are added together (SumKernel.cpp).
template <typename T, int nrows, typename Load>
std::array<T, nrows> multi_row_sum(int64_t size, Load load) {
  constexpr int num_levels = 4;
  const int64_t level_power = std::max<int64_t>(4, ceil_log2(size) / num_levels);
  const int64_t level_step = int64_t{1} << level_power;
  const int64_t level_mask = level_step - 1;
  T acc[num_levels][nrows] = {};
  int64_t i = 0;
  while (i + level_step <= size) {
    for (int64_t j = 0; j < level_step; ++j, ++i)
      for (int k = 0; k < nrows; ++k) add_to(acc[0][k], load(i, k));
    for (int j = 1; j < num_levels; ++j) {
      for (int k = 0; k < nrows; ++k) {
        add_to(acc[j][k], acc[j - 1][k]);
        acc[j - 1][k] = T{};
      }
      if ((i & (level_mask << (j * level_power))) != 0) break;
    }
  }
  for (; i < size; ++i)
    for (int k = 0; k < nrows; ++k) add_to(acc[0][k], load(i, k));
  for (int j = 1; j < num_levels; ++j)
    for (int k = 0; k < nrows; ++k) add_to(acc[0][k], acc[j][k]);
  std::array<T, nrows> out;
  for (int k = 0; k < nrows; ++k) out[k] = acc[0][k];
  return out;
}

// row_sum: the row seen as (-1, 4) for instruction-level parallelism, then the leftovers.
template <typename T, typename Load>
T row_sum(int64_t size, Load load) {
  constexpr int ilp = 4;
  const int64_t size_ilp = size / ilp;
  auto partial = multi_row_sum<T, ilp>(size_ilp, [&](int64_t i, int k) { return load(i * ilp + k); });
  for (int64_t i = size_ilp * ilp; i < size; ++i) add_to(partial[0], load(i));
  for (int k = 1; k < ilp; ++k) add_to(partial[0], partial[k]);
  return partial[0];
}

}  // namespace

float cascade_sum(const float* x, int64_t n) {
  if (n < 8) return row_sum<float>(n, [&](int64_t i) { return x[i]; });
  // vectorized_inner_sum: 8-lane vectors through row_sum, the scalar tail, then the lanes.
  const int64_t vec_size = n / 8;
  const Vec8 vec_acc = row_sum<Vec8>(vec_size, [&](int64_t i) {
    Vec8 v;
    std::memcpy(v.v.data(), x + i * 8, sizeof(float) * 8);
    return v;
  });
  float final_acc = 0.0f;
  for (int64_t k = vec_size * 8; k < n; ++k) final_acc += x[k];
  for (float lane : vec_acc.v) final_acc += lane;
  return final_acc;
}

// ---- softmax reductions ------------------------------------------------------------------
// vec::reduce_all: rows shorter than 8 go left to right. Longer rows are combined
// lane-wise (lane l holds elements l, l+8, ...; the tail goes into the first lanes), and
// the 8 lanes are then folded as a tree of AVX shuffles: halves (l, l+4), then (l, l^2),
// then (l, l^1).

template <typename Op>
static float reduce_all(const float* x, int64_t n, Op op) {
  constexpr int64_t lanes = 8;
  if (n < lanes) {
    float acc = x[0];
    for (int64_t i = 1; i < n; ++i) acc = op(acc, x[i]);
    return acc;
  }
  float acc[lanes];
  std::copy(x, x + lanes, acc);
  int64_t d = lanes;
  for (; d + lanes <= n; d += lanes)
    for (int64_t l = 0; l < lanes; ++l) acc[l] = op(acc[l], x[d + l]);
  for (int64_t l = 0; d + l < n; ++l) acc[l] = op(acc[l], x[d + l]);
  for (int shift : {4, 2, 1}) {
    float folded[lanes];
    for (int l = 0; l < lanes; ++l) folded[l] = op(acc[l], acc[l ^ shift]);
    std::copy(folded, folded + lanes, acc);
  }
  return acc[0];
}

float reduce_all_sum(const float* x, int64_t n) {
  return reduce_all(x, n, [](float a, float b) { return a + b; });
}

float reduce_all_max(const float* x, int64_t n) {
  // vec::maximum propagates NaN.
  return reduce_all(x, n, [](float a, float b) { return (a > b || std::isnan(a)) ? a : b; });
}

// ---- dot ---------------------------------------------------------------------------------

float blas_sdot(const float* x, const float* y, int64_t n) {
  // OpenBLAS's sdot keeps a double accumulator and adds float products to it.
  double dot = 0.0;
  for (int64_t i = 0; i < n; ++i) dot += static_cast<double>(y[i] * x[i]);
  return static_cast<float>(dot);
}

}  // namespace attn::kernels
