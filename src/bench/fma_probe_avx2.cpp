// The FMA probe on 256-bit vectors (compiled with -mavx2 -mfma; see CMakeLists.txt).
#include "bench/fma_probe.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#else
#include <cstdlib>
#endif

namespace attn::probe_detail {

#if defined(__AVX2__) && defined(__FMA__)

double fma_chains_avx2(int64_t iterations, float* sink) {
  __m256 acc[12];  // 12 of the 16 ymm registers: enough chains for two pipes of latency 4-5
  for (int i = 0; i < 12; ++i) acc[i] = _mm256_set1_ps(1.0f + 1e-3f * static_cast<float>(i));
  const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
  for (int64_t it = 0; it < iterations; ++it)
    for (int i = 0; i < 12; ++i) acc[i] = _mm256_fmadd_ps(acc[i], a, b);
  __m256 s = acc[0];
  for (int i = 1; i < 12; ++i) s = _mm256_add_ps(s, acc[i]);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, s);
  float total = 0.0f;
  for (float v : lanes) total += v;
  *sink = total;
  return 2.0 * 12.0 * 8.0 * static_cast<double>(iterations);
}

#else

// Not built for this instruction set (another architecture): never selected at run time.
double fma_chains_avx2(int64_t, float*) { std::abort(); }

#endif

}  // namespace attn::probe_detail
