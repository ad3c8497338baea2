#!/bin/sh
# The tree is formatted: clang-format (the house's .clang-format) would change none of the C++
# files git tracks under src/, tests/, tools/ and fuzz/. Exit 1 naming each file it would change
# (and how: clang-format's own warnings), 0 when none. `make format` rewrites them.
#   check_format.sh ROOT            the tracked files of the checkout at ROOT
#   check_format.sh ROOT FILE...    those files, with ROOT's .clang-format (the planted test)
# Outside a git checkout (a source tarball) it takes every such file under those folders.
set -u
root=$1
shift
command -v clang-format >/dev/null 2>&1 || { echo "check_format.sh: clang-format is not installed (make deps installs it)" >&2; exit 2; }
[ -f "$root/.clang-format" ] || { echo "check_format.sh: no .clang-format in $root" >&2; exit 2; }
list=$(mktemp) || exit 2
trap 'rm -f "$list"' EXIT
if [ $# -gt 0 ]; then
  for f in "$@"; do printf '%s\n' "$f"; done >"$list"
elif git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git -C "$root" ls-files -- 'src/*.cpp' 'src/*.h' 'tests/*.cpp' 'tests/*.h' 'tools/*.cpp' 'tools/*.h' \
    'fuzz/*.cpp' 'fuzz/*.h' | sed "s|^|$root/|" >"$list"
else
  find "$root/src" "$root/tests" "$root/tools" "$root/fuzz" \( -name '*.cpp' -o -name '*.h' \) \
    -not -path '*/node_modules/*' >"$list"
fi
existing=$(mktemp) || exit 2
while IFS= read -r f; do [ -f "$f" ] && printf '%s\n' "$f"; done <"$list" >"$existing"  # tracked, not deleted
mv "$existing" "$list"
[ -s "$list" ] || { echo "check_format.sh: no C++ files found under $root" >&2; exit 2; }
# One clang-format run over every file (a process per file takes a minute on a loaded machine);
# its warnings name each file it would change, "FILE:LINE:COL: warning: code should be
# clang-formatted [-Wclang-format-violations]".
out=$(mktemp) || exit 2
trap 'rm -f "$list" "$out"' EXIT
tr '\n' '\0' <"$list" | xargs -0 clang-format --dry-run --style="file:$root/.clang-format" 2>"$out"
status=$?
bad=$(grep -- '-Wclang-format-violations' "$out" | sed 's/:[0-9]*:[0-9]*: warning: .*//' | sort -u)
if [ -n "$bad" ]; then
  printf '%s\n' "$bad" | while IFS= read -r f; do
    echo "not formatted (make format, or clang-format -i $f): $f"
    grep -F -A2 -- "$f:" "$out" | head -n 6
  done
  exit 1
fi
if [ $status -ne 0 ] || grep -q ' error: ' "$out"; then  # a missing file, a bad .clang-format
  echo "check_format.sh: clang-format failed:"; cat "$out"; exit 2
fi
echo "formatted: $(wc -l <"$list") files"
exit 0
