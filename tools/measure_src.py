#!/usr/bin/env python3
"""The numbers docs/architecture.md gives for src/: file sizes, function sizes, and the include
ties that run both ways, so that they can be measured again on any checkout.

    python3 tools/measure_src.py [SRC_DIR] [--list]

Files: every .h/.cpp under SRC_DIR, counted in lines; src/lang/ holds the text tables (one
language's texts each), which the 400-line rule exempts, and they are counted apart.
Functions: definitions as Universal Ctags finds them (ctags --fields=+ne: first and last line),
lambdas counted in the function that holds them. Ties: folder pairs that include each other
(files directly in SRC_DIR count as one folder, "src/"), and unit pairs (x.h with x.cpp) that
include each other. --list names every file, function and tie over the limits.
Needs ctags (Debian's universal-ctags); standard library otherwise.
"""

import os
import re
import shutil
import subprocess
import sys
from collections import defaultdict

FILE_LIMIT = 400
FUNCTION_LIMIT = 100
TEXT_TABLES = ("lang/",)  # text tables: exempt from the file rule
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def sources(src):
    out = []
    for root, dirs, files in os.walk(src):
        dirs.sort()
        for name in sorted(files):
            if name.endswith((".h", ".cpp")):
                out.append(os.path.relpath(os.path.join(root, name), src).replace(os.sep, "/"))
    return out


def line_count(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return sum(1 for _ in f)


def functions(src, files):
    """(length, name, file, line) of every function definition."""
    if not shutil.which("ctags"):
        sys.exit("measure_src: needs ctags (apt-get install universal-ctags)")
    out = subprocess.run(["ctags", "--fields=+ne", "--kinds-C++=f", "--language-force=C++", "-o", "-"] + files,
                         cwd=src, check=True, capture_output=True, text=True).stdout
    found = []
    for row in out.splitlines():
        cols = row.split("\t")
        fields = dict(c.split(":", 1) for c in cols[3:] if ":" in c)
        if "line" in fields and "end" in fields:
            first, last = int(fields["line"]), int(fields["end"])
            found.append((last - first + 1, cols[0], cols[1], first))
    return found


def unit_of(rel):
    return rel.rsplit(".", 1)[0]


def folder_of(rel):
    return rel.split("/", 1)[0] if "/" in rel else "src"


def ties(src, files):
    """Folder pairs and unit pairs that include each other, each with one include per way."""
    folder_edges, unit_edges = {}, {}
    for rel in files:
        with open(os.path.join(src, rel), encoding="utf-8", errors="replace") as f:
            for number, text in enumerate(f, 1):
                m = INCLUDE.match(text)
                if not m:
                    continue
                header = m.group(1)
                where = f"{rel}:{number} -> {header}"
                if folder_of(rel) != folder_of(header):
                    folder_edges.setdefault((folder_of(rel), folder_of(header)), where)
                if unit_of(rel) != unit_of(header):
                    unit_edges.setdefault((unit_of(rel), unit_of(header)), where)

    def both_ways(edges):
        return [(a, b, edges[(a, b)], edges[(b, a)]) for (a, b) in sorted(edges) if a < b and (b, a) in edges]

    return both_ways(folder_edges), both_ways(unit_edges)


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    listing = "--list" in argv
    src = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
    files = sources(src)
    sizes = {rel: line_count(os.path.join(src, rel)) for rel in files}
    tables = [f for f in files if f.startswith(TEXT_TABLES)]
    long_files = sorted((n, f) for f, n in sizes.items() if n > FILE_LIMIT and f not in tables)
    long_tables = sorted((n, f) for f, n in sizes.items() if n > FILE_LIMIT and f in tables)
    funcs = functions(src, files)
    long_funcs = sorted((f for f in funcs if f[0] > FUNCTION_LIMIT), reverse=True)
    folder_ties, unit_ties = ties(src, files)

    print(f"source files (.h, .cpp): {len(files)}, {sum(sizes.values())} lines")
    print(f"files over {FILE_LIMIT} lines, text tables (src/lang/) apart: {len(long_files)}"
          + (f" (longest {long_files[-1][0]})" if long_files else ""))
    print(f"text tables over {FILE_LIMIT} lines: {len(long_tables)}")
    print(f"functions: {len(funcs)}; over {FUNCTION_LIMIT} lines: {len(long_funcs)}"
          + (f" (longest {long_funcs[0][0]})" if long_funcs else ""))
    print(f"folder pairs including each other: {len(folder_ties)}")
    print(f"unit pairs (x.h with x.cpp) including each other: {len(unit_ties)}")
    if listing:
        for n, f in reversed(long_files + long_tables):
            print(f"  file {f}: {n} lines")
        for n, name, f, line in long_funcs:
            print(f"  function {name} ({f}:{line}): {n} lines")
        for a, b, one, other in folder_ties + unit_ties:
            print(f"  tie {a} <-> {b}: {one}; {other}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
