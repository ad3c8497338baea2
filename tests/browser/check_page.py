#!/usr/bin/python3
"""Checks what chromium made of an attn-walk HTML page (see test_html_chromium.sh).

Standard library only. Subcommands:
  dom FILE --steps N --svgs N --token T ...   the DOM chromium dumped (--dump-dom)
  layout FILE --width W [--heads-side-by-side yes|no]
                                             the data-layout JSON a probe script left
  png FILE --width W --height H              a screenshot: a real, non-blank PNG
Exits 1 with a message on the first failed check.
"""
import argparse
import json
import re
import struct
import sys
import zlib
from html.parser import HTMLParser


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


# Each step links to its section in the book's notebooks, or a bonus stage to its reference
# file, in the book's repository (a link; nothing is fetched).
BOOK_REPO = "https://github.com/rasbt/LLMs-from-scratch/blob/main/"
BOOK_LINK = re.compile(r"(ch0[234]/[\w./-]+\.(ipynb#[\w-]+|ipynb|py)|pkg/llms_from_scratch/\w+\.py)")

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Dom(HTMLParser):
    """Counts elements and collects the text of SVG <text> elements and token chips."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags = {}
        self.classes = {}
        self.stack = []
        self.svg_texts = []    # the whole text of each <text> (tspans joined)
        self.token_chips = []  # text of <ol class="tokens"> items
        self.html_lang = None
        self.viewport = None
        self.title = ""
        self.urls = []         # every src/href/xlink:href that is not a fragment
        self.body_layout = None
        self._text = None
        self._chip = None
        self._in_title = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags[tag] = self.tags.get(tag, 0) + 1
        for c in (a.get("class") or "").split():
            self.classes[(tag, c)] = self.classes.get((tag, c), 0) + 1
        if tag == "html":
            self.html_lang = a.get("lang")
        if tag == "meta" and a.get("name") == "viewport":
            self.viewport = a.get("content")
        if tag == "body" and "data-layout" in a:
            self.body_layout = a["data-layout"]
        for k in ("src", "href", "xlink:href", "action", "poster", "data"):
            v = a.get(k)
            if v is not None and not v.startswith("#"):
                self.urls.append(v)
        if tag == "text":
            self._text = ""
        if tag == "li" and self.stack and self.stack[-1][0] == "ol" and "tokens" in self.stack[-1][1]:
            self._chip = ""
        if tag == "title" and not any(t == "svg" for t, _ in self.stack):
            self._in_title = True
        if tag not in VOID:
            self.stack.append((tag, (a.get("class") or "").split()))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if self.stack and self.stack[-1][0] == tag:
            self.stack.pop()

    def handle_endtag(self, tag):
        if tag == "text" and self._text is not None:
            self.svg_texts.append(self._text)
            self._text = None
        if tag == "li" and self._chip is not None:
            self.token_chips.append(self._chip)
            self._chip = None
        if tag == "title":
            self._in_title = False
        if any(t == tag for t, _ in self.stack):
            while self.stack and self.stack.pop()[0] != tag:
                pass

    def handle_data(self, data):
        if self._text is not None:
            self._text += data
        if self._chip is not None:
            self._chip += data
        if self._in_title:
            self.title += data


def parse(path):
    d = Dom()
    with open(path, encoding="utf-8") as f:
        d.feed(f.read())
    return d


def check_dom(args):
    d = parse(args.file)
    steps = d.classes.get(("section", "step"), 0)
    if steps != args.steps:
        fail(f"{steps} step sections, expected {args.steps}")
    walks = d.classes.get(("section", "walk"), 0)
    if args.walks is not None and walks != args.walks:
        fail(f"{walks} walk sections, expected {args.walks}")
    svgs = d.classes.get(("svg", "heatmap"), 0)
    if svgs != args.svgs:
        fail(f"{svgs} SVG heatmaps, expected {args.svgs}")
    pres = d.classes.get(("pre", "tensor"), 0)
    if pres != args.steps:
        fail(f"{pres} printed tensors, expected one per step ({args.steps})")
    if args.explanations and d.classes.get(("p", "explanation"), 0) < args.explanations:
        fail(f"{d.classes.get(('p', 'explanation'), 0)} explanations, expected at least {args.explanations}")
    if args.checks and d.classes.get(("li", "check"), 0) < args.checks:
        fail(f"{d.classes.get(('li', 'check'), 0)} checks, expected at least {args.checks}")
    if args.toc and d.classes.get(("nav", "toc"), 0) != 1:
        fail("no table of contents")
    for tag in ("img", "iframe", "link", "object", "embed"):
        if d.tags.get(tag):
            fail(f"the page has a <{tag}> element: something was not escaped")
    # The page's own scripts: its data, the places of the engine's wasm and loader, and its
    # code; a token made none.
    if d.tags.get("script", 0) != 4:
        fail(f"the page has {d.tags.get('script', 0)} <script> elements, expected its own 4")
    urls = [u for u in d.urls if not (u.startswith(BOOK_REPO) and BOOK_LINK.fullmatch(u[len(BOOK_REPO):]))]
    if urls:
        fail(f"the page refers to URLs: {urls[:5]}")
    if d.html_lang != args.lang:
        fail(f"<html lang={d.html_lang!r}>, expected {args.lang!r}")
    if not d.viewport or "width=device-width" not in d.viewport:
        fail("no viewport meta for phones")
    if "pwned" in d.title:
        fail("a token changed the page title")
    labels = set(t.strip() for t in d.svg_texts)
    for tok in args.token or []:
        if not any(tok == t or t.endswith(" " + tok) for t in labels):
            fail(f"token {tok!r} is not an SVG heatmap label; labels: {sorted(labels)[:20]}")
    for tok in args.chip or []:
        if not any(c.endswith(tok) for c in d.token_chips):
            fail(f"token {tok!r} is not shown (as text) in the token list: {d.token_chips}")
    print(f"ok: {steps} steps, {walks} walks, {svgs} SVG heatmaps, {len(labels)} distinct labels")


def check_layout(args):
    d = parse(args.file)
    if not d.body_layout:
        fail("the layout probe did not run (no data-layout on <body>)")
    r = json.loads(d.body_layout)
    print("layout:", r)
    if r["innerWidth"] != args.width:
        fail(f"viewport is {r['innerWidth']} px wide, expected {args.width}")
    if r["scrollWidth"] > r["clientWidth"] + 1:
        fail(f"the page scrolls sideways: {r['scrollWidth']} px of content in {r['clientWidth']} px")
    if r["svgsOutside"]:
        fail(f"{r['svgsOutside']} heatmaps stick out of the screen")
    if r["svgsTiny"]:
        fail(f"{r['svgsTiny']} heatmaps are shrunk below 40% of their size")
    if r["fontSize"] < 14:
        fail(f"body text is {r['fontSize']} px")
    if r["preOverflowVisible"]:
        fail("a wide printed tensor is not scrollable in its own box")
    if args.heads_side_by_side == "yes" and not r["headsSideBySide"]:
        fail("the heads of multi-head are not side by side on a wide screen")
    if args.heads_side_by_side == "no" and r["headsSideBySide"]:
        fail("the heads of multi-head are side by side on a phone (they cannot fit)")


def check_png(args):
    with open(args.file, "rb") as f:
        data = f.read()
    if len(data) < 1000 or data[:8] != b"\x89PNG\r\n\x1a\n":
        fail(f"{args.file} is not a PNG ({len(data)} bytes)")
    width, height, depth, ctype = struct.unpack(">IIBB", data[16:26])
    if (width, height) != (args.width, args.height):
        fail(f"screenshot is {width}x{height}, expected {args.width}x{args.height}")
    idat = b""
    pos = 8
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IDAT":
            idat += data[pos + 8:pos + 8 + length]
        pos += 12 + length
    raw = zlib.decompress(idat)
    channels = {2: 3, 6: 4, 0: 1, 4: 2}.get(ctype, 3)
    row = 1 + width * channels * depth // 8
    # Unfilter just enough to tell a blank page from a drawn one: count rows whose
    # filtered bytes are not all equal (a uniform row filters to a constant).
    busy = sum(1 for y in range(height) if len(set(raw[y * row + 1:(y + 1) * row])) > 2)
    if busy < height // 5:
        fail(f"screenshot looks blank: {busy} of {height} rows have anything on them")
    print(f"ok: {width}x{height} PNG, {busy} rows with content")


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dom")
    d.add_argument("file")
    d.add_argument("--steps", type=int, required=True)
    d.add_argument("--walks", type=int)
    d.add_argument("--svgs", type=int, required=True)
    d.add_argument("--explanations", type=int, default=0)
    d.add_argument("--checks", type=int, default=0)
    d.add_argument("--toc", action="store_true")
    d.add_argument("--lang", default="en")
    d.add_argument("--token", action="append")
    d.add_argument("--chip", action="append")
    lay = sub.add_parser("layout")
    lay.add_argument("file")
    lay.add_argument("--width", type=int, required=True)
    lay.add_argument("--heads-side-by-side", choices=["yes", "no"])
    png = sub.add_parser("png")
    png.add_argument("file")
    png.add_argument("--width", type=int, required=True)
    png.add_argument("--height", type=int, required=True)
    args = p.parse_args()
    {"dom": check_dom, "layout": check_layout, "png": check_png}[args.cmd](args)


if __name__ == "__main__":
    main()
