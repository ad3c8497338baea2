"""Writing golden files, the one way every make_*_goldens.py writes them.

A golden is one JSON document per file: compact (no spaces after "," and ":"), or with
json.dump's `indent` where a file is meant to be read, and ending in a newline. A set of
goldens replaces the previous set in its folder whole, so that a configuration that is gone
leaves no stale file behind, and each file written is named on stdout with what it holds.

    from golden_files import write_json, write_goldens
    write_goldens(OUT, ((name + ".json", golden(name)) for name in NAMES),
                  lambda path, doc: f"{len(doc['steps'])} steps")

Standard library only: the generators import it beside torch_env.
"""
import glob
import json
import os


def write_json(path, doc, indent=None, ensure_ascii=True, sort_keys=False):
    """Writes `doc` to `path` as compact JSON and a newline; returns `path`."""
    with open(path, "w", encoding="utf-8", newline="") as f:
        json.dump(doc, f, indent=indent, separators=(",", ":"), ensure_ascii=ensure_ascii, sort_keys=sort_keys)
        f.write("\n")
    return path


def write_goldens(out, docs, describe, replace="*.json", indent=None, ensure_ascii=True):
    """Writes each (file name, document) of `docs` into the folder `out` (write_json), and
    prints each path with describe(path, doc). First removes the files of `out` that match the
    glob `replace` (None: keeps every file). `docs` may be a generator: each document is made
    after the old files are gone and just before it is written. A document that is None (a
    configuration that has none) is skipped."""
    os.makedirs(out, exist_ok=True)
    if replace is not None:
        for old in glob.glob(os.path.join(out, replace)):
            os.remove(old)
    for name, doc in docs:
        if doc is None:
            continue
        path = write_json(os.path.join(out, name), doc, indent=indent, ensure_ascii=ensure_ascii)
        print(f"{path}: {describe(path, doc)}")
