#!/usr/bin/env bash
# attn-walk check through the real binary: exit codes 0 (all equal or close), 3 (a tensor
# differs), 1 (bad dump), 2 (option misuse); errors on stderr with nothing on stdout; stdin;
# --output written whole, and not at all on error.
set -uo pipefail
bin="$1"
golden="$2/golden/check/book"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# expect CODE STDOUT-PATTERN STDERR-PATTERN -- ARGS...  (an empty pattern: must be empty)
expect() {
  local code="$1" out_pat="$2" err_pat="$3"
  shift 4
  "$bin" "$@" > "$tmp/out" 2> "$tmp/err" < "${STDIN:-/dev/null}"
  local rc=$?
  [ "$rc" = "$code" ] || fail "$*: exit $rc, expected $code; stderr: $(head -c 300 "$tmp/err")"
  if [ -z "$out_pat" ]; then [ ! -s "$tmp/out" ] || fail "$*: stdout should be empty"
  else grep -q -- "$out_pat" "$tmp/out" || fail "$*: stdout lacks '$out_pat'"; fi
  if [ -z "$err_pat" ]; then [ ! -s "$tmp/err" ] || fail "$*: stderr should be empty: $(head -c 300 "$tmp/err")"
  else grep -q -- "$err_pat" "$tmp/err" || fail "$*: stderr lacks '$err_pat': $(head -c 300 "$tmp/err")"; fi
}

expect 0 "All 11 tensors given match" "" -- check "$golden/causal_correct_noisy.json"
expect 0 "≈ attn_weights" "" -- check "$golden/causal_correct_noisy.json" --stage causal
expect 3 "scale_missing: " "" -- check "$golden/causal_scale_missing.json"
expect 3 '"command": "check"' "" -- check "$golden/causal_scale_missing.json" --format json
expect 3 'data-cause="scale_missing"' "" -- check "$golden/causal_scale_missing.json" --format html
expect 3 "第一处不同：attn_weights" "" -- check "$golden/causal_scale_missing.json" --lang zh
# The walk's own JSON, compared with itself; and on stdin.
"$bin" --stage multi-head --format json > "$tmp/walk.json"
expect 0 "stage multi-head" "" -- check "$tmp/walk.json"
STDIN="$tmp/walk.json" expect 0 "stage multi-head" "" -- check -
# The same dump graded under other options differs: the options shape the walk.
expect 3 "First difference: wrapper_context_vecs" "" -- check "$tmp/walk.json" --seed 5

# Bad dumps: exit 1, the file named, nothing on stdout.
echo '{"attn_weight": [[1]]}' > "$tmp/unknown.json"
expect 1 "" 'unknown.json: "attn_weight" is not a step of stage .*did you mean "attn_weights"' -- check "$tmp/unknown.json" --stage causal
echo '{}' > "$tmp/empty.json"
expect 1 "" "empty.json: the object is empty" -- check "$tmp/empty.json"
echo '{"queries": [[1, "a"]]}' > "$tmp/cell.json"
expect 1 "" 'cell.json: "queries"\[0\]\[1\]: "a" is not a number' -- check "$tmp/cell.json"
printf '{"queries": [[1, 2]\n' > "$tmp/cut.json"
expect 1 "" "cut.json: line 2, column 1: invalid JSON" -- check "$tmp/cut.json"
expect 1 "" "missing.json: cannot open" -- check "$tmp/missing.json"

# Option misuse: exit 2.
expect 2 "" "--format" -- check "$golden/causal_scale_missing.json" --format xml
expect 2 "" "--atol: must be a number ≥ 0, got -1" -- check "$golden/causal_scale_missing.json" --atol -1
expect 2 "" "--seed: must be a whole number" -- check "$golden/causal_scale_missing.json" --seed abc
expect 2 "" "dump" -- check
expect 2 "" "--heads" -- check "$tmp/walk.json" --stage multi-head --d-out 3 --heads 2
expect 2 "" "--stage: causl is not a stage; did you mean causal?" -- check "$golden/causal_scale_missing.json" --stage causl
STDIN="$tmp/walk.json" expect 2 "" "--input" -- check - --input -

# --stage gpt: a learner's GPTModel dump (forward hooks' names) with the model file, on chapter
# 4's own text by default; a Hugging Face file's slip named; --weights is required.
gpt="$2/golden/learner_gpt"
expect 0 "All 70 tensors given match" "" -- check "$gpt/book_correct_all.json" --stage gpt --weights "$2/data/gpt/book.safetensors" --heads 2
expect 3 "conv1d_not_transposed: " "" -- check "$gpt/hf_conv1d_not_transposed_all.json" --stage gpt --weights "$2/data/gpt/hf/model.safetensors"
expect 3 "First difference: tok_emb" "" -- check "$gpt/book_correct_all.json" --stage gpt --weights "$2/data/gpt/book.safetensors" --heads 2 --text "Every effort moves me"
expect 2 "" "--weights" -- check "$gpt/book_correct_all.json" --stage gpt
# --weights alone chooses stage gpt, and the report says so.
expect 3 "stage gpt (section 4.6), as --weights asked" "" -- check "$gpt/book_shortcut_missing_outputs.json" --weights "$2/data/gpt/book.safetensors" --heads 2

# --output: written whole; not at all on error.
expect 3 "" "" -- check "$golden/causal_scale_missing.json" --output "$tmp/report.txt"
grep -q "scale_missing" "$tmp/report.txt" || fail "--output: report lacks the diagnosis"
expect 1 "" "the object is empty" -- check "$tmp/empty.json" --output "$tmp/none.txt"
[ ! -e "$tmp/none.txt" ] || fail "--output written on error"

[ "$fails" = 0 ] && echo "attn-walk check CLI: ok"
exit "$fails"
