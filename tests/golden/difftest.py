"""Differential test: attn-walk against PyTorch itself, on random configurations.

    /usr/bin/python3 tests/golden/difftest.py --binary build/attn-walk [--count 40] [--seed 1]
    make difftest

Needs Debian's python3-torch. For each configuration it runs every stage in PyTorch
(tests/golden/torch_walk.py, and the bonus stages' oracles tests/golden/bonus/*.py) and in
attn-walk (--format json), then compares every step: names, shapes, values (within 1e-5)
and the printed text, verbatim. --group chapter|bonus|backward|both|all picks the stages
(all; both = chapter and bonus). The backward stage's oracle is tests/golden/torch_backward.py.
Use --goldens to check the committed golden files instead of random ones.
"""
import argparse
import glob
import itertools
import json
import math
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_env  # noqa: E402,F401  (before torch: it chooses OpenBLAS's kernel)
import make_backward_goldens  # noqa: E402
import make_bonus_goldens  # noqa: E402
import make_goldens  # noqa: E402

FLAG_NAMES = {"query": "--query", "seed": "--seed", "d_out": "--d-out", "heads": "--heads",
              "dropout": "--dropout", "attn_dropout": "--attn-dropout", "batch": "--batch",
              "init": "--init", "kv_groups": "--kv-groups", "window": "--window", "latent_dim": "--latent-dim",
              "rope_base": "--rope-base", "block": "--block", "steps": "--steps", "lr": "--lr",
              "weight_decay": "--weight-decay", "optimizer": "--optimizer"}


def flags(opts):
    out = []
    for key, flag in FLAG_NAMES.items():
        if opts.get(key) is not None:
            out += [flag, str(opts[key])]
    if opts.get("qkv_bias"):
        out.append("--qkv-bias")
    return out


def flatten(x):
    if isinstance(x, list):
        for y in x:
            yield from flatten(y)
    else:
        yield x


def as_float(v):
    return float(v) if not isinstance(v, str) else float(v.replace("inf", "inf"))


def max_diff(a, b):
    worst = 0.0
    for x, y in zip(flatten(a), flatten(b)):
        x, y = as_float(x), as_float(y)
        if math.isnan(x) and math.isnan(y) or x == y:
            continue
        worst = max(worst, abs(x - y) if math.isfinite(x) and math.isfinite(y) else math.inf)
    return worst


def compare(doc, binary, verbose=False):
    """Returns a list of problems (empty when attn-walk agrees with PyTorch)."""
    problems = []
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"tokens": doc["tokens"], "embeddings": doc["embeddings"]}, f)
        path = f.name
    try:
        for stage, expected in doc["stages"].items():
            cmd = [binary, "--stage", stage, "--input", path, "--format", "json"] + flags(doc["options"])
            run = subprocess.run(cmd, capture_output=True, text=True)
            if run.returncode != 0:
                problems.append(f"{doc['name']}/{stage}: exit {run.returncode}: {run.stderr.strip()}")
                continue
            got = json.loads(run.stdout)["steps"]
            got_names = [s["name"] for s in got]
            want_names = [s["name"] for s in expected]
            if got_names != want_names:
                problems.append(f"{doc['name']}/{stage}: steps {got_names} != {want_names}")
                continue
            for g, w in zip(got, expected):
                where = f"{doc['name']}/{stage}/{w['name']}"
                if g["shape"] != w["shape"]:
                    problems.append(f"{where}: shape {g['shape']} != {w['shape']}")
                    continue
                d = max_diff(g["data"], w["data"])
                if d > 1e-5:
                    problems.append(f"{where}: values differ by {d:g}")
                if g["printed"] != w["printed"]:
                    problems.append(f"{where}: printed text differs (max value diff {d:g})"
                                    + (f"\n--- attn-walk\n{g['printed']}\n--- PyTorch\n{w['printed']}" if verbose else ""))
    finally:
        os.unlink(path)
    return problems


