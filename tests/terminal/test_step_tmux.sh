#!/usr/bin/env bash
# --step and --heatmap in a real terminal: tmux, 120 x 40, its own server.
#
#   tests/terminal/test_step_tmux.sh path/to/attn-walk
#
# 1. `--stage causal --step` shows the header and step 1, then waits; Enter shows step 2
#    (and not step 3); `q` + Enter quits with exit code 0 before step 3.
# 2. Without a terminal on stdin (/dev/null, a pipe), --step prints every step without
#    waiting, exactly what the walk prints without --step.
# 3. `--heatmap` on the terminal: colour by default (--color auto), none with NO_COLOR
#    or --color never; Chinese token labels line up (checked with Python's own
#    East Asian Width table, independently of attn-walk's).
# 4. At 80 columns: headings, explanations and ✓ lines wrap at words (between characters in
#    Chinese), so the terminal never cuts one; a 12-token heatmap numbers all 12 columns.
#
# Fails (never skips) when tmux is missing: `make deps` installs it.
set -euo pipefail

BIN=${1:?usage: $0 path/to/attn-walk}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
fail() { echo "FAIL: $*"; [ -n "${PANE_DUMP:-}" ] && echo "--- pane ---" && echo "$PANE_DUMP"; exit 1; }
command -v tmux >/dev/null || fail "tmux is not installed (make deps installs it)"
[ -x "$BIN" ] || fail "no attn-walk binary at $BIN"
# tmux's server daemonizes through /dev/null; if something replaced it with a plain file
# (e.g. a root process renaming a file over it), tmux dies with "server exited unexpectedly".
[ -c /dev/null ] || fail "/dev/null is not a character device, tmux cannot start (restore it: mknod -m 666 /dev/null c 1 3)"

WORK=$(mktemp -d)
# Our own server, its socket inside $WORK (removed with it), no user configuration.
TMUX_CMD=(tmux -S "$WORK/tmux.sock" -f /dev/null)
cleanup() { "${TMUX_CMD[@]}" kill-server >/dev/null 2>&1 || true; rm -rf "$WORK"; }
trap cleanup EXIT
unset TMUX NO_COLOR

# Runs a command in a fresh 120x40 window of our own tmux server; its exit code lands in
# $WORK/rc.<name> and the pane stays open afterwards so it can still be read.
start() {  # name command...
  local name=$1; shift
  rm -f "$WORK/rc.$name"
  local cmd
  printf -v cmd '%q ' "$@"
  if ! "${TMUX_CMD[@]}" has-session -t walk 2>/dev/null; then
    "${TMUX_CMD[@]}" new-session -d -s walk -x 120 -y 40 -n "$name" \
      "$cmd; echo \$? > $WORK/rc.$name; sleep 600"
  else
    "${TMUX_CMD[@]}" new-window -d -t walk -n "$name" "$cmd; echo \$? > $WORK/rc.$name; sleep 600"
  fi
  "${TMUX_CMD[@]}" set-option -t walk -g history-limit 10000 >/dev/null
}
pane() { "${TMUX_CMD[@]}" capture-pane -p -J -S - -E - -t "walk:$1" "${@:2}"; }
# Waits until the pane shows `text` (a fixed string), up to 10 s.
wait_for() {  # name text
  for _ in $(seq 100); do
    PANE_DUMP=$(pane "$1")
    grep -qF -- "$2" <<<"$PANE_DUMP" && return 0
    sleep 0.1
  done
  fail "'$2' did not appear in window $1"
}
wait_rc() {  # name -> prints the exit code
  for _ in $(seq 100); do
    [ -s "$WORK/rc.$1" ] && { cat "$WORK/rc.$1"; return 0; }
    sleep 0.1
  done
  PANE_DUMP=$(pane "$1")
  fail "window $1: the command did not exit"
}

echo "== --step waits for Enter and quits on q"
start step "$BIN" --stage causal --step
wait_for step "[1] queries"
wait_for step "Enter"                     # the prompt, on stderr
sleep 0.5                                 # it must really be waiting, not slow
PANE_DUMP=$(pane step)
grep -qF "[2] keys" <<<"$PANE_DUMP" && fail "step 2 appeared before Enter"
[ -e "$WORK/rc.step" ] && fail "attn-walk exited without waiting"
"${TMUX_CMD[@]}" send-keys -t walk:step Enter
wait_for step "[2] keys"
sleep 0.5
PANE_DUMP=$(pane step)
grep -qF "[3] attn_scores" <<<"$PANE_DUMP" && fail "step 3 appeared after a single Enter"
"${TMUX_CMD[@]}" send-keys -t walk:step q Enter
rc=$(wait_rc step)
[ "$rc" = 0 ] || fail "attn-walk --step exited $rc after q"
PANE_DUMP=$(pane step)
grep -qF "[3] attn_scores" <<<"$PANE_DUMP" && fail "step 3 was printed after q"
echo "ok: step 1, Enter, step 2, q, exit 0"

