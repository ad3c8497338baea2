"""Goldens for `attn-walk check` on a whole notebook: one dump of everything a learner's notebook
computed, sections 3.3 to 3.6, with a slip made in section 3.5 and a correct MultiHeadAttention.

    /usr/bin/python3 tests/golden/make_learner_notebook_goldens.py      (or: make goldens)

The learner's cells are make_check_goldens.py's (real PyTorch), run in the chapter's order;
a name the notebook binds again (keys, attn_scores, attn_weights, batch, ...) keeps its last
value, as a dump of the notebook's variables does. The slip is in the learner's section 3.5.1
cells and in their CausalAttention class (so the wrapper of section 3.6.1, built from it, has it
too); their MultiHeadAttention of section 3.6.2 is the book's. For each stage, the expected
grade comes from PyTorch: the stages whose values the dump's names hold, and for each the first
step (in the stage's order) not torch.allclose to the correct one.

Writes tests/golden/check_notebook/ (cases.json and the dumps) for tests/test_check_notebook.cpp.
"""
import torch_env  # noqa: F401  (before torch: OpenBLAS's kernel)

import json
import os
import shutil
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
from attn_walk_dump import dump  # noqa: E402
from make_check_goldens import (JOURNEY, MISTAKES, OPTION_DEFAULTS, first_difference, run_learner,  # noqa: E402
                                to_cfg, walk_order)

OUT = os.path.join(HERE, "check_notebook")
STAGES = ["dot-product", "trainable", "causal", "dropout", "multi-head"]
# The steps of the multi-head stage that the learner's CausalAttention class computes.
BUILT_FROM_CAUSAL_ATTENTION = {"wrapper_context_vecs", "exercise_3_2_context_vecs"}
# Slips of section 3.5 (None: a correct notebook).
SLIPS = [None, "mask_filled_with_zero", "scale_missing"]


def learner_stages(cfg, m):
    """{stage: {step: tensor}} as the learner's notebook computes each stage: the slip `m` in
    section 3.5.1's cells and the CausalAttention class, not in MultiHeadAttention."""
    out = {}
    for stage in STAGES:
        slipped = m if stage in ("causal", "dropout") else None
        steps = run_learner(cfg, stage, slipped)
        if stage == "multi-head" and m:
            with_slip = run_learner(cfg, stage, m)
            for name in BUILT_FROM_CAUSAL_ATTENTION:
                steps[name] = with_slip[name]
        out[stage] = steps
    return out


def whole_notebook(stages):
    """The notebook's tensors: later sections' bindings replace earlier ones."""
    notebook = {}
    for stage in STAGES:
        notebook.update(stages[stage])
    return notebook


def holders(name, value, stages):
    """The stages whose own value of `name` the notebook's tensor is (bit for bit)."""
    return [s for s in STAGES if name in stages[s] and stages[s][name].shape == value.shape
            and torch.equal(stages[s][name], value)]


def case(cfg, m):
    mine = learner_stages(cfg, m)
    correct = {stage: run_learner(cfg, stage, None) for stage in STAGES}
    notebook = whole_notebook(mine)
    held = {name: holders(name, t, mine) for name, t in notebook.items()}
    # Graded: the stages holding a name no other stage holds.
    graded = [s for s in STAGES if any(h == [s] for h in held.values())]
    ids = {(mm, stage): ident for mm, stage, ident in MISTAKES}
    expected = []
    for stage in graded:
        given = {name: notebook[name] for name, h in held.items() if stage in h}
        first = first_difference(walk_order(cfg, stage), correct[stage], given)
        ident = ids.get((m, stage)) or ids.get((m, "causal")) if first else None
        expected.append({"stage": stage, "first_difference": first, "diagnosis": ident,
                         "names": sorted(given)})
    return notebook, expected


def main():
    torch_env.require_bit_exact("make_learner_notebook_goldens.py")
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    cfg = to_cfg({}, JOURNEY["embeddings"])
    manifest = {"options": OPTION_DEFAULTS, "cases": []}
    for m in SLIPS:
        notebook, expected = case(cfg, m)
        name = f"notebook_{m or 'correct'}"
        dump(os.path.join(OUT, name + ".json"), notebook)
        manifest["cases"].append({"dump": name + ".json", "slip": m, "stages": expected})
        print(f"{name}: {len(notebook)} tensors, stages {[e['stage'] for e in expected]}, "
              f"first differences {[e['first_difference'] for e in expected]}")
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
