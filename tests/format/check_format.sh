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
[ -s "$list" ] || { echo "check_format.sh: no C++ files found under $root" >&2; exit 2; }
bad=0
while IFS= read -r f; do
  [ -f "$f" ] || continue  # tracked but deleted in the work tree
  if ! clang-format --dry-run -Werror --style="file:$root/.clang-format" "$f" >/dev/null 2>&1; then
    echo "not formatted (make format, or clang-format -i $f): $f"
    clang-format --dry-run --style="file:$root/.clang-format" "$f" 2>&1 | head -n 6
    bad=1
  fi
done <"$list"
[ $bad -eq 0 ] && echo "formatted: $(wc -l <"$list") files"
exit $bad