def random_config(rng, i):
    T = rng.choice([1, 2, 3, 5, 6, 8, 11, 16, 24, 41])
    d_in = rng.randint(1, 16)
    heads = rng.randint(1, 4)
    d_out = heads * rng.randint(1, max(1, 8 // heads))
    opts = {
        "query": rng.randint(1, T),
        "seed": rng.choice([None, 0, 1, 42, 123, 789, 2 ** 31 - 1, rng.randint(0, 2 ** 40)]),
        "d_out": d_out, "heads": heads,
        "dropout": rng.choice([0.0, 0.1, 0.2, 0.25, 0.5, 0.75, 1.0]),
        "attn_dropout": rng.choice([0.0, 0.0, 0.1, 0.3, 0.5]),
        "batch": rng.randint(1, 3),
        "qkv_bias": rng.random() < 0.5,
        "init": rng.choice(["rand", "randn"]),
    }
    scale = rng.choice([1.0, 1.0, 10.0, 0.01])
    emb = [[round((rng.random() * 2 - 1) * scale, 4) for _ in range(d_in)] for _ in range(T)]
    return make_goldens.golden(f"random{i}", opts, [f"x{k + 1}" for k in range(T)], emb)


def random_bonus_configs(rng, i, oracles):
    """One random configuration, as a golden document per bonus stage that accepts it."""
    T = rng.choice([1, 2, 3, 5, 6, 8, 11, 16, 24, 41])
    d_in = rng.randint(1, 16)
    heads = rng.choice([1, 2, 3, 4, 6])
    kv_groups = rng.choice([g for g in range(1, heads + 1) if heads % g == 0])
    opts = {
        "seed": rng.choice([None, 0, 1, 42, 123, 789, 2 ** 31 - 1, rng.randint(0, 2 ** 40)]),
        "batch": rng.randint(1, 3),
        "qkv_bias": rng.random() < 0.5,
        "d_out": heads * rng.choice([1, 2, 2, 4, 6]),
        "heads": heads,
        "kv_groups": kv_groups,
        "window": rng.randint(1, T + 1),
        "block": rng.randint(1, T + 1),
        "rope_base": rng.choice([10000.0, 10000.0, 500000.0, 100.0, 2.0]),
    }
    opts["latent_dim"] = rng.randint(1, 20)
    # Often d_in == d_out, as the bonus notebook runs its modules: efficient's
    # nn.MultiheadAttention and MHAEinsum's own einsum equation need it.
    if rng.random() < 0.4:
        d_in = opts["d_out"]
    scale = rng.choice([1.0, 1.0, 10.0, 0.01])
    emb = [[round((rng.random() * 2 - 1) * scale, 4) for _ in range(d_in)] for _ in range(T)]
    tokens = [f"x{k + 1}" for k in range(T)]
    for stage, module in oracles.items():
        doc = make_bonus_goldens.golden(f"bonus{i}", stage, module, opts, tokens, emb)
        if doc is not None:
            yield doc


def random_backward_config(rng, i):
    """One random configuration of the backward stage, with repeated labels (V < T) now and then."""
    T = rng.choice([2, 3, 5, 6, 8, 11, 16, 24, 41])
    d_in = rng.randint(1, 16)
    heads = rng.randint(1, 4)
    d_out = heads * rng.choice([1, 2, 3, 4, 8, 16])
    opts = {
        "seed": rng.choice([0, 1, 42, 123, 789, 2 ** 31 - 1, rng.randint(0, 2 ** 40)]),
        "d_out": d_out, "heads": heads,
        "attn_dropout": rng.choice([0.0, 0.0, 0.1, 0.3, 0.5]),
        "batch": rng.randint(1, 3),
        "qkv_bias": rng.random() < 0.5,
        "steps": rng.randint(1, 6),
        "lr": rng.choice([0.001, 0.01, 0.05, 0.1, 0.5]),
        "weight_decay": rng.choice([0.0, 0.01, 0.1, 1.0]),
        "optimizer": rng.choice(["adamw", "adamw", "sgd"]),
    }
    words = [f"w{k}" for k in range(rng.randint(1, T))]
    tokens = [rng.choice(words) for _ in range(T)]
    scale = rng.choice([1.0, 1.0, 10.0, 0.01])
    emb = [[round((rng.random() * 2 - 1) * scale, 4) for _ in range(d_in)] for _ in range(T)]
    return make_backward_goldens.golden(f"backward{i}", opts, tokens, emb)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default="build/attn-walk")
    ap.add_argument("--count", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--goldens", action="store_true", help="check tests/golden/walks/*.json instead")
    ap.add_argument("--group", choices=["chapter", "bonus", "backward", "both", "all"], default="all")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    chapter, bonus = args.group in ("chapter", "both", "all"), args.group in ("bonus", "both", "all")
    backward = args.group in ("backward", "all")
    oracles = make_bonus_goldens.oracles() if bonus else {}

    def golden_files(folder):
        return (json.load(open(p)) for p in sorted(glob.glob(os.path.join(folder, "*.json"))))

    def random_docs():
        rng = random.Random(args.seed)
        for i in range(args.count):
            if chapter:
                yield random_config(rng, i)
            if bonus:
                yield from random_bonus_configs(rng, i, oracles)
            if backward:
                yield random_backward_config(rng, i)

    if args.goldens:
        docs = itertools.chain(golden_files(make_goldens.OUT) if chapter else [],
                               golden_files(make_bonus_goldens.OUT) if bonus else [],
                               golden_files(make_backward_goldens.OUT) if backward else [])
    else:
        docs = random_docs()
    if not torch_env.bit_exact:
        print(f"note: this CPU cannot run OpenBLAS's {torch_env.REFERENCE_KERNEL} kernel, so PyTorch "
              "sums large products in another order here; expect last-bit differences "
              "(docs/fidelity.md)")
    failed = passed = 0
    for doc in docs:
        problems = compare(doc, args.binary, args.verbose)
        if problems:
            failed += 1
            print(f"FAIL {doc['name']} {'/'.join(doc['stages'])} {json.dumps(doc['options'])}")
            for p in problems:
                print("  " + p)
        else:
            passed += 1
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
