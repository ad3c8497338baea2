// The chain kernel of the page (WebAssembly SIMD128): tiles of kTileRowsSimd128 rows x 4 columns.
// Compiled with -msimd128 in the WebAssembly build only (see CMakeLists.txt); the page's
// products take it in place of the scalar chains (gemm.cpp).
//
// WebAssembly has no fused multiply-add that Debian's emscripten can emit: its clang 14 knows
// relaxed SIMD only with the proposal's early opcodes, which today's browsers reject. Each lane
// therefore computes fma32_bracketed in double (fma_simd128.h), which is x * y + z rounded once.
// So every chain is gemm_chains_reference's, bit for bit.
//
// The accumulators stay in double between steps (each holds a float exactly): a lane is
// widened once per tile and narrowed when stored, not at every step.
//
// Where the browser has relaxed SIMD and its f32x4.relaxed_madd fuses, the whole tiles run
// that instead, 4 fused multiply-adds per instruction, in a second module assembled at build
// time (gemm_relaxed_wasm.*): the same chains in the same order, so the same bits. It is
// checked once, on chains where fused and unfused multiply-adds differ, against this file's
// exact tiles; anything but the same bits, and the exact tiles run everywhere. (The check
// runs the module as first compiled; that the browser's later, optimised code fuses the same
// way is not checked here but by the page's tests, which compare long runs with native bits.)
#include "kernels/gemm_tile.h"

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>

#include <cstring>

#include "kernels/fma_simd128.h"
#include "kernels/gemm_relaxed_wasm.h"
#else
#include <cstdlib>
#endif

namespace attn::kernels::detail {

#if defined(__wasm_simd128__)

namespace {

struct Simd128 {
  using vec = simd128::Pair;  // lanes 0-1 and 2-3, each a float held exactly as a double
  static constexpr int width = 4;

