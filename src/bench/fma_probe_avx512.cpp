// The FMA probe on 512-bit vectors (compiled with -mavx512f; see CMakeLists.txt).
#include "bench/fma_probe.h"

#if defined(__AVX512F__) && defined(__FMA__)
#include <immintrin.h>
#else
#include <cstdlib>
#endif

namespace attn::probe_detail {

#if defined(__AVX512F__) && defined(__FMA__)

double fma_chains_avx512(int64_t iterations, float* sink) {
  // 16 chains x 16 lanes: two FMA pipes with a 4-cycle latency need at least 8 in flight.
  __m512 acc[16];
  for (int i = 0; i < 16; ++i) acc[i] = _mm512_set1_ps(1.0f + 1e-3f * static_cast<float>(i));
  const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
  for (int64_t it = 0; it < iterations; ++it)
    for (int i = 0; i < 16; ++i) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
  __m512 s = acc[0];
  for (int i = 1; i < 16; ++i) s = _mm512_add_ps(s, acc[i]);
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, s);
  float total = 0.0f;
  for (float v : lanes) total += v;
  *sink = total;
  return 2.0 * 16.0 * 16.0 * static_cast<double>(iterations);
}

#else

// Not built for this instruction set (another architecture): never selected at run time.
double fma_chains_avx512(int64_t, float*) { std::abort(); }

#endif

}  // namespace attn::probe_detail
