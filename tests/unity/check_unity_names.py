#!/usr/bin/env python3
"""File-local names must be unique across the library's .cpp files (docs/architecture.md, rule 5).

The library is a unity build (CMakeLists.txt): sixteen .cpp files are compiled as one unit, so two
files that each define a helper of the same name in an anonymous namespace, or as `static`, or a
namespace-scope `const`/`constexpr` variable (internal linkage too), meet in one unit whenever
CMake batches them together, and the build fails with a "redefinition" far from either file.
Which files share a batch changes as files are added, so every pair counts.

    python3 tests/unity/check_unity_names.py [SRC_DIR]    # SRC_DIR defaults to the repository's src/

Exit 0: every file-local name is defined in one file. Exit 1: each name defined in two or more
files, with every file:line, on stderr. Standard library only. A heuristic reader of C++ (comments,
strings and preprocessor lines skipped; declarations read at namespace scope), not a compiler.
"""

import os
import re
import sys

# Files not in a unity batch: the executables' own files, and the per-ISA kernels, which are
# compiled alone for their instruction set (CMakeLists.txt).
NOT_BATCHED = [r"^cli/main\.cpp$", r"^alloc/", r"^web/tool/", r"^web/wasm/", r"_avx2\.cpp$", r"_avx512\.cpp$"]

KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "decltype", "alignof", "static_assert",
            "operator", "noexcept", "template", "typename", "const", "constexpr", "static", "inline"}


def blank_comments_and_strings(text):
    """The text with comments, string and character literals and preprocessor lines as spaces
    (newlines kept, so line numbers hold)."""
    out = []
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c == "#":  # a preprocessor line, with its continuations
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append(" \n")
                    i += 2
                    continue
                out.append(" ")
                i += 1
            continue
        if c == "\n":
            line_start = True
            out.append(c)
            i += 1
            continue
        if not c.isspace():
            line_start = False
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(" " * (j - i))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def declared_name(stmt):
    """The name a namespace-scope declaration introduces, or None."""
    s = re.sub(r"\s+", " ", stmt).strip()
    s = re.sub(r"^template ?<.*?> ?(?=[a-zA-Z])", "", s)
    if not s or s.startswith(("static_assert", "using namespace", "extern ", "friend ")):
        return None
    if s.startswith("using ") and "=" not in s:
        return None  # a using-declaration (using input_detail::fail;) may be repeated
    m = re.match(r"(?:\w+ )*?(?:struct|class|union|enum(?: class| struct)?) (\w+)", s)
    if m:
        return m.group(1)
    m = re.match(r"using (\w+) ?=", s)
    if m:
        return m.group(1)
    # The first '(' '=' '[' or '{' at angle-bracket depth 0 ends the declarator's name.
    depth = 0
    for k, ch in enumerate(s):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(0, depth - 1)
        elif depth == 0 and ch in "(=[{":
            words = re.findall(r"[A-Za-z_]\w*", s[:k])
            if words and words[-1] not in KEYWORDS and len(words) >= 2:
                return words[-1]
            return None
    words = re.findall(r"[A-Za-z_]\w*", s)
    return words[-1] if len(words) >= 2 and words[-1] not in KEYWORDS else None


def file_local_names(text):
    """{name: line} of the names a .cpp file keeps to itself, each qualified by the named
    namespaces around it ("attn::kernels::Buffer"): only the same name in the same namespace
    meets in a unit."""
    code = blank_comments_and_strings(text)
    names = {}
    scopes = []  # "anon", "ns" or "other", innermost last
    spaces = []  # the named namespaces' names, for each "ns" scope
    stmt_start = 0
    i = 0
    while i < len(code):
        c = code[i]
        if c in "{;}":
            stmt = code[stmt_start:i]
            scope = scopes[-1] if scopes else "ns"
            line = code.count("\n", 0, stmt_start + len(stmt) - len(stmt.lstrip())) + 1
            flat = re.sub(r"\s+", " ", stmt).strip()
            if c == "{" and re.fullmatch(r"(?:inline )?namespace", flat):
                scopes.append("anon")
            elif c == "{" and re.fullmatch(r"(?:inline )?namespace [\w:]+", flat):
                scopes.append("ns")
                spaces.append(flat.split(" ")[-1])
            else:
                if scope in ("anon", "ns") and flat and c != "}":
                    local = scope == "anon" or re.match(r"(?:inline )?static ", flat) or (
                        re.match(r"(?:inline )?(?:const|constexpr) ", flat) and "(" not in flat.split("=")[0])
                    if local and (c == ";" or c == "{"):
                        name = declared_name(stmt)
                        if name:
                            names.setdefault("::".join(spaces + [name]), line)
                if c == "{":
                    scopes.append("other")
                elif c == "}" and scopes:
                    if scopes.pop() == "ns":
                        spaces.pop()
            stmt_start = i + 1
            # An initializer or body closes with its own '}'; skip to its end at this depth.
            if c == "{" and scopes and scopes[-1] == "other":
                depth, j = 1, i + 1
                while j < len(code) and depth:
                    depth += {"{": 1, "}": -1}.get(code[j], 0)
                    j += 1
                scopes.pop()
                # What follows ("} x;" of a struct, "};" of an initializer) names nothing new.
                i = j
                stmt_start = j
                continue
        i += 1
    return names


def batched_files(src):
    for root, dirs, files in os.walk(src):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith(".cpp"):
                continue
            rel = os.path.relpath(os.path.join(root, name), src).replace(os.sep, "/")
            if not any(re.search(p, rel) for p in NOT_BATCHED):
                yield rel


def clashes(src):
    """{name: [(file, line), ...]} for every file-local name defined in two or more files."""
    where = {}
    for rel in batched_files(src):
        with open(os.path.join(src, rel), encoding="utf-8", errors="replace") as f:
            for name, line in file_local_names(f.read()).items():
                where.setdefault(name, []).append((rel, line))
    return {name: places for name, places in sorted(where.items()) if len(places) > 1}


def main(argv):
    src = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src")
    if not os.path.isdir(src):
        print(f"check_unity_names: {src}: no such folder", file=sys.stderr)
        return 2
    found = clashes(src)
    for name, places in found.items():
        files = ", ".join(f"src/{f}:{line}" for f, line in places)
        print(f"'{name}' is file-local in {len(places)} files, which a unity batch may join: {files} "
              f"(rename one after its file's job, or share it from a header)", file=sys.stderr)
    if found:
        print(f"check_unity_names: {len(found)} file-local name(s) defined twice (docs/architecture.md, rule 5)",
              file=sys.stderr)
        return 1
    count = sum(1 for _ in batched_files(src))
    print(f"check_unity_names: the file-local names of {count} files under {os.path.normpath(src)} are unique")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
