#!/usr/bin/env python3
"""The attn_walk package outside a notebook: converting values, the errors a learner gets,
check_module's hooks, working without torch, writing no file, and the dump shim.

    test_package.py BINARY REPO      (unittest; ctest runs it as notebook_package)
"""
import contextlib
import io
import json
import math
import os
import subprocess
import sys
import tempfile
import unittest

BINARY, REPO = (sys.argv[1], sys.argv[2]) if len(sys.argv) >= 3 else (None, None)
sys.argv[1:] = sys.argv[3:]
sys.path.insert(0, os.path.join(REPO, "python"))
os.environ["ATTN_WALK"] = BINARY

import attn_walk  # noqa: E402
from attn_walk import AttnWalkError  # noqa: E402

sys.path.insert(0, os.path.join(REPO, "tests", "golden"))
import torch_env  # noqa: E402,F401  OpenBLAS's kernel, before PyTorch loads it

try:
    import torch  # noqa: E402
    import torch.nn as nn  # noqa: E402
except ImportError:  # the ordinary test run needs no PyTorch: only WithoutTorch and Magics run
    torch = None

    class nn:  # noqa: N801  stands in for torch.nn in the class bodies below, never used
        Module = object

needs_torch = unittest.skipIf(torch is None, "needs python3-torch (make torch-deps)")


def chapter(stage, **options):
    return attn_walk.walk(stage, **options)


@needs_torch
class Conversion(unittest.TestCase):
    def test_tensors_parameters_arrays_lists_and_modules(self):
        w = chapter("causal")
        # -inf in a tensor, through stdin as -Infinity: equal, bit for bit.
        r = attn_walk.check(masked=w["masked"], stage="causal")
        self.assertTrue(r.ok)
        self.assertEqual([(s.name, s.mark, s.status) for s in r.steps], [("masked", "✓", "equal")])
        # numpy arrays, nested lists, float64 (rounded to float32 as PyTorch would hold it), a
        # Parameter, an integer tensor (the mask), a bool tensor.
        r = attn_walk.check(queries=w["queries"].numpy(), keys=w["keys"].tolist(),
                            attn_scores=w["attn_scores"].double(), attn_weights=nn.Parameter(w["attn_weights"]),
                            mask=w["mask"].long(), mask_simple=w["mask_simple"].bool(), stage="causal")
        self.assertTrue(r.ok, str(r))
        self.assertEqual(len(r.steps), 6)
        self.assertTrue(all(s.status == "equal" for s in r.steps))
        # An nn.Linear counts as its weight.
        t = chapter("trainable")
        lin = nn.Linear(3, 2, bias=False)
        with torch.no_grad():
            lin.weight.copy_(t["sa_v2.W_query.weight"])
        r = attn_walk.check({"sa_v2.W_query.weight": lin}, stage="trainable")
        self.assertTrue(r.ok)
        self.assertEqual(r.steps[0].name, "sa_v2.W_query.weight")

    def test_nan_is_graded_not_refused(self):
        w = chapter("causal")["attn_weights"].clone()
        w[0, 0] = math.nan
        r = attn_walk.check(attn_weights=w, stage="causal")
        self.assertFalse(r.ok)
        self.assertEqual(r.first_step, "attn_weights")
        self.assertEqual(r.steps[0].mark, "✗")

    def test_options_reach_the_binary(self):
        self.assertEqual(tuple(chapter("causal", d_out=4)["queries"].shape), (6, 4))
        w = chapter("multi-head", d_out=4, heads=2, qkv_bias=True)
        r = attn_walk.check(keys=w["keys"], stage="multi-head", d_out=4, heads=2, qkv_bias=True)
        self.assertTrue(r.ok)
        r = attn_walk.check(keys=w["keys"], stage="multi-head", d_out=4, heads=2)  # without the bias
        self.assertFalse(r.ok)
        self.assertIn("bias_left_on", r.causes)
        zh = attn_walk.check(keys=w["keys"], stage="multi-head", d_out=4, heads=2, lang="zh")
        self.assertIn("第一处不同", str(zh))
        self.assertIn('lang="zh"', zh._repr_html_())
        # `batch` is a step (the tensor) and an option (a number): each is read as what it is.
        mh = chapter("multi-head")
        self.assertTrue(attn_walk.check(batch=mh["batch"], stage="multi-head").ok)

    def test_the_notebook_names_and_their_aliases(self):
        w = chapter("causal")
        ns = {k: w[k] for k in ("queries", "keys", "attn_scores", "mask", "masked")}
        ns["attn_weights"] = w["attn_weights_causal"]  # the chapter's last attn_weights
        r = attn_walk.check(namespace=ns)
        self.assertEqual(r.stage, "causal")
        self.assertTrue(r.ok, str(r))
        # The stage came from the names, and the report says so (not "as --stage asked").
        self.assertEqual(r.data["stage_chosen_by"], "names")
        self.assertEqual(attn_walk.check(namespace=ns, stage="causal").data["stage_chosen_by"], "option")
        self.assertEqual(r.sources["attn_weights_causal"], "attn_weights")
        self.assertNotIn("attn_weights", r.sources)
        # Before the mask, attn_weights is the unmasked one.
        del ns["masked"]
        ns["attn_weights"] = w["attn_weights"]
        r = attn_walk.check(namespace=ns)
        self.assertTrue(r.ok)
        self.assertEqual(r.sources["attn_weights"], "attn_weights")
        # An alias left over from another section (shape not the chapter's here) is not read.
        mh = chapter("multi-head")
        ns = {"batch": mh["batch"], "context_vecs": torch.zeros(2, 6, 4), "mha": nn.Module()}
        ns["mha"].out_proj = nn.Linear(2, 2)
        r = attn_walk.check(namespace=ns)
        self.assertEqual(r.stage, "multi-head")
        self.assertNotIn("mha_context_vecs", [s.name for s in r.steps])