echo "== --step without a terminal on stdin does not wait"
"$BIN" --stage causal >"$WORK/plain.txt"
timeout 10 "$BIN" --stage causal --step </dev/null >"$WORK/devnull.txt" 2>"$WORK/devnull.err" ||
  fail "--step with stdin from /dev/null did not finish (exit $?)"
cmp -s "$WORK/plain.txt" "$WORK/devnull.txt" || fail "--step </dev/null printed something else than the walk"
[ -s "$WORK/devnull.err" ] && fail "--step </dev/null prompted: $(cat "$WORK/devnull.err")"
# A pipe on stdin (process substitution, so the writer's SIGPIPE when attn-walk exits without
# reading cannot fail the pipeline under pipefail).
timeout 10 "$BIN" --stage causal --step < <(echo "") >"$WORK/pipe.txt" 2>&1 ||
  fail "--step with stdin from a pipe did not finish"
cmp -s "$WORK/plain.txt" "$WORK/pipe.txt" || fail "--step with a pipe on stdin printed something else"
n=$(grep -c '^\[[0-9]*\] ' "$WORK/pipe.txt")
# The walk's steps as its JSON dump counts them (--list-steps names each step once, and a
# stage may repeat a name).
steps=$("$BIN" --stage causal --format json | /usr/bin/python3 -c 'import json, sys; print(len(json.load(sys.stdin)["steps"]))')
[ "$n" -eq "$steps" ] || fail "$n steps printed, the walk has $steps"
echo "ok: $n steps, no prompt"

echo "== --heatmap on a terminal"
cat >"$WORK/zh.json" <<'EOF'
{"tokens": ["你的", "旅程", "从", "一步", "开始", "supercalifragilistic"],
 "embeddings": [[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]]}
EOF
start color "$BIN" --stage causal --heatmap --only attn_weights_causal --input "$WORK/zh.json"
[ "$(wait_rc color)" = 0 ] || fail "--heatmap exited non-zero"
PANE_DUMP=$(pane color -e)
# The cells of the rows (lines that start with a position), not just the legend.
ROWS=$(grep -E '^[0-9]' <<<"$PANE_DUMP" || true)  # no pipe: grep -q's early exit could SIGPIPE it
grep -qE $'\e\\[[0-9;]*48;5;[0-9]+' <<<"$ROWS" ||
  fail "no 256-colour backgrounds in the heatmap rows with --color auto on a terminal"
start nocolor env NO_COLOR=1 "$BIN" --stage causal --heatmap --only attn_weights_causal --input "$WORK/zh.json"
[ "$(wait_rc nocolor)" = 0 ] || fail "--heatmap with NO_COLOR exited non-zero"
PANE_DUMP=$(pane nocolor -e)
grep -qE $'\e\\[[0-9;]*48;5;' <<<"$PANE_DUMP" && fail "colour despite NO_COLOR"
grep -qF "░" <<<"$PANE_DUMP" || fail "no shading without colour"
grep -qF "··" <<<"$PANE_DUMP" || fail "no exact-zero marks without colour"
start never "$BIN" --stage causal --heatmap --color never --only masked --input "$WORK/zh.json"
[ "$(wait_rc never)" = 0 ] || fail "--color never exited non-zero"
PANE_DUMP=$(pane never -e)
grep -qE $'\e\\[[0-9;]*48;5;' <<<"$PANE_DUMP" && fail "colour despite --color never"
grep -qF "××" <<<"$PANE_DUMP" || fail "no masked marks for -inf"

# Alignment, as the terminal laid it out: every heatmap row's cells start at the same
# width, and each column label ends over the right edge of its own cell.
pane nocolor >"$WORK/nocolor.txt"
/usr/bin/python3 - "$WORK/nocolor.txt" <<'EOF' || { PANE_DUMP=$(cat "$WORK/nocolor.txt"); fail "heatmap columns do not line up"; }
import sys, unicodedata
def width(s):
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
start = next(i for i, l in enumerate(lines) if l.startswith("heatmap of"))
rows = [l for l in lines[start:] if l[:1].isdigit()]
assert len(rows) == 6, rows
# Numbers in the cells: every row is its label and then 6 cells of 7 columns.
widths = {width(l) for l in rows}
assert len(widths) == 1, f"rows end at columns {widths}"
col0 = widths.pop() - 6 * 7
header = lines[start + 1]
for k, label in enumerate(["你的", "旅程", "从", "一步", "开始", "super…"]):
    i = header.index(label)
    end = width(header[:i]) + width(header[i:].split()[0])
    assert end == col0 + 7 * (k + 1), f"label {label} ends at column {end}, its cell at {col0 + 7 * (k + 1)}"
