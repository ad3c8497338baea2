"""Goldens for `attn-walk check` on a whole notebook: one dump of everything a learner's notebook
computed, sections 3.3 to 3.6, with a slip in one part of it.

    /usr/bin/python3 tests/golden/make_learner_notebook_goldens.py      (or: make goldens)

The learner's cells are make_check_goldens.py's (real PyTorch), run in the chapter's order;
a name the notebook binds again (keys, attn_scores, attn_weights, batch, ...) keeps its last
value, as a dump of the notebook's variables does. A slip is where the learner typed it: in
section 3.5.1's cells and their CausalAttention class (so the wrapper of section 3.6.1, built
from it, has it too), or in their SelfAttention_v2 class (so sa_v2, exercise 3.1's v2, and
section 3.5.1, which uses sa_v2's W_query and W_key, have it), or in 3.5.1's lines alone; the
other classes are the book's. For each stage, the expected grade comes from PyTorch: the stages
whose values the dump's names hold, for each the first step (in the stage's order) not
torch.allclose to the correct one, the cause, and the causes that give that stage's tensors but
not the rest of the notebook (a notebook written with such a cause, run here, shows it): those
only the links between the stages rule out.

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
import torch_walk  # noqa: E402
from make_check_goldens import (JOURNEY, MISTAKES, OPTION_DEFAULTS, first_difference, run_learner,  # noqa: E402
                                to_cfg, walk_order)

OUT = os.path.join(HERE, "check_notebook")
STAGES = ["dot-product", "trainable", "causal", "dropout", "multi-head"]
# The steps that the learner's CausalAttention class computes (section 3.5.3's, and the
# wrapper's of section 3.6.1, built from it).
BUILT_FROM_CAUSAL_ATTENTION = {"dropout": {"causal_attention_context_vecs"},
                               "multi-head": {"wrapper_context_vecs", "exercise_3_2_context_vecs"}}


def slip_in_3_5(m):
    """A slip in section 3.5.1's cells and in the CausalAttention class (so the wrapper of
    section 3.6.1, built from it, has it too); MultiHeadAttention is the book's."""
    return {"causal": m, "dropout": m, "CausalAttention": m}


def slip_in_self_attention_v2(m):
    """A slip in the learner's SelfAttention_v2 class (W_key declared first, or nn.Linear's
    default bias): sa_v2 of section 3.4.2 and exercise 3.1's v2 have it, and so do section
    3.5.1's queries and keys, which the chapter computes with sa_v2's own W_query and W_key (and
    3.5.2's weights, which are 3.5.1's). CausalAttention and MultiHeadAttention are the book's."""
    return {"trainable": m, "causal": m, "dropout": m}


# Each case: the learner's notebook (where each slip is: a stage's cells, or the CausalAttention
# class) and, for a stage, the causes that its own tensors cannot tell from the slip but the rest
# of the notebook can: the notebook written with that cause (real PyTorch) gives the stage's
# tensors and contradicts another stage's.
CASES = [
    {"name": "correct", "slip": None, "notebook": {}},
    {"name": "mask_filled_with_zero", "slip": "mask_filled_with_zero", "notebook": slip_in_3_5("mask_filled_with_zero")},
    {"name": "scale_missing", "slip": "scale_missing", "notebook": slip_in_3_5("scale_missing")},
    # W_key declared before W_query in SelfAttention_v2: in 3.5.1 alone its queries and keys are
    # what `queries = sa_v2.W_key(inputs)` gives, but then sa_v2's weights would be the book's.
    {"name": "self_attention_v2_layers_declared_kqv", "slip": "layers_declared_kqv",
     "notebook": slip_in_self_attention_v2("layers_declared_kqv"),
     "told_apart": {"query_key_swapped": {"causal": "query_key_swapped", "dropout": "query_key_swapped"}}},
    {"name": "self_attention_v2_bias_left_on", "slip": "bias_left_on",
     "notebook": slip_in_self_attention_v2("bias_left_on")},
    # No torch.manual_seed(789) before sa_v2: its weights continue SelfAttention_v1's draws, and so
    # do section 3.5.1's queries and keys, which use them (a cause that changes sa_v2's weights is
    # tested against 3.5.1's tensors, so the walk draws 3.5.1's sa_v2 as the notebook did).
    {"name": "seed_not_reset_sa_v2", "slip": "seed_not_reset_sa_v2", "cause": "seed_not_reset",
     "notebook": slip_in_self_attention_v2("seed_not_reset_sa_v2")},
    # The other way round: the class is the book's and 3.5.1's lines take W_key for the queries
    # (and W_query for the keys). W_key declared first would give 3.5.1's numbers too, but it
    # would change sa_v2's weights, which the dump holds as the book's.
    {"name": "query_key_swapped_in_3_5_1", "slip": "query_key_swapped",
     "notebook": {"causal": "query_key_swapped", "dropout": "query_key_swapped"},
     "told_apart": {"layers_declared_out_of_order": slip_in_self_attention_v2("layers_declared_kqv")}},
]