@needs_torch
class Errors(unittest.TestCase):
    def assertClear(self, cm, *words):
        message = str(cm.exception)
        for w in words:
            self.assertIn(w, message)
        # In a notebook: the message alone, no traceback through attn_walk.
        self.assertEqual(cm.exception._render_traceback_(), [f"AttnWalkError: {message}"])

    def test_a_variable_of_an_unknown_type(self):
        with self.assertRaises(AttnWalkError) as cm:
            attn_walk.check(namespace={"queries": "not a tensor", "keys": torch.zeros(6, 2)}, stage="causal")
        self.assertClear(cm, "queries", "str")
        with self.assertRaises(AttnWalkError) as cm:
            attn_walk.check(attn_weights={"a": 1}, stage="causal")
        self.assertClear(cm, "attn_weights", "dict")
        with self.assertRaises(AttnWalkError) as cm:
            attn_walk.check(attn_weights=nn.ReLU(), stage="causal")
        self.assertClear(cm, "attn_weights", "ReLU", "check_module")

    def test_a_tensor_of_the_wrong_shape(self):
        with self.assertRaises(AttnWalkError) as cm:
            attn_walk.check(attn_weights=[[0.5, 0.5], [1.0]], stage="causal")
        self.assertClear(cm, "attn_weights", "rows are not all the same shape",
                         "attn_weights[1] has shape [1] where attn_weights[0] has [2]")
        # A rectangular tensor of another shape is the learner's mistake: graded, with its shape.
        r = attn_walk.check(row_sums=chapter("causal")["row_sums"].flatten(), stage="causal")
        self.assertEqual(r.first_step, "row_sums")
        self.assertIn("keepdim_missing", r.causes)
        self.assertIsNone(r.steps[0].max_abs_diff)
        self.assertEqual(r.steps[0].shape, (6,))

    def test_a_module_whose_forward_fails(self):
        class Broken(nn.Module):
            def __init__(self):
                super().__init__()
                self.W_query = nn.Linear(3, 2)

            def forward(self, x):
                return self.W_query(x) @ torch.zeros(5, 5)

        m = Broken()
        with self.assertRaises(AttnWalkError) as cm:
            attn_walk.check_module(m, torch.zeros(6, 3))
        self.assertClear(cm, "your Broken's forward raised RuntimeError")
        self.assertEqual(sum(len(s._forward_hooks) for s in m.modules()), 0)
        with self.assertRaises(AttnWalkError) as cm:
            attn_walk.check_module(m, [[1.0]])
        self.assertClear(cm, "x is a list")

    def test_a_relative_binary_is_the_one_named(self):
        saved = os.environ["ATTN_WALK"]
        cwd = os.getcwd()
        try:
            os.chdir(os.path.dirname(saved))
            os.environ["ATTN_WALK"] = os.path.basename(saved)  # "attn-walk", here: not PATH's
            self.assertTrue(attn_walk.check(masked=chapter("causal")["masked"], stage="causal").ok)
        finally:
            os.chdir(cwd)
            os.environ["ATTN_WALK"] = saved

    def test_a_missing_binary(self):
        saved = os.environ.pop("ATTN_WALK"), os.environ["PATH"], attn_walk._binary._REPO_BUILD
        try:
            os.environ["PATH"] = "/nonexistent"
            attn_walk._binary._REPO_BUILD = "/nonexistent/build/attn-walk"
            with self.assertRaises(AttnWalkError) as cm:
                attn_walk.check(attn_weights=[[1.0]], stage="causal")
            self.assertClear(cm, "not found", "make build", "ATTN_WALK")
            os.environ["ATTN_WALK"] = "/nonexistent/attn-walk"
            with self.assertRaises(AttnWalkError) as cm:
                attn_walk.walk("causal")
            self.assertClear(cm, "ATTN_WALK", "/nonexistent/attn-walk", "not an executable")
            # attn_walk.BINARY comes after the environment variable, before PATH.
            del os.environ["ATTN_WALK"]
            attn_walk.BINARY = saved[0]
            self.assertTrue(attn_walk.check(masked=chapter("causal")["masked"], stage="causal").ok)
        finally:
            attn_walk.BINARY = None
            os.environ["ATTN_WALK"], os.environ["PATH"], attn_walk._binary._REPO_BUILD = saved

    def test_the_binary_exiting_with_an_error(self):
        with self.assertRaises(AttnWalkError) as cm:
            attn_walk.check(querys=[[1.0, 2.0]], stage="causal")
        self.assertClear(cm, '"querys" is not a step of stage causal; did you mean "queries"?')
        with self.assertRaises(AttnWalkError) as cm:
            attn_walk.walk("multi-head", heads=3, d_out=4)
        self.assertClear(cm, "heads")
        with self.assertRaises(AttnWalkError) as cm:
            attn_walk.check(attn_weights=[[1.0]], stage="causal", colour="red")
        self.assertClear(cm, "unknown option colour=")