print("ok: cells at column", col0)
EOF
echo "== 80 columns: headings, explanations and checks wrap at words, not where the terminal cuts"
"${TMUX_CMD[@]}" new-session -d -s narrow -x 80 -y 50 -n zh \
  "$(printf '%q ' "$BIN" --stage causal --explain --lang zh --text 注意力就是你所需要的); echo \$? > $WORK/rc.zh; sleep 600"
"${TMUX_CMD[@]}" new-window -d -t narrow -n en \
  "$(printf '%q ' "$BIN" --stage causal --explain --text 'Your journey starts with one step'); echo \$? > $WORK/rc.en; sleep 600"
"${TMUX_CMD[@]}" new-window -d -t narrow -n hm \
  "$(printf '%q ' "$BIN" --stage causal --heatmap --color never --only attn_weights_causal --random-input 12x4); echo \$? > $WORK/rc.hm; sleep 600"
"${TMUX_CMD[@]}" set-option -t narrow -g history-limit 10000 >/dev/null
for w in zh en hm; do
  for _ in $(seq 100); do [ -s "$WORK/rc.$w" ] && break; sleep 0.1; done
  [ "$(cat "$WORK/rc.$w" 2>/dev/null)" = 0 ] || fail "80 columns, $w: attn-walk did not finish with 0"
  "${TMUX_CMD[@]}" capture-pane -p -S - -E - -t "narrow:$w" >"$WORK/narrow-$w.txt"
  "${TMUX_CMD[@]}" capture-pane -p -J -S - -E - -t "narrow:$w" >"$WORK/narrow-$w-joined.txt"
done
# Every heading, explanation and check of the walk is there whole (wrapping only moved words
# to the next line), compared without spaces with the walk written to a pipe (never wrapped).
"$BIN" --stage causal --explain --lang zh --text 注意力就是你所需要的 >"$WORK/wide-zh.txt"
"$BIN" --stage causal --explain --text 'Your journey starts with one step' >"$WORK/wide-en.txt"
/usr/bin/python3 - "$WORK" <<'EOF2' || { PANE_DUMP=$(cat "$WORK/narrow-zh.txt"); fail "80 columns: a heading or check is not whole, or the terminal cut one"; }
import re, sys, unicodedata
work = sys.argv[1]
def width(s):
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
long_lines = 0
for lang in ("zh", "en"):
    pane = open(f"{work}/narrow-{lang}.txt", encoding="utf-8").read()
    flat = re.sub(r"[\s│]", "", pane)
    for line in open(f"{work}/wide-{lang}.txt", encoding="utf-8").read().splitlines():
        if not (line.startswith("[") or line.startswith("│") or line.startswith("✓") or line.startswith("✗")):
            continue
        if width(line) > 80:
            long_lines += 1
        assert re.sub(r"[\s│]", "", line) in flat, f"{lang}: not whole in the pane: {line}"
    # capture-pane -J joins the lines the terminal itself wrapped: none of the walk's own
    # words may be (a printed tensor or Python list is as print() writes it, and may be).
    joined = open(f"{work}/narrow-{lang}-joined.txt", encoding="utf-8").read()
    for l in joined.splitlines():
        # Headings, explanations, checks, the header, and their wrapped lines (2 or 4 spaces
        # in; a tensor's lines start with more, or with a bracket or a number).
        if re.match(r"(\[\d+\] |│|✓|✗|attn-walk|input|输入| {2,4}[^\s\[\d-])", l):
            assert width(l) <= 80, f"{lang}: the terminal cut a line {width(l)} columns wide: {l}"
assert long_lines >= 5, f"only {long_lines} lines longer than 80 columns: the test tests nothing"
print(f"ok: {long_lines} long headings, explanations and checks wrapped at words")
EOF2
# 12 tokens in compact cells: every column's position, 10, 11 and 12 included, written downwards.
grep -qE '^ +1 1 1$' "$WORK/narrow-hm.txt" && grep -qE '^ +1 2 3 4 5 6 7 8 9 0 1 2$' "$WORK/narrow-hm.txt" ||
  { PANE_DUMP=$(cat "$WORK/narrow-hm.txt"); fail "12 tokens: the column positions are not 1 to 12"; }
echo "ok: 12 column positions"

echo "PASS: terminal checks"
