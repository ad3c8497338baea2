// uniform_from_bits with AVX2 and FMA, 8 draws at a time (compiled with -mavx2 -mfma).
#include "torch/random_fill.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#else
#include <cstdlib>
#endif

namespace attn::kernels::detail {

#if defined(__AVX2__) && defined(__FMA__)

void uniform_from_bits_avx2(const uint32_t* bits, float* out, int64_t n, float from, float to) {
  const float range_s = to - from;
  const __m256i mask = _mm256_set1_epi32(0xFFFFFF);
  const __m256 scale = _mm256_set1_ps(1.0f / 16777216.0f), range = _mm256_set1_ps(range_s),
               start = _mm256_set1_ps(from);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i b = _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(bits + i)), mask);
    // 24 bits convert exactly; the scaling by 2^-24 is exact; one rounding in the FMA.
    const __m256 x = _mm256_mul_ps(_mm256_cvtepi32_ps(b), scale);
    _mm256_storeu_ps(out + i, _mm256_fmadd_ps(x, range, start));
  }
  for (; i < n; ++i) {
    const __m128 x = _mm_set_ss(static_cast<float>(bits[i] & 0xFFFFFFu) * (1.0f / 16777216.0f));
    out[i] = _mm_cvtss_f32(_mm_fmadd_ss(x, _mm_set_ss(range_s), _mm_set_ss(from)));
  }
}

#else

// Not built for this instruction set (another architecture): never selected at run time.
void uniform_from_bits_avx2(const uint32_t*, float*, int64_t, float, float) { std::abort(); }

#endif

}  // namespace attn::kernels::detail