@needs_torch
class CheckModule(unittest.TestCase):
    def test_hooks_are_removed_and_the_module_is_unchanged(self):
        torch.manual_seed(123)

        class MultiHeadAttention(nn.Module):  # the book's, shortened
            def __init__(self):
                super().__init__()
                self.d_out, self.num_heads, self.head_dim = 2, 2, 1
                self.W_query, self.W_key, self.W_value = (nn.Linear(3, 2, bias=False) for _ in range(3))
                self.out_proj = nn.Linear(2, 2)
                self.dropout = nn.Dropout(0.0)
                self.register_buffer("mask", torch.triu(torch.ones(6, 6), diagonal=1))

            def forward(self, x):
                b, t, _ = x.shape
                k = self.W_key(x).view(b, t, 2, 1).transpose(1, 2)
                q = self.W_query(x).view(b, t, 2, 1).transpose(1, 2)
                v = self.W_value(x).view(b, t, 2, 1).transpose(1, 2)
                s = (q @ k.transpose(2, 3)).masked_fill(self.mask.bool()[:t, :t], -torch.inf)
                w = self.dropout(torch.softmax(s / k.shape[-1] ** 0.5, dim=-1))
                return self.out_proj((w @ v).transpose(1, 2).contiguous().view(b, t, 2))

        m = MultiHeadAttention()
        before = {k: v.clone() for k, v in m.state_dict().items()}
        r = attn_walk.check_module(m, chapter("multi-head")["batch"])
        self.assertTrue(r.ok, str(r))
        self.assertEqual(r.stage, "multi-head")
        self.assertEqual({s.name for s in r.steps}, {"queries", "keys", "values", "attn_weights", "context_vec_merged",
                                                      "out_proj.weight", "out_proj.bias", "mha_context_vecs"})
        self.assertEqual(sum(len(s._forward_hooks) for s in m.modules()), 0)
        self.assertTrue(all(torch.equal(before[k], v) for k, v in m.state_dict().items()))
        self.assertTrue(m.training)

    def test_a_module_of_no_chapter_class_needs_its_stage(self):
        with self.assertRaises(AttnWalkError) as cm:
            attn_walk.check_module(nn.Linear(3, 2), torch.zeros(6, 3))
        self.assertIn("give stage=", str(cm.exception))