  static v128_t narrow(vec v) { return simd128::narrow(v); }
  static vec widen(v128_t f) { return simd128::widen(f); }
  static vec zero() { return {wasm_f64x2_const_splat(0.0), wasm_f64x2_const_splat(0.0)}; }
  static vec load(const float* p) { return widen(wasm_v128_load(p)); }
  static void store(float* p, vec v) { wasm_v128_store(p, narrow(v)); }
  static vec broadcast(const float* p) {
    const v128_t d = wasm_f64x2_splat(static_cast<double>(*p));
    return {d, d};
  }
  static vec fma(vec a, vec b, vec c) { return simd128::fma(a, b, c); }
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

namespace {

constexpr int kRowsRelaxed = kTileRowsRelaxed;
static_assert(kRowsRelaxed <= kScratchRowsA, "a packed sliver fits the region's scratch");

// The exact tiles on rows [0, rows) of one panel, kTileRowsSimd128 rows at a time; a(r, k) is
// a[r * a_row + k * a_k].
void exact_rows(int64_t kc, const float* a, int64_t a_row, int64_t a_k, int rows, const float* Bp, float* C,
                int64_t ldc, int cols, bool add, const float* start) {
  for (int r0 = 0; r0 < rows; r0 += kTileRowsSimd128) {
    const int n = rows - r0 < kTileRowsSimd128 ? rows - r0 : kTileRowsSimd128;
    Kernel::micro(kc, a + r0 * a_row, a_row, a_k, Bp, C + r0 * ldc, ldc, n, cols, add, start);
  }
}

// Kernel::region with the fused tiles: each row tile's whole panels in one call; the last
// rows and a last panel of fewer than NR columns by the exact tiles. A row-major A is read in
// place; a transposed A is packed into a sliver first, as there.
void region_relaxed(const Region& g, RelaxedTilesFn tiles) {
  constexpr int64_t NR = Kernel::NR, NC = Kernel::NC;
  for (int b = 0; b + 1 < g.n_bounds; ++b) {
    const int64_t k0 = g.k_bounds[b], k1 = g.k_bounds[b + 1], kc_block = k1 - k0;
    const bool add = g.add_to_c || b > 0;
    const float* start = b == 0 && g.add_to_c ? g.c_init : nullptr;
    const int mode = !add ? 0 : start ? 2
                                      : 1;
    const float* block = g.packed_b + k0 * g.n_padded;
    for (int64_t j0 = 0; j0 < g.n; j0 += NC) {
      const int64_t n = Kernel::min64(NC, g.n - j0);
      const float* panels = block + (g.j0 + j0) / NR * kc_block * NR;
      for (int64_t i0 = 0; i0 < g.m; i0 += kRowsRelaxed) {
        const int rows = static_cast<int>(Kernel::min64(kRowsRelaxed, g.m - i0));
        // With the zero-tail hint, a row tile stops after its rows' last nonzero (as there).
        const int64_t k_end = Kernel::tile_k_end(g, i0, rows, k0, k1);
        const int64_t kc = k_end - k0;
        const float* a = g.A.data + i0 * g.A.ld + k0;
        int64_t a_row = g.A.ld, a_k = 1;
        if (g.A.transposed) {  // a(r, k) = A.data[k * ld + r]: kRowsRelaxed neighbours per k
          Kernel::pack_a<kRowsRelaxed>(g.A, i0, rows, k0, k_end, g.scratch_a);
          a = g.scratch_a;
          a_row = 1;
          a_k = kRowsRelaxed;
        }
        float* c = g.C + i0 * g.ldc + j0;
        const int64_t whole = rows == kRowsRelaxed ? n / NR : 0;
        if (whole > 0)
          tiles(static_cast<int>(kc), a, static_cast<int>(a_row * 4), static_cast<int>(a_k * 4), panels,
                static_cast<int>(kc_block * NR * 4), static_cast<int>(whole), c, static_cast<int>(g.ldc * 4), mode,
                start ? start + j0 : nullptr);
        for (int64_t p = whole; p * NR < n; ++p)
          exact_rows(kc, a, a_row, a_k, rows, panels + p * kc_block * NR, c + p * NR, g.ldc,
                     static_cast<int>(Kernel::min64(NR, n - p * NR)), add, start ? start + j0 + p * NR : nullptr);
      }
    }
  }
}

// Whether `tiles` gives the exact tiles' bits, in each of its three modes, on two tiles of 24
// steps: a lane where a fused and an unfused multiply-add differ by construction (1, then
// (1 + 2^-12)^2 - 1), a lane of subnormal products, and pseudo-random lanes of 24 steps. A
// browser whose relaxed_madd does not fuse fails here.
bool fuses_exactly(RelaxedTilesFn tiles) {
  constexpr int kc = 24, panels = 2, NR = static_cast<int>(Kernel::NR), ldc = panels * NR;
  float a[kc * kRowsRelaxed], b[panels * kc * NR], start[ldc];
  uint32_t state = 12345u;
  auto next = [&state] {  // a float in (-2, 2), all 24 bits of its significand in use
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(static_cast<int32_t>(state) >> 8) * 0x1p-22f;
  };
  for (float& x : a) x = next();
  for (float& x : b) x = next();
  for (float& x : start) x = next();
  const float x = 1.0f + 0x1p-12f;
  for (int k = 0; k < kc; ++k) {
    a[k * kRowsRelaxed] = k == 0 ? 1.0f : k == 1 ? x
                                                 : 0.0f;  // row 0 x column 0: 2^-11 + 2^-24 fused
    b[k * NR] = k == 0 ? -1.0f : k == 1 ? x
                                        : 0.0f;
    a[k * kRowsRelaxed + 1] = k == 2 ? 0x1.234568p-70f : 0.0f;  // row 1 x column 1: a subnormal product
    b[k * NR + 1] = k == 2 ? -0x1.fedcbap-70f : next();
  }
  for (int mode = 0; mode < 3; ++mode) {
    float got[kRowsRelaxed * ldc], want[kRowsRelaxed * ldc];
    for (int i = 0; i < kRowsRelaxed * ldc; ++i) got[i] = want[i] = static_cast<float>(i) * 0.375f - 7.0f;
    tiles(kc, a, 4, kRowsRelaxed * 4, b, kc * NR * 4, panels, got, ldc * 4, mode, mode == 2 ? start : nullptr);
    for (int p = 0; p < panels; ++p)
      exact_rows(kc, a, 1, kRowsRelaxed, kRowsRelaxed, b + p * kc * NR, want + p * NR, ldc, NR, mode != 0,
                 mode == 2 ? start + p * NR : nullptr);
    if (std::memcmp(got, want, sizeof got) != 0) return false;
  }
  // The check can tell: row 0 x column 0 unfused (plain multiplies and adds: the library is
  // built with -ffp-contract=off) is 2^-11, not the exact tiles' 2^-11 + 2^-24.
  float unfused = 0.0f, fused[kRowsRelaxed * ldc];
  for (int k = 0; k < kc; ++k) unfused = a[k * kRowsRelaxed] * b[k * NR] + unfused;
  exact_rows(kc, a, 1, kRowsRelaxed, kRowsRelaxed, b, fused, ldc, NR, false, nullptr);
  return unfused != fused[0];
}

// The fused tiles where they fuse (checked on the first product), or null.
RelaxedTilesFn relaxed_tiles() {
  static const RelaxedTilesFn checked = [] {
    const RelaxedTilesFn tiles = instantiate_relaxed_tiles();
    return tiles && fuses_exactly(tiles) ? tiles : nullptr;
  }();
  return checked;
}

}  // namespace

void gemm_region_simd128(const Region& r) {
  if (const RelaxedTilesFn tiles = relaxed_tiles()) region_relaxed(r, tiles);
  else Kernel::region(r);
}

const char* simd128_kernel_name() { return relaxed_tiles() ? "simd128_relaxed_madd" : "simd128_exact_emulation"; }

int simd128_tile_rows() { return relaxed_tiles() ? kRowsRelaxed : kTileRowsSimd128; }

#else

// Not built for WebAssembly SIMD: never selected (gemm.cpp takes it in the WebAssembly build only).
void pack_b_simd128(const ConstMat&, int64_t, const int64_t*, int, int64_t, int64_t, int64_t, int64_t, float*) {
  std::abort();
}
void gemm_region_simd128(const Region&) { std::abort(); }
const char* simd128_kernel_name() { std::abort(); }
int simd128_tile_rows() { std::abort(); }

#endif

}  // namespace attn::kernels::detail
