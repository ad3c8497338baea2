#!/usr/bin/env python3
"""check_unity_names.py must be able to fail: a planted clash of file-local names in a small tree
is named with both files, and what may repeat (a using-declaration, names in function bodies,
classes' members, files compiled alone) is not. Run by ctest; standard library only."""

import contextlib
import io
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_unity_names  # noqa: E402


def tree(files):
    d = tempfile.TemporaryDirectory()
    for rel, text in files.items():
        path = os.path.join(d.name, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    return d


A = """// a.cpp
#include "x/a.h"
namespace attn {
namespace {
// helper() in a comment, and "helper(" in a string, are not definitions
const char* kName = "helper()";
int helper(int x) { return x + 1; }
struct Local { static int count; int member(); };
using input_detail::fail;
}  // namespace
static double scale(double v) { return v * 2; }
constexpr int kLimit = 4;
const std::vector<int>& shared_list() { static const std::vector<int> v = {1}; return v; }
int run() { int inner = helper(1); return inner; }
}  // namespace attn
"""


class Clashes(unittest.TestCase):
    def names(self, text):
        return set(check_unity_names.file_local_names(text))

    def test_what_a_file_keeps_to_itself(self):
        self.assertEqual(self.names(A), {"attn::" + n for n in ("kName", "helper", "Local", "scale", "kLimit")})

    def test_the_same_name_in_another_namespace_is_another_name(self):
        b = "namespace attn::kernels {\nnamespace {\nint helper(int x) { return x; }\n}\n}\n"
        with tree({"x/a.cpp": A, "y/b.cpp": b}) as src:
            self.assertEqual(check_unity_names.clashes(src), {})

    def test_a_planted_clash_names_both_files(self):
        b = 'namespace attn {\nnamespace {\n\nbool helper(float a) { return a > 0; }\n}\n}\n'
        with tree({"x/a.cpp": A, "y/b.cpp": b}) as src:
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                code = check_unity_names.main(["check_unity_names.py", src])
        self.assertEqual(code, 1)
        self.assertIn("'attn::helper' is file-local in 2 files", err.getvalue())
        self.assertIn("src/x/a.cpp:7", err.getvalue())
        self.assertIn("src/y/b.cpp:4", err.getvalue())

    def test_static_and_constants_clash_too(self):
        b = "namespace attn {\nstatic int scale(int v) { return v; }\nconstexpr int kLimit = 8;\n}\n"
        with tree({"x/a.cpp": A, "y/b.cpp": b}) as src:
            found = check_unity_names.clashes(src)
        self.assertEqual(set(found), {"attn::scale", "attn::kLimit"})

    def test_what_may_repeat_passes(self):
        b = ("namespace attn {\nnamespace {\nusing input_detail::fail;\n}\n"
             "int run2() { int inner = 0; return inner; }\nint shared_user() { return 1; }\n}\n")
        per_isa = "namespace attn {\nnamespace {\nint helper(int x) { return x; }\n}\n}\n"
        with tree({"x/a.cpp": A, "y/b.cpp": b, "kernels/k_avx2.cpp": per_isa, "cli/main.cpp": per_isa}) as src:
            with contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(check_unity_names.main(["check_unity_names.py", src]), 0)


if __name__ == "__main__":
    unittest.main()