@needs_torch
class Grads(unittest.TestCase):
    def test_prefix_names_grads_as_the_models_named_parameters(self):
        # chapter 5's out_head, holding the walk's own gradient: named with the prefix, check
        # finds the step and grades it equal; without it ("weight.grad"), check says which name.
        ref = attn_walk.walk("backward")["out_head.weight.grad"]
        out_head = nn.Linear(ref.shape[1], ref.shape[0], bias=False)
        out_head.weight.grad = ref.clone()
        frozen = nn.Parameter(torch.zeros(2), requires_grad=False)  # no .grad: left out
        named = list(out_head.named_parameters()) + [("frozen", frozen)]
        g = attn_walk.grads(named, prefix="out_head.")
        self.assertEqual(list(g), ["out_head.weight.grad"])
        self.assertIs(g["out_head.weight.grad"], out_head.weight.grad)
        r = attn_walk.check(g, stage="backward")
        self.assertTrue(r.ok, str(r))
        self.assertEqual([(s.name, s.status) for s in r.steps], [("out_head.weight.grad", "equal")])
        self.assertEqual(list(attn_walk.grads(out_head.named_parameters())), ["weight.grad"])
        with self.assertRaises(AttnWalkError) as e:
            attn_walk.check(attn_walk.grads(out_head.named_parameters()), stage="backward")
        self.assertIn('"out_head.weight.grad"', str(e.exception))
        self.assertIn('prefix="<module>."', str(e.exception))


@needs_torch
class CheckModuleGpt(unittest.TestCase):
    def test_a_gpt_model_in_training_mode_is_refused_before_any_hook(self):
        sys.path.insert(0, os.path.join(REPO, "tests", "golden"))
        from book_gpt import GPTModel
        cfg = {"vocab_size": 50257, "context_length": 16, "emb_dim": 8, "n_heads": 2, "n_layers": 1,
               "drop_rate": 0.1, "qkv_bias": True}
        torch.manual_seed(123)
        model = GPTModel(cfg)  # nn.Module starts in training mode
        idx = torch.tensor([[6109, 3626, 6100, 345]])
        with self.assertRaises(AttnWalkError) as e:
            attn_walk.check_module(model, idx, weights="unused.pth")
        self.assertIn("model.eval()", str(e.exception))
        self.assertEqual(sum(len(m._forward_hooks) for m in model.modules()), 0)
        model.eval()
        with self.assertRaises(AttnWalkError) as e:  # eval(), but no weights file to grade against
            attn_walk.check_module(model, idx)
        self.assertIn("weights=", str(e.exception))
        self.assertTrue(not model.training)


@needs_torch
class NoFiles(unittest.TestCase):
    def test_check_writes_no_file(self):
        calls = []
        saved = tempfile.mkstemp, tempfile.NamedTemporaryFile, tempfile.mkdtemp

        def refuse(*a, **k):
            calls.append(a)
            raise AssertionError("attn_walk made a temporary file")
        with tempfile_dir() as d:
            tempfile.mkstemp = tempfile.NamedTemporaryFile = tempfile.mkdtemp = refuse
            try:
                cwd = os.getcwd()
                os.chdir(d)
                try:
                    r = attn_walk.check(masked=chapter("causal")["masked"], stage="causal")
                    str(r), r._repr_html_()
                finally:
                    os.chdir(cwd)
            finally:
                tempfile.mkstemp, tempfile.NamedTemporaryFile, tempfile.mkdtemp = saved
            self.assertEqual(os.listdir(d), [])
        self.assertEqual(calls, [])


