// The chain kernel with AVX2 + FMA: tiles of 6 rows x 16 columns (12 accumulators).
// Compiled with -mavx2 -mfma (see CMakeLists.txt); only called when the CPU has both.
#include "kernels/gemm_tile.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#else
#include <cstdlib>
#endif

namespace attn::kernels::detail {

#if defined(__AVX2__) && defined(__FMA__)

namespace {

struct Avx2 {
  using vec = __m256;
  static constexpr int width = 8;
  static vec zero() { return _mm256_setzero_ps(); }
  static vec load(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, vec v) { _mm256_storeu_ps(p, v); }
  static vec broadcast(const float* p) { return _mm256_broadcast_ss(p); }
  static vec fma(vec a, vec b, vec c) { return _mm256_fmadd_ps(a, b, c); }  // a * b + c, one rounding
  static vec add(vec a, vec b) { return _mm256_add_ps(a, b); }
};

}  // namespace

using Kernel = TileKernel<Avx2, 6, 2>;
static_assert(Kernel::NR == kPanelAvx2 && kTileCols % Kernel::NR == 0, "panel width");

void pack_b_avx2(const ConstMat& B, int64_t N, const int64_t* k_bounds, int n_bounds, int64_t k_limit,
                 int64_t j_begin, int64_t j_end, int64_t n_padded, float* out) {
  Kernel::pack_b(B, N, k_bounds, n_bounds, k_limit, j_begin, j_end, n_padded, out);
}

void gemm_region_avx2(const Region& r) { Kernel::region(r); }

#else

// Not built for this instruction set (another architecture): never selected at run time.
void pack_b_avx2(const ConstMat&, int64_t, const int64_t*, int, int64_t, int64_t, int64_t, int64_t, float*) { std::abort(); }
void gemm_region_avx2(const Region&) { std::abort(); }

#endif

}  // namespace attn::kernels::detail
