#!/usr/bin/env python3
"""check_layers.py must be able to fail: planted bad includes in small trees are named, file
and line, and a tree that keeps the rules passes. Run by ctest; standard library only."""

import contextlib
import io
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_layers  # noqa: E402
from check_layers import Allowed, Rules, check  # noqa: E402


class Tree:
    """A throw-away src/ with the given files: {relative path: text}."""

    def __init__(self, files):
        self._dir = tempfile.TemporaryDirectory()
        self.src = self._dir.name
        for rel, text in files.items():
            path = os.path.join(self.src, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)

    def __enter__(self):
        return self.src

    def __exit__(self, *exc):
        self._dir.cleanup()


# A tree that keeps the real table's rules: each folder includes only folders below it.
GOOD = {
    "core/tensor.h": "#pragma once\n",
    "core/walk.h": '#pragma once\n#include "core/tensor.h"\n',
    "torch/fma32.h": '#pragma once\n#include "core/tensor.h"\n',
    "kernels/gemm.h": '#pragma once\n#include "torch/fma32.h"\n',
    "ops/ops.cpp": '#include "ops/ops.h"\n#include "kernels/gemm.h"\n#include <vector>\n',
    "ops/ops.h": "#pragma once\n",
    "stages/causal.cpp": '#include "ops/ops.h"\n// #include "render/render.h" in a comment\n',
    "render/text.cpp": '#include "core/walk.h"\n#include "lang/lang.h"\n',
    "lang/lang.h": '#pragma once\n#include "core/walk.h"\n',
    "cli/main.cpp": '#include "render/text.h"\n#include "stages/stages.h"\n',
    "alloc/big_blocks.cpp": "#include <new>\n",
}


def with_file(rel, text):
    files = dict(GOOD)
    files[rel] = text
    return files


class RealTable(unittest.TestCase):
    def test_a_tree_that_keeps_the_rules_passes(self):
        with Tree(GOOD) as src:
            self.assertEqual(check(src), [])

    def test_a_lower_layer_including_a_higher_one_is_named_with_its_line(self):
        with Tree(with_file("core/tensor.cpp", '#include "core/tensor.h"\n\n#include "stages/stages.h"\n')) as src:
            errors = check(src)
        self.assertTrue(any(e.startswith('src/core/tensor.cpp:3: #include "stages/stages.h": core/ may not include stages/')
                            for e in errors), errors)

    def test_the_reference_may_not_include_the_fast_kernels(self):
        with Tree(with_file("torch/sgemm_order.h", '#pragma once\n#include "kernels/gemm.h"\n')) as src:
            errors = check(src)
        self.assertTrue(any(e.startswith("src/torch/sgemm_order.h:2:") for e in errors), errors)
        # kernels/gemm.h includes torch/fma32.h: with the planted include the folders tie.
        self.assertTrue(any(e.startswith("two-way tie between kernels/ and torch/") for e in errors), errors)

    def test_one_row_does_not_include_itself_across_folders(self):
        with Tree(with_file("modules/chapter.cpp", '#include "text/tokenizer.h"\n')) as src:
            errors = check(src)
        self.assertTrue(any("src/modules/chapter.cpp:1:" in e and "one layer" in e for e in errors), errors)

    def test_renderers_include_nothing_of_attention(self):
        # ops/ is below render/ in the rows, but render/ may include only what ONLY lists.
        with Tree(with_file("render/json.cpp", '#include "core/walk.h"\n#include "ops/ops.h"\n')) as src:
            errors = check(src)
        self.assertTrue(any(e.startswith('src/render/json.cpp:2: #include "ops/ops.h": render/ may not include ops/')
                            for e in errors), errors)

    def test_nothing_includes_the_standalone_allocator(self):
        with Tree(with_file("cli/main.cpp", '#include "alloc/big_blocks.h"\n')) as src:
            errors = check(src)
        self.assertTrue(any("src/cli/main.cpp:1:" in e and "alloc/ stands alone" in e for e in errors), errors)

    def test_unknown_folders_and_includes_without_a_folder_fail(self):
        files = with_file("core/walk.cpp", '#include "tensor.h"\n')
        files["newthing/x.cpp"] = "\n"
        with Tree(files) as src:
            errors = check(src)
        self.assertTrue(any(e.startswith('src/core/walk.cpp:1: #include "tensor.h"') for e in errors), errors)
        self.assertTrue(any(e.startswith("src/newthing/:") for e in errors), errors)

    def test_the_command_line_fails_and_names_the_break(self):
        with Tree(with_file("input/npy.h", '#pragma once\n#include "text/utf8.h"\n')) as src:
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                code = check_layers.main(["check_layers.py", src])
        self.assertEqual(code, 1)
        self.assertIn('src/input/npy.h:2: #include "text/utf8.h": input/ may not include text/', err.getvalue())


