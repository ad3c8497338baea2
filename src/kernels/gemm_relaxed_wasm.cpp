// The page's fused product tiles: tools/make_relaxed_wasm.py's module (its bytes generated
// at build time, into the build tree's kernels/gemm_relaxed_wasm_bytes.h), compiled and
// instantiated once, synchronously, beside the engine. WebAssembly build only.
//
// A separate module, because a module holding a relaxed opcode fails to validate where relaxed
// SIMD is off (Node 20 without --experimental-wasm-relaxed-simd, older browsers): the engine
// must load everywhere, and there it keeps the exact emulation. The function joins the engine's
// function table, so the products call it as any function pointer (a call_indirect, with no
// JavaScript between), once per row of tiles.
#include "kernels/gemm_relaxed_wasm.h"

#if defined(__EMSCRIPTEN__)
#include <emscripten/emscripten.h>

#include <cstdint>

#include "kernels/gemm_relaxed_wasm_bytes.h"  // generated in the build tree

namespace {

// The module's bytes in, a table index out (0: none). The module is under 4 KB, which
// Chromium compiles synchronously on the main thread. It imports the engine's memory object,
// so it sees every later growth.
// clang-format off
EM_JS(int, attn_relaxed_tiles_instantiate, (const unsigned char* bytes, int size), {
  if (Module["attnWalkExactFma"]) return 0;
  try {
    var module = new WebAssembly.Module(HEAPU8.slice(bytes, bytes + size));
    var instance = new WebAssembly.Instance(module, {env: {memory: wasmMemory}});
    var index = wasmTable.length;
    wasmTable.grow(1);
    wasmTable.set(index, instance.exports["tiles"]);
    return index;
  } catch (e) {
    return 0;  // no relaxed SIMD here (a CompileError), or no room in the table
  }
});
// clang-format on

}  // namespace

namespace attn::kernels::detail {

static_assert(kRelaxedTileRows == kTileRowsRelaxed, "tools/make_relaxed_wasm.py's MR");

RelaxedTilesFn instantiate_relaxed_tiles() {
  const int index = attn_relaxed_tiles_instantiate(kRelaxedTilesWasm, static_cast<int>(sizeof kRelaxedTilesWasm));
  // In WebAssembly a function pointer is an index into the function table.
  return index == 0 ? nullptr : reinterpret_cast<RelaxedTilesFn>(static_cast<uintptr_t>(index));
}

}  // namespace attn::kernels::detail

#else

namespace attn::kernels::detail {
RelaxedTilesFn instantiate_relaxed_tiles() { return nullptr; }  // native: the FMA instructions
}  // namespace attn::kernels::detail

#endif
