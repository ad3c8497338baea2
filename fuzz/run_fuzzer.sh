#!/bin/bash
# run_fuzzer.sh FUZZER CORPUS SECONDS [SEED_DIR... | libFuzzer flags...]
# Replays the committed corpus (past findings) and the seed folders (data/, tests/data/...),
# then fuzzes for SECONDS with new inputs kept in a scratch copy, so a test run never changes
# the repository. Fails on any
# crash, sanitizer report, leak, timeout (10 s per input) or excess memory (2 GiB); the input
# that did it is saved in $ATTN_WALK_FUZZ_ARTIFACTS (default: a scratch folder) and printed.
set -euo pipefail
fuzzer=$1 corpus=$2 seconds=${ATTN_WALK_FUZZ_TIME:-$3}  # make fuzz sets ATTN_WALK_FUZZ_TIME
shift 3
seeds=() flags=()
for a in "$@"; do
  if [ -d "$a" ]; then seeds+=("$a"); else flags+=("$a"); fi
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
artifacts=${ATTN_WALK_FUZZ_ARTIFACTS:-$work/artifacts}
mkdir -p "$work/corpus" "$artifacts"
cp -r "$corpus"/. "$work/corpus/"
# The two dictionaries of tokens the inputs are made of: JSON punctuation and option names.
dict=$(dirname "$0")/$(basename "$corpus").dict
extra=()
if [ -f "$dict" ]; then extra+=("-dict=$dict"); fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-allocator_may_return_null=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
if ! timeout -s KILL $((seconds + 60)) "$fuzzer" "$work/corpus" "${seeds[@]}" "${extra[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len=4096 -print_final_stats=1 -artifact_prefix="$artifacts/" "${flags[@]}" >"$work/log" 2>&1; then
  tail -n 60 "$work/log"
  echo "run_fuzzer: $(basename "$fuzzer") failed; the input is in $artifacts:" >&2
  ls -l "$artifacts" >&2
  exit 1
fi
grep -E "^(#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss_mb)|cov:" "$work/log" | tail -n 3
