#!/bin/sh
# The switches that must name every value of their enum have no default, and -Wswitch is an
# error inside them (#pragma GCC diagnostic): a new value left out does not compile. Checked
# by planting: each file with one case deleted must fail to compile, naming the value.
#   request/request.cpp's costed_walks: a new stage with matrices cannot go uncosted;
#   core/walk.cpp's role_name: a new role cannot reach JSON without a name.
#   test_exhaustive_switches.sh CXX SOURCE_DIR
set -u
cxx=$1
src=$2/src
dir=$(mktemp -d) || exit 2
trap 'rm -rf "$dir"' EXIT
status=0
plant() {  # FILE CASE-LINE VALUE
  file=$1 line=$2 value=$3
  grep -qF "$line" "$src/$file" || { echo "FAIL: $file has no line '$line' to delete"; status=1; return; }
  grep -vF "$line" "$src/$file" >"$dir/planted.cpp"
  if "$cxx" -std=c++17 -fsyntax-only -I"$src" -iquote "$src/$(dirname "$file")" "$dir/planted.cpp" >"$dir/out" 2>&1; then
    echo "FAIL: $file compiles without its case for $value: the switch has a default, or -Wswitch is not an error there"
    status=1
  elif ! grep -q "$value.*not handled in switch\|not handled in switch.*$value\|enumeration value.*$value" "$dir/out"; then
    echo "FAIL: $file without its case for $value fails, but not for the switch:"; head -n 20 "$dir/out"; status=1
  else
    echo "ok: $file without its case for $value does not compile"
  fi
}
plant request/request.cpp "case StageChoice::Swa: return {};" Swa
plant core/walk.cpp 'case Role::Series: return "series";' Series
exit $status