class Picture(unittest.TestCase):
    """The picture docs/architecture.md shows is printed from the table, so it changes with it."""

    def test_each_row_its_folders_and_its_narrower_rule(self):
        rules = Rules(layers=[["a", "b"], ["c"]], only={"c": {"a"}}, standalone={"z"}, exceptions=[])
        text = check_layers.picture(rules)
        self.assertIn("  1  a/  b/", text)
        self.assertIn("  2  c/", text)
        self.assertIn("[c/: only a/]", text)
        self.assertIn("z/", text)
        self.assertIn("any\nrow below", text)

    def test_a_file_that_draws_other_rows_fails_the_check(self):
        begin, end = check_layers.PICTURE_BEGIN, check_layers.PICTURE_END
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "architecture.md")
            with open(path, "w", encoding="utf-8") as f:
                f.write(f"# A\n{begin}\nold picture\n{end}\nrest\n")
            with contextlib.redirect_stderr(io.StringIO()):
                self.assertEqual(check_layers.main(["x", "--picture-check", path]), 1)
            with contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(check_layers.main(["x", "--picture-into", path]), 0)
                self.assertEqual(check_layers.main(["x", "--picture-check", path]), 0)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            self.assertTrue(text.startswith(f"# A\n{begin}\n```\n"), text)
            self.assertTrue(text.endswith(f"```\n{end}\nrest\n"), text)


class Exceptions(unittest.TestCase):
    RULES = Rules(layers=[["a"], ["b"], ["c"]], only={}, standalone=set(), exceptions=[])

    def test_an_exception_allows_one_include_and_no_other(self):
        rules = self.RULES._replace(exceptions=[Allowed("c/one.cpp", "b/b.h", "why")])
        files = {"b/b.h": "\n", "c/one.cpp": '#include "b/b.h"\n', "c/two.cpp": '#include "b/b.h"\n'}
        with Tree(files) as src:
            errors = check(src, rules)
        self.assertEqual(len(errors), 1, errors)
        self.assertTrue(errors[0].startswith("src/c/two.cpp:1:"), errors)

    def test_an_exception_that_closes_a_loop_is_a_two_way_tie(self):
        rules = self.RULES._replace(exceptions=[Allowed("c/*", "a/a.h", "why")])
        files = {"a/a.cpp": '#include "c/c.h"\n', "c/c.cpp": '#include "a/a.h"\n', "a/a.h": "", "c/c.h": ""}
        with Tree(files) as src:
            errors = check(src, rules)
        self.assertEqual(errors, ['two-way tie between a/ and c/: src/a/a.cpp:1 includes "c/c.h" and '
                                  'src/c/c.cpp:1 includes "a/a.h"'])
        # Marked as a known tie being removed, it passes.
        rules = self.RULES._replace(exceptions=[Allowed("c/*", "a/a.h", "why", tie_ok=True)])
        with Tree(files) as src:
            self.assertEqual(check(src, rules), [])


if __name__ == "__main__":
    unittest.main()
