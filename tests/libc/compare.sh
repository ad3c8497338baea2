#!/usr/bin/env bash
# The C library's results where the walks call it: glibc's (this machine: the native binary
# and PyTorch) against emscripten's musl (the web page); and src/torch/libc_math.cpp's
# glibc_expf_fma, which the page uses for expf, compiled both ways against glibc's expf.
# About 5 minutes; not part of `make test` (tests/test_libc_math.cpp replays a sample).
# docs/fidelity.md has the results. Fails only if glibc_expf_fma differs from glibc's expf
# (run it on a CPU with FMA, where glibc picks __expf_fma, as PyTorch's machines do).
#
#   tests/libc/compare.sh [WORK_DIR]
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
WORK=${1:-$(mktemp -d)}
mkdir -p "$WORK"
rm -f "$WORK"/native-*.txt "$WORK"/wasm-*.txt  # results are kept within one run only
export NODE_PATH=/usr/share/nodejs  # emscripten's optimizer needs node-acorn
sources=("$HERE/libc_checksums.cpp" "$SRC/src/torch/libc_math.cpp")
g++ -O2 -std=c++17 -ffp-contract=off -I"$SRC/src" "${sources[@]}" -o "$WORK/native"
em++ -O2 -std=c++17 -sSINGLE_FILE=1 -I"$SRC/src" "${sources[@]}" -o "$WORK/wasm.js"
run() {  # run native|wasm MODE: the checksum lines, cached
  local out="$WORK/$1-$2.txt"
  if [ ! -s "$out" ]; then
    if [ "$1" = native ]; then "$WORK/native" "$2" > "$out"; else node "$WORK/wasm.js" "$2" > "$out"; fi
  fi
  cat "$out"
}
# differing LABEL FILTER A_RUNNER A_MODE B_RUNNER B_MODE: prints how many checksum lines differ
differing() {
  local n
  n=$(diff <(run "$3" "$4" | grep -- "$2") <(run "$5" "$6" | grep -- "$2") | grep -c '^<' || true)
  echo "$1: $n of $(run "$3" "$4" | grep -c -- "$2") checksums differ" >&2
  echo "$n"
}
differing "expf, glibc against musl" "" native expf wasm expf > /dev/null
a=$(differing "expf, glibc against glibc_expf_fma (native)" "" native expf native replica)
b=$(differing "expf, glibc against glibc_expf_fma (WebAssembly)" "" native expf wasm replica)
differing "powf, glibc against musl" "" native powf wasm powf > /dev/null
differing "pow(10, k), glibc against musl" "" native pow10 wasm pow10 > /dev/null
differing "Box-Muller doubles, glibc against musl" "^double" native normal wasm normal > /dev/null
differing "Box-Muller rounded to float, glibc against musl" "^float" native normal wasm normal > /dev/null
differing "snprintf of printed numbers, glibc against musl" "" native printf wasm printf > /dev/null
paste -d' ' <(run native normal-parts) <(run wasm normal-parts) |
  awk '{ for (k = 1; k <= 3; ++k) if ($k != $(k + 3)) d[k]++ }
       END { printf "of the first %d draws, musl differs from glibc in log1p %d, cos %d, sin %d\n", NR, d[1], d[2], d[3] }' >&2
[ "$a" = 0 ] && [ "$b" = 0 ]
