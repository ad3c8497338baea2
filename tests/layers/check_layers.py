#!/usr/bin/env python3
"""The include rules between src/'s folders (docs/architecture.md draws them).

Reads every `#include "..."` line of the C++ files under src/ and fails, naming file:line,
where a folder includes one it may not, or where two folders include each other. Includes are
written relative to src/ ("core/tensor.h"), so an include's folder is its first component.

    python3 tests/layers/check_layers.py [SRC_DIR]     # SRC_DIR defaults to the repository's src/
    python3 tests/layers/check_layers.py --picture     # the layers as docs/architecture.md draws them
    python3 tests/layers/check_layers.py --picture-check FILE   # exit 1 unless FILE draws them so
    python3 tests/layers/check_layers.py --picture-into FILE    # write the picture into FILE (make docs)

Exit 0: the rules hold. Exit 1: every break listed on stderr. Standard library only.
"""

import fnmatch
import os
import re
import sys
from collections import namedtuple

# ---- the table ------------------------------------------------------------------------------
# The layers, top to bottom. A folder may include the folders of the rows below its own; not
# the other folders of its own row, and nothing above.
LAYERS = [
    ["cli", "web"],              # interfaces: the command line, the page
    ["request"],                 # a walk request: options, config, input, make_walks
    ["render"],                  # presentation: walks, check reports, bench reports as text, JSON, HTML
    ["check", "bench"],          # the commands beside the walk: grading a learner's dump, timing
    ["stages"],                  # the chapter's sections as named steps recorded into a Walk
    ["modules", "text", "lang"], # the chapter's classes; the GPT-2 tokenizer; every learner-facing text
    ["ops"],                     # the tensor operations
    ["kernels"],                 # the fast kernels (AVX2, AVX-512, NEON, WebAssembly SIMD128), same bits as the reference
    ["torch"],                   # the reference: PyTorch's and OpenBLAS's bits, the generator
    ["input", "weights"],        # reading embeddings: JSON, .npy, the stream, the size limits;
                                 # reading a GPT's weights: safetensors, torch.save's zip, pickles
    ["core"],                    # tensor, walk, config, output, UTF-8, the instruction set
]
# Narrower than the rows: these folders may include only the folders listed.
ONLY = {
    # Renderers print walks and reports and know nothing of attention: the reports they
    # format (check/, bench/), the texts and the core.
    "render": {"check", "bench", "lang", "core"},
    "lang": {"core"},  # texts only
    "weights": {"core"},  # the weights readers: files in, float32 views out
    "alloc": set(),    # the executable's operator new: stands alone
}
# Folders no other folder may include.
STANDALONE = {"alloc"}

# Single includes allowed against the rules above: (file pattern relative to src/, included
# header) and why. They still count as edges for the two-way check unless tie_ok.
Allowed = namedtuple("Allowed", "files header why tie_ok", defaults=(False,))
EXCEPTIONS = [
    # The two interfaces share a row: --format html embeds the page's controls' data, which web/
    # builds; web/ includes nothing of cli/, so this runs one way.
    Allowed("cli/cli.cpp", "web/page_data.h",
            "--format html embeds the page's controls' data, built in web/ (one way: web/ "
            "includes nothing of cli/)"),
    Allowed("cli/main.cpp", "web/page_errors.h",
            "an error of a --lang zh command line is said in the page's words for it (one way: "
            "web/ includes nothing of cli/)"),
]

# ---- the check ------------------------------------------------------------------------------
Rules = namedtuple("Rules", "layers only standalone exceptions")
RULES = Rules(LAYERS, ONLY, STANDALONE, EXCEPTIONS)

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
SOURCE_SUFFIXES = (".h", ".hpp", ".cpp", ".cc", ".cxx", ".inc")

Include = namedtuple("Include", "file line header")  # file relative to src/, 1-based line


def read_includes(src):
    """Every quoted include under src, in path order."""
    found = []
    for root, dirs, files in os.walk(src):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith(SOURCE_SUFFIXES):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, src).replace(os.sep, "/")
            with open(path, encoding="utf-8", errors="replace") as f:
                for number, text in enumerate(f, 1):
                    m = INCLUDE.match(text)
                    if m:
                        found.append(Include(rel, number, m.group(1)))
    return found


def folder_of(rel):
    return rel.split("/", 1)[0] if "/" in rel else ""


def allowed(rules, frm, to):
    """None if folder `frm` may include folder `to`, else the reason it may not."""
    if to in rules.standalone:
        return f"{to}/ stands alone: nothing includes it"
    if frm in rules.only and to not in rules.only[frm]:
        allowed_list = ", ".join(f"{f}/" for f in sorted(rules.only[frm])) or "nothing"
        return f"{frm}/ may include only {allowed_list}"
    if frm in rules.only:
        return None
    row = {f: i for i, names in enumerate(rules.layers) for f in names}
    if row[to] == row[frm]:
        return f"{frm}/ and {to}/ are one layer: neither includes the other"
    if row[to] < row[frm]:
        return f"{to}/ is a layer above {frm}/"
    return None


def exception_for(rules, inc):
    for e in rules.exceptions:
        if inc.header == e.header and fnmatch.fnmatch(inc.file, e.files):
            return e
    return None


def unused_exceptions(src, rules=RULES):
    """The exceptions no include under src needs any more (to delete from the table)."""
    used = {exception_for(rules, inc) for inc in read_includes(src)}
    return [e for e in rules.exceptions if e not in used]


