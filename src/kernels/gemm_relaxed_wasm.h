// Internal: the page's fused product tiles, a second WebAssembly module with
// f32x4.relaxed_madd (tools/make_relaxed_wasm.py assembles it at build time).
// WebAssembly build only; gemm_simd128.cpp checks them once and calls them where they fuse.
#pragma once

namespace attn::kernels::detail {

// Rows per tile of the fused module (its MR; make_relaxed_wasm.py's MR, checked when compiled).
constexpr int kTileRowsRelaxed = 4;

// `panels` tiles of kTileRowsRelaxed rows x 8 columns side by side, each element's k-sum a
// chain acc = relaxed_madd(a(r, k), b(k, j), acc) from 0 in k order. a(r, k) is at
// a + r * a_row + k * a_k bytes (rows of A in place, or packed); b: the first panel, panel p
// b_stride bytes on; c: the first tile's corner, row r ldc bytes on, tile p 32 bytes on.
// mode 0: C = acc; 1: C = acc + C; 2: C = acc + start, the same 8 floats for every row
// (tile p's 32 bytes on).
using RelaxedTilesFn = void (*)(int kc, const float* a, int a_row, int a_k, const float* b, int b_stride, int panels,
                                float* c, int ldc, int mode, const float* start);

// The module's `tiles`, compiled and instantiated on the engine's memory; null where it
// cannot be (a browser without relaxed SIMD rejects the module), or where the page asked for
// the exact route (createAttnWalk({attnWalkExactFma: true})). Whether it fuses is not known
// here: the caller checks that once.
RelaxedTilesFn instantiate_relaxed_tiles();

}  // namespace attn::kernels::detail
