#!/usr/bin/env bash
# The web page: build/web/attn-walk.html, one self-contained file with the engine inside.
#
#   cmake/build_web.sh BUILD_DIR     (BUILD_DIR holds the native build, for attn-walk-page)
#
# 1. The library again, compiled to WebAssembly by Debian's emscripten in BUILD_DIR/wasm
#    (single-threaded): attn-walk-engine.js (the loader) and attn-walk-engine.wasm.
# 2. The wasm gzip-compressed (the page inflates it with the browser's DecompressionStream:
#    the page is about half the size it is with the plain wasm as base64).
# 3. attn-walk-page (native) puts the loader and the compressed wasm into the same page
#    template as --format html.
# Debian's emscripten ships its system libraries prebuilt (its cache is frozen), so a
# clean machine compiles only this project. Its optimizer needs acorn from node-acorn.
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
export NODE_PATH=/usr/share/nodejs
command -v emcmake >/dev/null || { echo "emscripten is not installed (make deps installs it)" >&2; exit 1; }
[ -x "$BUILD/attn-walk-page" ] || { echo "no $BUILD/attn-walk-page: build the native tree first" >&2; exit 1; }
if [ ! -f "$BUILD/wasm/CMakeCache.txt" ]; then
  emcmake cmake -S "$SRC" -B "$BUILD/wasm" -DCMAKE_BUILD_TYPE=Release \
    -DATTN_WALK_HOST_TEXT_TABLES="$BUILD/generated/text_tables.cpp" >/dev/null
fi
cmake --build "$BUILD/wasm" --target attn-walk-engine -j "$(nproc)"
# -n: no name or time stamp in the header, so the same wasm gives the same page.
gzip -9 -n -c "$BUILD/wasm/attn-walk-engine.wasm" > "$BUILD/wasm/attn-walk-engine.wasm.gz"
mkdir -p "$BUILD/web"
"$BUILD/attn-walk-page" "$BUILD/wasm/attn-walk-engine.js" "$BUILD/wasm/attn-walk-engine.wasm.gz" \
  "$BUILD/web/attn-walk.html"
echo "$BUILD/web/attn-walk.html: $(stat -c %s "$BUILD/web/attn-walk.html") bytes"