def check(src, rules=RULES):
    """The breaks of `rules` under src, as messages (empty: none)."""
    known = {f for names in rules.layers for f in names} | set(rules.only) | set(rules.standalone)
    errors = []
    for name in sorted(os.listdir(src)):
        if os.path.isdir(os.path.join(src, name)) and name not in known:
            errors.append(f"src/{name}/: a folder the layer table does not name "
                          f"(add it to tests/layers/check_layers.py and docs/architecture.md)")
    edges = {}  # (from, to) -> the first include making it, for the two-way check
    for inc in read_includes(src):
        where = f"src/{inc.file}:{inc.line}"
        frm, to = folder_of(inc.file), folder_of(inc.header)
        if not frm or frm not in known:
            continue  # a file directly in src/ (none today), or a folder named above as unknown
        if not to or to not in known:
            errors.append(f'{where}: #include "{inc.header}": includes are written relative to '
                          f"src/, starting with a folder the layer table names")
            continue
        if to == frm:
            continue
        exception = exception_for(rules, inc)
        why_not = allowed(rules, frm, to)
        if why_not and not exception:
            errors.append(f'{where}: #include "{inc.header}": {frm}/ may not include {to}/ ({why_not})')
        if not (exception and exception.tie_ok):
            edges.setdefault((frm, to), inc)
    for (frm, to), inc in sorted(edges.items()):
        if frm < to and (to, frm) in edges:
            back = edges[(to, frm)]
            errors.append(f"two-way tie between {frm}/ and {to}/: src/{inc.file}:{inc.line} includes "
                          f'"{inc.header}" and src/{back.file}:{back.line} includes "{back.header}"')
    return errors


# ---- the picture (docs/architecture.md) -------------------------------------------------------
PICTURE_BEGIN = "<!-- BEGIN GENERATED layers: python3 tests/layers/check_layers.py --picture -->"
PICTURE_END = "<!-- END GENERATED layers -->"


def row_notes():
    """Each row's comment in the LAYERS table above, by the row's first folder: what it holds."""
    notes = {}
    with open(os.path.abspath(__file__), encoding="utf-8") as f:
        text = f.read()
    block = text[text.index("LAYERS = ["):text.index("\n]\n", text.index("LAYERS = ["))]
    for m in re.finditer(r'^\s*\[([^\]]*)\],?\s*#\s*(.*)$', block, re.M):
        first = re.findall(r'"([^"]+)"', m.group(1))
        if first:
            notes[first[0]] = m.group(2).strip()
    return notes


def picture(rules=RULES):
    """The layers, top to bottom, as docs/architecture.md shows them (a fenced block)."""
    notes = row_notes()
    lines = ["```",
             "A folder may include the folders of every row with a larger number than its own (any",
             "row below, not only the next), never a smaller one, and not another folder of its own",
             "row. [only ...]: a narrower rule.",
             ""]
    for i, row in enumerate(rules.layers, 1):
        folders = "  ".join(f"{name}/" for name in row)
        note = notes.get(row[0], "")
        narrower = [f"{name}/: only {', '.join(f'{o}/' for o in sorted(rules.only[name])) or 'nothing'}"
                    for name in row if name in rules.only]
        lines.append(f"{i:>3}  {folders:<24}{note}".rstrip())
        for n in narrower:
            lines.append(f"{'':>3}  {'':<24}[{n}]")
    lines.append("")
    for name in sorted(rules.standalone):
        lines.append(f"{'':>3}  {name + '/':<24}stands alone: includes nothing, included by nothing")
    lines.append("```")
    return "\n".join(lines) + "\n"


def with_picture(text, rules=RULES):
    """`text` (docs/architecture.md) with the picture between its markers; None without them."""
    if PICTURE_BEGIN not in text or PICTURE_END not in text:
        return None
    head, rest = text.split(PICTURE_BEGIN, 1)
    _, tail = rest.split(PICTURE_END, 1)
    return head + PICTURE_BEGIN + "\n" + picture(rules) + PICTURE_END + tail


def picture_command(flag, path):
    if flag == "--picture":
        sys.stdout.write(picture())
        return 0
    with open(path, encoding="utf-8") as f:
        text = f.read()
    new = with_picture(text)
    if new is None:
        print(f"check_layers: {path}: no lines {PICTURE_BEGIN} and {PICTURE_END}", file=sys.stderr)
        return 1
    if flag == "--picture-into":
        if new != text:
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
        return 0
    if new != text:
        print(f"check_layers: {path} does not draw the layers of this table "
              f"(python3 tests/layers/check_layers.py --picture-into {path}, or make docs)", file=sys.stderr)
        return 1
    print(f"check_layers: {path} draws the layers of the table")
    return 0


def main(argv):
    if len(argv) > 1 and argv[1] in ("--picture", "--picture-check", "--picture-into"):
        if argv[1] != "--picture" and len(argv) != 3:
            print(f"check_layers: {argv[1]} FILE", file=sys.stderr)
            return 2
        return picture_command(argv[1], argv[2] if len(argv) > 2 else None)
    src = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src")
    if not os.path.isdir(src):
        print(f"check_layers: {src}: no such folder", file=sys.stderr)
        return 2
    errors = check(src)
    for e in errors:
        print(e, file=sys.stderr)
    if errors:
        print(f"check_layers: {len(errors)} break(s) of the include rules (docs/architecture.md)", file=sys.stderr)
        return 1
    for e in unused_exceptions(src):
        print(f'check_layers: note: no include needs the exception for {e.files} -> "{e.header}" any more')
    print(f"check_layers: {len(read_includes(src))} includes under {os.path.normpath(src)} follow the layers")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
