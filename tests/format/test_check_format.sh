#!/bin/sh
# check_format.sh can fail: a formatted file passes, and the same file with one line misformatted
# (an indent lost, spaces around a call) fails, named. Uses the tree's own .clang-format.
set -u
here=$(dirname "$0")
root=$1
dir=$(mktemp -d) || exit 2
trap 'rm -rf "$dir"' EXIT
printf 'namespace attn {\n\nint twice(int x) { return 2 * x; }\n\n}  // namespace attn\n' >"$dir/good.cpp"
printf 'namespace attn {\n\nint twice( int x ) {\nreturn 2*x; }\n\n}  // namespace attn\n' >"$dir/bad.cpp"
"$here/check_format.sh" "$root" "$dir/good.cpp" >"$dir/out" 2>&1 || { echo "FAIL: a formatted file was refused"; cat "$dir/out"; exit 1; }
if "$here/check_format.sh" "$root" "$dir/good.cpp" "$dir/bad.cpp" >"$dir/out" 2>&1; then
  echo "FAIL: a misformatted file passed"; cat "$dir/out"; exit 1
fi
grep -q "not formatted.*bad.cpp" "$dir/out" || { echo "FAIL: the misformatted file is not named"; cat "$dir/out"; exit 1; }
if grep -q "good.cpp" "$dir/out"; then echo "FAIL: the formatted file was named"; cat "$dir/out"; exit 1; fi
echo "ok: check_format.sh passes a formatted file and names a misformatted one"
