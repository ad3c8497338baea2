"""Differential test: attn-walk against PyTorch itself, on random configurations.

    /usr/bin/python3 tests/golden/difftest.py --binary build/attn-walk [--count 40] [--text-count 40] [--seed 1]
    make difftest

Needs Debian's python3-torch. For each configuration it runs every stage in PyTorch
(tests/golden/torch_walk.py, and the bonus stages' oracles tests/golden/bonus/*.py) and in
attn-walk (--format json), then compares every step: names, shapes, values bit for bit
(each number's bit pattern: -0.0 is not 0.0, and NaN equals NaN only at the same place) and
the printed text, verbatim. A failure names the first differing tensor, its index and both
values. --group chapter|bonus|backward|both|all picks the stages (all; both = chapter and
bonus). The backward stage's oracle is tests/golden/torch_backward.py; the backward group
also draws --text configurations (short texts tokenized by tiktoken, as make_text_goldens.py
does, so node and tests/node/node_modules are needed; V = 50257, tok_emb and pos_emb trained).
Use --goldens to check the committed golden files instead of random ones.
"""
import argparse
import glob
import itertools
import json
import os
import shlex
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_env  # noqa: E402,F401  (before torch: it chooses OpenBLAS's kernel)
import make_backward_goldens  # noqa: E402
import make_bonus_goldens  # noqa: E402
import make_goldens  # noqa: E402
import make_text_goldens  # noqa: E402
import numpy  # noqa: E402
import torch  # noqa: E402
import torch_backward  # noqa: E402

FLAG_NAMES = {"query": "--query", "seed": "--seed", "d_out": "--d-out", "heads": "--heads",
              "dropout": "--dropout", "attn_dropout": "--attn-dropout", "batch": "--batch",
              "init": "--init", "kv_groups": "--kv-groups", "window": "--window", "latent_dim": "--latent-dim",
              "rope_base": "--rope-base", "block": "--block", "steps": "--steps", "lr": "--lr",
              "weight_decay": "--weight-decay", "optimizer": "--optimizer", "embed_dim": "--embed-dim",
              "softmax_dim": "--softmax-dim", "torch_threads": "--torch-threads"}


def flags(opts):
    out = []
    for key, flag in FLAG_NAMES.items():
        if opts.get(key) is not None:
            out += [flag, str(opts[key])]
    if opts.get("qkv_bias"):
        out.append("--qkv-bias")
    return out


def bits(data):
    """A step's values as float32 bit patterns, flat. JSON holds each float32 as the double it
    widens to ("nan", "inf" and "-inf" as strings), so this is exact; a step PyTorch records as a
    Python float (the chapter's row sums) is compared as the float32 attn-walk holds."""
    return numpy.array(data, dtype=numpy.float64).reshape(-1).astype(numpy.float32).view(numpy.uint32)


def first_difference(got, want, shape):
    """None when the values agree bit for bit, else (index, attn-walk's value, PyTorch's)."""
    g, w = bits(got), bits(want)
    if g.shape != w.shape:
        return ("size", g.size, w.size)
    differ = numpy.flatnonzero(g != w)
    if differ.size == 0:
        return None
    flat = int(differ[0])
    index = tuple(int(i) for i in numpy.unravel_index(flat, shape)) if shape else ()

    def show(v):
        return f"{float(v.view(numpy.float32))!r} (float32 0x{int(v):08x})"
    return (list(index), show(g[flat]), show(w[flat]), int(differ.size))


def command(doc, stage, binary, path):
    """attn-walk's command line for one stage of a document (its input in the file `path`)."""
    source = ["--text-file", path] if "text" in doc else ["--input", path]
    return [binary, "--stage", stage] + source + ["--format", "json"] + flags(doc["options"])


