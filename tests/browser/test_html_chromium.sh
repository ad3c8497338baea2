#!/usr/bin/env bash
# The HTML page in a real browser: Debian's chromium, headless, no network.
#
#   tests/browser/test_html_chromium.sh path/to/attn-walk
#
# 1. `--stage all` with hostile and Chinese tokens: chromium's DOM has one section per
#    step, one <pre> per tensor, the expected number of SVG heatmaps, the tokens as SVG
#    labels, and no element or URL that a token could have smuggled in.
# 2. `--lang zh`: lang="zh-CN" and the Chinese tokens as labels.
# 3. Layout, measured by chromium at phone (390 px) and desktop (1280 px) widths: no
#    sideways scrolling of the page, heatmaps inside the screen, heads of multi-head
#    side by side on the desktop and stacked on the phone.
# 4. Screenshots at both widths are real, non-blank PNGs (kept in $ATTN_WALK_SHOTS if set).
#
# Fails (never skips) when chromium is missing: `make deps` installs it.
set -euo pipefail

BIN=${1:?usage: $0 path/to/attn-walk}
HERE=$(cd "$(dirname "$0")" && pwd)
CHECK="/usr/bin/python3 $HERE/check_page.py"

fail() { echo "FAIL: $*"; exit 1; }
command -v chromium >/dev/null || fail "chromium is not installed (make deps installs Debian's chromium)"
[ -x "$BIN" ] || fail "no attn-walk binary at $BIN"

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# No network at all: every host name fails to resolve, so a page that tried to fetch
# anything could not get it (and the DOM checks below find no URL to fetch).
chrome() {
  timeout 90 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --disable-default-apps --disable-extensions --mute-audio --hide-scrollbars \
    --host-resolver-rules="MAP * ~NOTFOUND" \
    --user-data-dir="$(mktemp -d "$WORK/profile.XXXXXX")" "$@" 2>"$WORK/chromium.log"
}

# Six tokens: two hostile, one with quotes and ampersands, two Chinese, one plain.
cat >"$WORK/tokens.json" <<'EOF'
{"tokens": ["<script>document.title='pwned'</script>", "\"&'", "你好", "旅程", "<img src=x onerror=alert(1)>", "step"],
 "embeddings": [[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]]}
EOF

# How many steps a walk shows: the JSON dump's steps, one per step section of the page.
# (--list-steps names each step once, and some stages repeat names.)
count_steps() {
  "$BIN" "$@" --format json | /usr/bin/python3 -c 'import json, sys; print(len(json.load(sys.stdin)["steps"]))'
}

echo "== --stage all, hostile tokens"
"$BIN" --stage all --input "$WORK/tokens.json" --format html --output "$WORK/all.html"
steps=$(count_steps --stage all --input "$WORK/tokens.json")
[ "$steps" -gt 50 ] || fail "only $steps steps in --stage all"
chrome --dump-dom "file://$WORK/all.html" >"$WORK/all.dom.html" || fail "chromium could not render the page"
# Heatmaps with six tokens: dot-product 2, softmax 1, causal 8, dropout 3, multi-head
# 3 steps x 2 heads (batch 1 repeats batch 0, drawn once) = 20.
$CHECK dom "$WORK/all.dom.html" --steps "$steps" --walks 6 --svgs 20 --toc --checks 1 \
  --token '"&'"'" --token 你好 --token 旅程 --token step \
  --chip "<script>document.title='pwned'</script>" --chip "<img src=x onerror=alert(1)>" --chip 你好

echo "== --lang zh"
"$BIN" --stage causal --input "$WORK/tokens.json" --lang zh --format html --output "$WORK/zh.html"
chrome --dump-dom "file://$WORK/zh.html" >"$WORK/zh.dom.html"
$CHECK dom "$WORK/zh.dom.html" --steps "$(count_steps --stage causal)" --walks 1 \
  --svgs 8 --lang zh-CN --token 你好 --token 旅程

echo "== layout on a phone and on a desktop"
"$BIN" --stage all --format html --output "$WORK/book.html"
# The page, untouched, in an iframe of the phone's or the desktop's width (a real
# viewport: media queries and max-width apply); a probe in the outer page measures it
# once it has loaded and writes the numbers on <body> for --dump-dom.
probe() {  # width height
  cat >"$WORK/probe-$1.html" <<EOF
<!DOCTYPE html><html><body style="margin:0">
<iframe id="f" src="book.html" style="width:$1px;height:$2px;border:0"></iframe>
<script>
document.getElementById("f").onload = function () {
  var w = this.contentWindow, d = this.contentDocument, de = d.documentElement, out = 0, tiny = 0, side = null;
  d.querySelectorAll("svg.heatmap").forEach(function (s) {
    var r = s.getBoundingClientRect();
    if (r.right > w.innerWidth + 1 || r.left < -1) out++;
    if (r.width < 0.4 * Number(s.getAttribute("width"))) tiny++;
  });
  var preVis = Array.prototype.some.call(d.querySelectorAll("pre.tensor"), function (p) {
    return p.scrollWidth > p.clientWidth && w.getComputedStyle(p).overflowX === "visible";
  });
  var rows = d.querySelectorAll(".hm-row");
  for (var i = 0; i < rows.length && side === null; i++) {
    var f = rows[i].querySelectorAll("figure");
    if (f.length > 1) side = Math.abs(f[0].getBoundingClientRect().top - f[1].getBoundingClientRect().top) < 2;
  }
  document.body.setAttribute("data-layout", JSON.stringify({innerWidth: w.innerWidth,
    scrollWidth: de.scrollWidth, clientWidth: de.clientWidth, svgsOutside: out, svgsTiny: tiny,
    fontSize: parseFloat(w.getComputedStyle(d.body).fontSize), preOverflowVisible: preVis,
    headsSideBySide: side}));
};
</script></body></html>
EOF
  chrome --allow-file-access-from-files --window-size=1400,1000 --dump-dom "file://$WORK/probe-$1.html" \
    >"$WORK/probe-$1.dom.html" || fail "chromium could not render the probe page"
}
probe 390 844
$CHECK layout "$WORK/probe-390.dom.html" --width 390 --heads-side-by-side no
probe 1280 900
$CHECK layout "$WORK/probe-1280.dom.html" --width 1280 --heads-side-by-side yes

echo "== screenshots"
chrome --window-size=390,844 --screenshot="$WORK/phone.png" "file://$WORK/book.html" >/dev/null
$CHECK png "$WORK/phone.png" --width 390 --height 844
chrome --window-size=1280,900 --screenshot="$WORK/desktop.png" "file://$WORK/book.html" >/dev/null
$CHECK png "$WORK/desktop.png" --width 1280 --height 900
if [ -n "${ATTN_WALK_SHOTS:-}" ]; then
  mkdir -p "$ATTN_WALK_SHOTS"
  cp "$WORK"/*.png "$WORK"/*.html "$ATTN_WALK_SHOTS"/
fi

# A page for 1024 tokens stays small (heatmaps are summarised, tensors are PyTorch's summary).
echo "== a big input stays small"
"$BIN" --stage causal --random-input 1024x16 --format html --output "$WORK/big.html"
size=$(stat -c %s "$WORK/big.html")
[ "$size" -lt 2000000 ] || fail "the page for 1024 tokens is $size bytes"
chrome --dump-dom "file://$WORK/big.html" >"$WORK/big.dom.html"
$CHECK dom "$WORK/big.dom.html" --steps "$(count_steps --stage causal)" --walks 1 --svgs 8 \
  --token x1 --token x1024
echo "PASS: browser checks ($size bytes for 1024 tokens)"