@contextlib.contextmanager
def tempfile_dir():
    d = tempfile.mkdtemp(prefix="attn_walk_test.")
    try:
        yield d
    finally:
        for f in os.listdir(d):
            os.unlink(os.path.join(d, f))
        os.rmdir(d)


@needs_torch
class DumpShim(unittest.TestCase):
    def test_the_shim_writes_what_the_old_helper_wrote(self):
        sys.path.insert(0, os.path.join(REPO, "tools"))
        from attn_walk_dump import dump  # noqa: E402
        golden = os.path.join(REPO, "tests", "golden", "check", "book", "causal_correct_noisy.json")
        with open(golden, encoding="utf-8") as f:
            original = f.read()
        cells = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}
        data = json.loads(original, parse_constant=float)

        def back(v):
            return [back(x) for x in v] if isinstance(v, list) else cells.get(v, v) if isinstance(v, str) else v
        with tempfile_dir() as d:
            path = os.path.join(d, "mine.json")
            dump(path, {k: torch.tensor(back(v)) for k, v in data.items()})
            with open(path, encoding="utf-8") as f:
                self.assertEqual(f.read(), original)
            self.assertEqual(os.listdir(d), ["mine.json"])


class WithoutTorch(unittest.TestCase):
    def test_plain_lists_without_torch(self):
        code = f"""
import sys
sys.modules["torch"] = None  # import torch fails, as on a machine without it
sys.path.insert(0, {os.path.join(REPO, 'python')!r})
import attn_walk
w = attn_walk.walk("causal")
assert isinstance(w["masked"], list) and w["masked"][0][1] == float("-inf"), w["masked"][0]
r = attn_walk.check(masked=w["masked"], attn_weights=w["attn_weights"], stage="causal")
assert r.ok and [s.status for s in r.steps] == ["equal", "equal"], str(r)
ns = dict(queries=w["queries"], keys=w["keys"], attn_scores=w["attn_scores"], attn_weights=w["attn_weights"])
ns["queries"][0][0] += 0.5
r = attn_walk.check(namespace=ns)
assert r.stage == "causal" and r.first_step == "queries" and not r.ok, repr(r)
assert 'data-first-step="queries"' in r._repr_html_()
try:
    attn_walk.check_module(object(), [[1.0]])
except attn_walk.AttnWalkError as e:
    assert "not an nn.Module" in str(e), e
else:
    raise AssertionError("check_module accepted an object")
print("without torch: ok")
"""
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env=dict(os.environ, ATTN_WALK=BINARY))
        self.assertEqual(out.returncode, 0, out.stderr + out.stdout)
        self.assertIn("without torch: ok", out.stdout)


class Magics(unittest.TestCase):
    def test_options_as_the_cli_spells_them(self):
        from attn_walk._magics import parse_options
        self.assertEqual(parse_options(["--stage", "causal", "--qkv-bias", "--seed", "7", "--lang=zh"]),
                         {"stage": "causal", "qkv_bias": True, "seed": "7", "lang": "zh"})
        with self.assertRaises(AttnWalkError):
            parse_options(["causal"])

    def test_the_magic_reads_the_notebook_namespace(self):
        from attn_walk._magics import run_magic
        w = attn_walk.walk("causal")
        r = run_magic("check --stage causal", {"queries": w["queries"]})
        self.assertTrue(r.ok)
        page = run_magic("walk --stage causal --heatmap", {})
        self.assertTrue(page._repr_html_().startswith('<iframe class="attn-walk-page"'))
        self.assertNotIn("<script", page._repr_html_())  # the page is escaped into srcdoc


if __name__ == "__main__":
    unittest.main(verbosity=1)