def compare(doc, binary, verbose=False):
    """Returns a list of problems (empty when attn-walk agrees with PyTorch)."""
    problems = []
    with tempfile.NamedTemporaryFile("w", suffix=".txt" if "text" in doc else ".json", delete=False,
                                     encoding="utf-8", newline="") as f:
        if "text" in doc:
            f.write(doc["text"])
        else:
            json.dump({"tokens": doc["tokens"], "embeddings": doc["embeddings"]}, f)
        path = f.name
    try:
        for stage, expected in doc["stages"].items():
            cmd = command(doc, stage, binary, path)
            run = subprocess.run(cmd, capture_output=True, text=True)
            if run.returncode != 0:
                problems.append(f"{doc['name']}/{stage}: exit {run.returncode}: {run.stderr.strip()}")
                continue
            got = json.loads(run.stdout)["steps"]
            if "text" in doc:
                # --text's own steps come first (text, pieces, token_ids, the embeddings, as
                # --stage text walks them): the ids must be tiktoken's; the stage starts at "batch".
                start = next((k for k, s in enumerate(got) if s["name"] == "batch"), 0)
                ids = next((s.get("data") for s in got[:start] if s["name"] == "token_ids"), None)
                if ids != doc["token_ids"]:
                    problems.append(f"{doc['name']}/{stage}: token_ids {ids} != tiktoken's {doc['token_ids']}")
                got = got[start:]
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
                d = first_difference(g["data"], w["data"], w["shape"])
                if d is not None:
                    problems.append(f"{where}: first difference at {d[0]}: attn-walk {d[1]}, PyTorch {d[2]}"
                                    f" ({d[3]} values differ)")
                if g["printed"] != w["printed"]:
                    problems.append(f"{where}: printed text differs"
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


# Pieces the random texts are made of: words (with and without their leading space), repeats,
# digits, punctuation, whitespace runs, GPT-2's <|endoftext|>, and Chinese and emoji split
# over byte pieces.
TEXT_PIECES = ["the", " the", " cat", " sat", " on", " mat", "Your", " journey", " starts", " with",
               " one", " step", " and", " dog", "!", "?", ",", ".", '"', "#!", " 42", "2024", "  ",
               "\n", "\t", " wow", "<|endoftext|>", "你的", "旅程", "从一步开始", "！", "😀", "é", "naïve"]


def random_backward_text_configs(rng, count):
    """`count` random --text configurations of the backward stage, as (text, options), with
    tiktoken's ids: [(name, text, ids, options)]; those outside the stage's limits are left out
    (with --text: --embed-dim and --d-out at most 64, batch * (tokens - 1) at most 64)."""
    drawn = []
    for i in range(count):
        text = "".join(rng.choice(TEXT_PIECES) for _ in range(rng.randint(2, 10)))
        heads = rng.randint(1, 4)
        opts = {
            "seed": rng.choice([0, 1, 42, 123, 789, 2 ** 31 - 1, rng.randint(0, 2 ** 40)]),
            "embed_dim": rng.choice([1, 2, 2, 3, 3, 4, 5, 6, 8, 8, 16, 32, 64]),
            "d_out": heads * rng.choice([1, 2, 3, 4, 8, 16]),
            "heads": heads,
            "attn_dropout": rng.choice([0.0, 0.0, 0.1, 0.3, 0.5]),
            "batch": rng.randint(1, 3),
            "qkv_bias": rng.random() < 0.5,
            "steps": rng.randint(1, 4),
            "lr": rng.choice([0.001, 0.01, 0.05, 0.1, 0.5]),
            "weight_decay": rng.choice([0.0, 0.01, 0.1, 1.0]),
            "optimizer": rng.choice(["adamw", "adamw", "sgd"]),
        }
        drawn.append((f"backward_text{i}", text, opts))
    if not drawn:
        return []
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for name, text, _ in drawn:
            paths.append(os.path.join(tmp, name))
            with open(paths[-1], "w", encoding="utf-8", newline="") as f:
                f.write(text)
        ids = make_text_goldens.reference_ids(paths)
    configs = []
    for name, text, opts in drawn:
        toks = ids[name]["tiktoken"]
        if len(toks) >= 2 and opts["d_out"] <= 64 and opts["batch"] * (len(toks) - 1) <= 64:
            configs.append((name, text, toks, opts))
    return configs


def backward_text_doc(name, text, ids, opts):
    """The backward stage on GPT-2 ids in PyTorch (every value kept, none digested)."""
    o = dict(make_backward_goldens.DEFAULTS, **opts)
    embed_dim = o.pop("embed_dim")
    cfg = torch_backward.TrainCfg(None, None, **o)
    torch.set_num_threads(2)
    steps = torch_backward.run(cfg, text_ids=ids, embed_dim=embed_dim, text_seed=o["seed"])
    return {"name": name, "text": text, "token_ids": ids, "options": dict(o, embed_dim=embed_dim),
            "stages": {"backward": steps}}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default="build/attn-walk")
    ap.add_argument("--count", type=int, default=30)
    ap.add_argument("--text-count", type=int, default=None,
                    help="random --text configurations of the backward group (default: --count)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--goldens", action="store_true", help="check tests/golden/walks/*.json instead")
    ap.add_argument("--group", choices=["chapter", "bonus", "backward", "both", "all"], default="all")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    if args.text_count is None:
        args.text_count = args.count
    chapter, bonus = args.group in ("chapter", "both", "all"), args.group in ("bonus", "both", "all")
    backward = args.group in ("backward", "all")
    oracles = make_bonus_goldens.oracles() if bonus else {}

    def golden_files(folder):
        return (json.load(open(p)) for p in sorted(glob.glob(os.path.join(folder, "*.json"))))

    # The --text configurations come from a stream of their own, so the other groups draw what
    # they drew before; they are tokenized all at once (one node process).
    texts = random_backward_text_configs(random.Random(f"text{args.seed}"), args.text_count) \
        if backward and not args.goldens else []

    def random_docs():
        rng = random.Random(args.seed)
        for i in range(args.count):
            if chapter:
                yield "chapter", random_config(rng, i)
            if bonus:
                yield from (("bonus", doc) for doc in random_bonus_configs(rng, i, oracles))
            if backward:
                yield "backward", random_backward_config(rng, i)
            if i < len(texts):
                yield "backward --text", backward_text_doc(*texts[i])
        for name, text, ids, opts in texts[args.count:]:
            yield "backward --text", backward_text_doc(name, text, ids, opts)

    def tagged(group, docs):
        return ((group, doc) for doc in docs)

    if args.goldens:
        docs = itertools.chain(tagged("chapter", golden_files(make_goldens.OUT) if chapter else []),
                               tagged("bonus", golden_files(make_bonus_goldens.OUT) if bonus else []),
                               tagged("backward", golden_files(make_backward_goldens.OUT) if backward else []))
    else:
        docs = random_docs()
    if not torch_env.bit_exact:
        print(f"note: this CPU cannot run OpenBLAS's {torch_env.REFERENCE_KERNEL} kernel, so PyTorch "
              "sums large products in another order here; expect last-bit differences "
              "(docs/fidelity.md)")
    counts = {}  # group -> [passed, failed]
    for group, doc in docs:
        problems = compare(doc, args.binary, args.verbose)
        tally = counts.setdefault(group, [0, 0])
        if problems:
            tally[1] += 1
            print(f"FAIL {doc['name']} {'/'.join(doc['stages'])} {json.dumps(doc['options'], ensure_ascii=False)}")
            if "text" in doc:
                stage = next(iter(doc["stages"]))
                print("  to reproduce: " + shlex.join(command(doc, stage, args.binary, "TEXT")[:3])
                      + " --text " + shlex.quote(doc["text"]) + " "
                      + shlex.join(command(doc, stage, args.binary, "TEXT")[5:]))
            for p in problems:
                print("  " + p)
        else:
            tally[0] += 1
        sys.stdout.flush()
    for group, (passed, failed) in counts.items():
        print(f"{group}: {passed} passed, {failed} failed")
    failed = sum(f for _, f in counts.values())
    print(f"{sum(p for p, _ in counts.values())} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