class NoSeedBeforeSaV2:
    """The learner's notebook with no torch.manual_seed(seed2) before sa_v2: section 3.5.1's sa_v2
    is drawn on the stream as section 3.4's cells leave it (torch.manual_seed(seed1), then
    SelfAttention_v1). Replaces that one call while the causal cells run."""

    def __init__(self, cfg):
        self.cfg, self.seed = cfg, torch.manual_seed

    def __enter__(self):
        cfg, seed = self.cfg, self.seed

        def manual_seed(s):
            if s != cfg.seed2:
                return seed(s)
            seed(cfg.seed1)
            return torch_walk.SelfAttention_v1(cfg.inputs.shape[1], cfg.d_out, cfg.init)
        torch.manual_seed = manual_seed

    def __exit__(self, *exc):
        torch.manual_seed = self.seed


def learner_stages(cfg, notebook):
    """{stage: {step: tensor}} as the learner's notebook computes each stage: `notebook` says
    which slip each stage's cells have, and the CausalAttention class's."""
    out = {}
    for stage in STAGES:
        if notebook.get(stage) == "seed_not_reset_sa_v2" and stage != "trainable":
            with NoSeedBeforeSaV2(cfg):  # 3.5.1 uses sa_v2 as 3.4.2 built it
                steps = run_learner(cfg, stage, None)
        else:
            steps = run_learner(cfg, stage, notebook.get(stage))
        built = BUILT_FROM_CAUSAL_ATTENTION.get(stage, set())
        if built and notebook.get("CausalAttention") != notebook.get(stage):
            by_class = run_learner(cfg, stage, notebook.get("CausalAttention"))
            for name in built:
                if name in steps or name in by_class:
                    steps[name] = by_class[name]
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


def close(a, b):
    return a.shape == b.shape and torch.allclose(a, b, rtol=1e-5, atol=1e-6, equal_nan=True)


def told_apart(cfg, notebook, given, other_notebook):
    """Whether the notebook written as `other_notebook` gives every tensor of `given` (one
    stage's) but not every tensor of the whole `notebook`: the stage cannot tell the two apart,
    the whole dump can."""
    other = whole_notebook(learner_stages(cfg, other_notebook))
    gives_stage = all(name in other and close(other[name], t) for name, t in given.items())
    gives_all = all(name in other and close(other[name], t) for name, t in notebook.items())
    return gives_stage and not gives_all


def case(cfg, c):
    mine = learner_stages(cfg, c["notebook"])
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
        m = c["notebook"].get(stage) or c["slip"]
        ident = (c.get("cause") or ids.get((m, stage)) or ids.get((m, "causal"))) if first else None
        not_named = sorted(cause for cause, other in c.get("told_apart", {}).items()
                           if first and told_apart(cfg, notebook, given, other))
        expected.append({"stage": stage, "first_difference": first, "diagnosis": ident,
                         "not_named": not_named, "names": sorted(given)})
    return notebook, expected


def main():
    torch_env.require_bit_exact("make_learner_notebook_goldens.py")
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    cfg = to_cfg({}, JOURNEY["embeddings"])
    manifest = {"options": OPTION_DEFAULTS, "cases": []}
    for c in CASES:
        notebook, expected = case(cfg, c)
        name = f"notebook_{c['name']}"
        dump(os.path.join(OUT, name + ".json"), notebook)
        manifest["cases"].append({"dump": name + ".json", "slip": c["slip"], "stages": expected})
        print(f"{name}: {len(notebook)} tensors, stages {[e['stage'] for e in expected]}, "
              f"first differences {[e['first_difference'] for e in expected]}")
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
