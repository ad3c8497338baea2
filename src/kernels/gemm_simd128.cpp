// The chain kernel of the page (WebAssembly SIMD128): tiles of kTileRowsSimd128 rows x 4 columns.
// Compiled with -msimd128 in the WebAssembly build only (see CMakeLists.txt); the page's
// products take it in place of the scalar chains (gemm.cpp).
//
// WebAssembly has no fused multiply-add that Debian's emscripten can emit: its clang 14 knows
// relaxed SIMD only with the proposal's early opcodes, which today's browsers reject. Each lane
// therefore computes fma32_bracketed (torch/fma32.h) in double: the product of two floats is
// exact in double, the sum rounds once, and two nudged copies of the sum, rounded to float, tell
// whether that sum can be a tie between two floats. If not, the float is x * y + z rounded once,
// as the FMA instruction gives it; if so (about one lane in 2^27), the lanes go through
// fma32_via_double. So every chain is gemm_chains_reference's, bit for bit.
//
// The accumulators stay in double between steps (each holds a float exactly): a lane is
// widened once per tile and narrowed when stored, not at every step.
#include "kernels/gemm_tile.h"

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>

#include "torch/fma32.h"
#else
#include <cstdlib>
#endif

namespace attn::kernels::detail {

#if defined(__wasm_simd128__)

namespace {

struct Simd128 {
  struct vec {
    v128_t lo, hi;  // lanes 0-1 and 2-3, each a float held exactly as a double
  };
  static constexpr int width = 4;

  static v128_t narrow(vec v) {
    return wasm_i32x4_shuffle(wasm_f32x4_demote_f64x2_zero(v.lo), wasm_f32x4_demote_f64x2_zero(v.hi), 0, 1, 4, 5);
  }
  static vec widen(v128_t f) {
    return {wasm_f64x2_promote_low_f32x4(f), wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(f, f, 2, 3, 2, 3))};
  }
  static vec zero() { return {wasm_f64x2_const_splat(0.0), wasm_f64x2_const_splat(0.0)}; }
  static vec load(const float* p) { return widen(wasm_v128_load(p)); }
  static void store(float* p, vec v) { wasm_v128_store(p, narrow(v)); }
  static vec broadcast(const float* p) {
    const v128_t d = wasm_f64x2_splat(static_cast<double>(*p));
    return {d, d};
  }
  // Two lanes of fma32_bracketed.
  static v128_t fma2(v128_t a, v128_t b, v128_t c) {
    const v128_t s = wasm_f64x2_add(wasm_f64x2_mul(a, b), c);
    const v128_t away = wasm_f32x4_demote_f64x2_zero(wasm_f64x2_mul(s, wasm_f64x2_const_splat(0x1.0000000000001p0)));
    const v128_t toward =
        wasm_f32x4_demote_f64x2_zero(wasm_f64x2_mul(s, wasm_f64x2_const_splat(0x1.ffffffffffffep-1)));
    if (__builtin_expect(wasm_v128_any_true(wasm_f32x4_ne(away, toward)), 0)) return near_tie(a, b, c);
    return wasm_f64x2_promote_low_f32x4(toward);
  }
  __attribute__((noinline, cold)) static v128_t near_tie(v128_t a, v128_t b, v128_t c) {
    float r[2];
    for (int i = 0; i < 2; ++i) {
      const double x = i == 0 ? wasm_f64x2_extract_lane(a, 0) : wasm_f64x2_extract_lane(a, 1);
      const double y = i == 0 ? wasm_f64x2_extract_lane(b, 0) : wasm_f64x2_extract_lane(b, 1);
      const double z = i == 0 ? wasm_f64x2_extract_lane(c, 0) : wasm_f64x2_extract_lane(c, 1);
      r[i] = fma32_via_double(static_cast<float>(x), static_cast<float>(y), static_cast<float>(z));
    }
    return wasm_f64x2_make(r[0], r[1]);
  }
  static vec fma(vec a, vec b, vec c) { return {fma2(a.lo, b.lo, c.lo), fma2(a.hi, b.hi, c.hi)}; }
  // A float sum, rounded once as float (a double sum of two floats can round twice).
  static vec add(vec a, vec b) { return widen(wasm_f32x4_add(narrow(a), narrow(b))); }
  // The first `count` (>= 1) lanes; a full vector from 4 on. Lanes past them are not touched.
  static vec load_first(const float* p, int count) {
    float t[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int i = 0; i < count && i < 4; ++i) t[i] = p[i];
    return load(t);
  }
  static void store_first(float* p, vec v, int count) {
    float t[4];
    store(t, v);
    for (int i = 0; i < count && i < 4; ++i) p[i] = t[i];
  }
  // dst[r * dst_ld + c] = src[c * src_ld + r] for a 4 x 4 block (moves only).
  static void transpose(const float* src, int64_t src_ld, float* dst, int64_t dst_ld) {
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 4; ++c) dst[r * dst_ld + c] = src[c * src_ld + r];
  }
};

}  // namespace

using Kernel = TileKernel<Simd128, kTileRowsSimd128, kPanelSimd128 / Simd128::width>;
static_assert(Kernel::NR == kPanelSimd128 && kTileCols % Kernel::NR == 0, "panel width");

void pack_b_simd128(const ConstMat& B, int64_t N, const int64_t* k_bounds, int n_bounds, int64_t k_limit,
                    int64_t j_begin, int64_t j_end, int64_t n_padded, float* out) {
  Kernel::pack_b(B, N, k_bounds, n_bounds, k_limit, j_begin, j_end, n_padded, out);
}

void gemm_region_simd128(const Region& r) { Kernel::region(r); }

#else

// Not built for WebAssembly SIMD: never selected (gemm.cpp takes it in the WebAssembly build only).
void pack_b_simd128(const ConstMat&, int64_t, const int64_t*, int, int64_t, int64_t, int64_t, int64_t, float*) {
  std::abort();
}
void gemm_region_simd128(const Region&) { std::abort(); }

#endif

}  // namespace attn::kernels::detail
