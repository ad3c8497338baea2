// Softmax's backward on causal rows with AVX2 + FMA (compiled with -mavx2 -mfma; see
// CMakeLists.txt): lane by lane the float operations of ops_backward.cpp's softmax_backward.
#include "kernels/softmax.h"
#include "kernels/softmax_detail.h"

#if defined(__AVX2__) && defined(__FMA__)

#include <immintrin.h>

namespace attn::kernels::detail {

namespace {

// The first `count` (0 to 8) lanes.
__m256i first_lanes(int64_t count) {
  const __m256i index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(count)), index);
}

// Rows r < R, ld floats apart, row r's `valid + r` entries: sums[r], the rows' chains side by
// side (one alone waits on each fused multiply-add's latency), each in its own order. The first
// 8 products are rounded on their own (map2's x * y before any sum); past a row's end they are 0 * 0.
template <int R>
void grad_dots(const float* g, const float* w, int64_t ld, int64_t valid, float* sums) {
  __m256 acc[R];
  for (int r = 0; r < R; ++r) {
    const int64_t first = valid + r < 8 ? valid + r : 8;
    const __m256i m0 = first_lanes(first);
    acc[r] = _mm256_mul_ps(_mm256_maskload_ps(g + r * ld, m0), _mm256_maskload_ps(w + r * ld, m0));
  }
  int64_t j = 8;
  for (; j + 8 <= valid; j += 8)  // every row's lanes still whole
    for (int r = 0; r < R; ++r)
      acc[r] = _mm256_fmadd_ps(_mm256_loadu_ps(g + r * ld + j), _mm256_loadu_ps(w + r * ld + j), acc[r]);
  for (int r = 0; r < R; ++r) {  // each row's own end
    const float *gr = g + r * ld, *wr = w + r * ld;
    const int64_t row_valid = valid + r;
    int64_t k = j;
    for (; k + 8 <= row_valid; k += 8) acc[r] = _mm256_fmadd_ps(_mm256_loadu_ps(gr + k), _mm256_loadu_ps(wr + k), acc[r]);
    if (k < row_valid) {
      const __m256i m = first_lanes(row_valid - k);
      acc[r] = _mm256_fmadd_ps(_mm256_maskload_ps(gr + k, m), _mm256_maskload_ps(wr + k, m), acc[r]);
    }
    alignas(32) float lanes[8];
    _mm256_store_ps(lanes, acc[r]);
    sums[r] = fold_sum_avx2(lanes);
  }
}

// out[j] = ((g[j] - sum) * w[j]) / divisor for j < valid; ByReciprocal: * (1 / divisor), the
// same floats for a power-of-two divisor.
template <bool ByReciprocal>
void grad_scale(const float* g, const float* w, float sum, float divisor, float* out, int64_t valid) {
  const float by = ByReciprocal ? 1.0f / divisor : divisor;
  const __m256 s = _mm256_set1_ps(sum), v = _mm256_set1_ps(by);
  int64_t j = 0;
  for (; j + 8 <= valid; j += 8) {
    const __m256 x = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(g + j), s), _mm256_loadu_ps(w + j));
    _mm256_storeu_ps(out + j, ByReciprocal ? _mm256_mul_ps(x, v) : _mm256_div_ps(x, v));
  }
  for (; j < valid; ++j) {
    const float x = (g[j] - sum) * w[j];
    out[j] = ByReciprocal ? x * by : x / by;
  }
}

}  // namespace

float causal_grad_dot_avx2(const float* g, const float* w, int64_t valid) {
  float sum = 0.0f;
  grad_dots<1>(g, w, 0, valid, &sum);
  return sum;
}

void causal_grad_dot4_avx2(const float* g, const float* w, int64_t ld, int64_t valid, float sums[4]) {
  grad_dots<4>(g, w, ld, valid, sums);
}

void causal_grad_scale_avx2(const float* g, const float* w, float sum, float divisor, float* out, int64_t valid) {
  // Dividing by a power of two (sqrt(64) = 8) is multiplying by its reciprocal, exactly: the
  // same real number, rounded once (division_is_scaling keeps the reciprocal finite and
  // normal). A multiply costs a fraction of a divide.
  int scale_exp = 0;
  if (division_is_scaling(divisor, scale_exp)) grad_scale<true>(g, w, sum, divisor, out, valid);
  else grad_scale<false>(g, w, sum, divisor, out, valid);
}

}  // namespace attn::kernels::detail

#else

#include <cstdlib>

namespace attn::kernels::detail {
float causal_grad_dot_avx2(const float*, const float*, int64_t) { std::abort(); }
void causal_grad_dot4_avx2(const float*, const float*, int64_t, int64_t, float*) { std::abort(); }
void causal_grad_scale_avx2(const float*, const float*, float, float, float*, int64_t) { std::abort(); }
}  // namespace attn::kernels::detail

#endif
