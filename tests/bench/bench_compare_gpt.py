"""`make bench-compare`'s GPT rows: chapter 4's whole GPTModel forward, attn-walk against PyTorch at its
best, side by side; then the 20-token `--stage gpt` walk against PyTorch loading the same file.

    /usr/bin/python3 tests/bench/bench_compare_gpt.py --binary build/attn-walk --model build/gpt2-small-random.safetensors

The model: the book's GPTModel at GPT_CONFIG_124M's shape with qkv_bias=True (as chapter 5 loads
GPT-2), random weights (torch.manual_seed(123), PyTorch's init), its state dict written as
safetensors (tests/golden/make_gpt_models.py's writer, laid out as safetensors.torch.save_file
lays it out; about 700 MB with the mask buffers). Made by PyTorch here when --model is missing,
never committed.

1. The forward, `attn-walk bench --gpt` against PyTorch 1.13 (Debian's, OpenBLAS's Cooperlake kernel:
   torch_env.py) running tests/golden/book_gpt.py's GPTModel after load_state_dict, eval(), under
   torch.no_grad(), on the same token ids ((seed + 9973 i) % 50257). PyTorch with glibc's malloc
   (as is, and with OMP_WAIT_POLICY=PASSIVE), and, when installed, with tcmalloc (LD_PRELOAD) and
   jemalloc, those with OMP_WAIT_POLICY=PASSIVE;
   "PyTorch at its best" is the fastest. Each peer is its own process: one warm-up, then --repeat
   timed forwards, the median; peers interleaved round after round (--rounds), the median over
   rounds. The logits are compared bit for bit.
2. The walk: `attn-walk --stage gpt --weights MODEL --text TEXT` (20 GPT-2 tokens, text output to
   /dev/null), whole process time and peak RSS, against a PyTorch process doing what a learner's
   script does: import torch, GPTModel(cfg), load_state_dict of the file (read through mmap, without
   the safetensors package, which Debian lacks), model(idx), the next token's argmax; with
   OMP_WAIT_POLICY=PASSIVE. Best of --rounds.
"""
import argparse
import json
import os
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "..", "golden")
sys.path.insert(0, GOLDEN)
sys.path.insert(0, HERE)
import torch_env  # noqa: E402,F401  (before numpy/torch: OpenBLAS reads it when it loads)
from bench_compare import JEMALLOC, TCMALLOC, base_env  # noqa: E402  (the forward's peers' environment)
from bench_compare import run_timed as run  # noqa: E402  (peak RSS by GNU time, as every row's)

import numpy as np  # noqa: E402
# 20 GPT-2 tokens (tokenizer.encode gives 20 ids; checked by the walk's in_idx below).
TEXT = "Every effort moves you forward, and the book walks every step of attention with numbers you can check."

CONFIG_124M = {"vocab_size": 50257, "context_length": 1024, "emb_dim": 768, "n_heads": 12, "n_layers": 12,
               "drop_rate": 0.0, "qkv_bias": True}

MAKE_MODEL = r"""
import json, sys
cfg = json.loads(sys.argv[1])
sys.path.insert(0, cfg["golden"])
import torch_env
import torch
from book_gpt import GPTModel
import make_gpt_models
torch.manual_seed(123)
model = GPTModel(cfg["config"])
make_gpt_models.save_safetensors(model.state_dict(), cfg["path"])
"""

# A PyTorch process: the book's model on the file (mmap'd, torch.frombuffer: no copy before
# load_state_dict's own), in eval() under no_grad. "time": --repeat timed forwards on the bench's
# ids; "walk": one forward on the walk's ids and the next token, as a learner's script runs it.
TORCH_CHILD = r"""
import json, mmap, struct, sys, time
cfg = json.loads(sys.argv[1])
sys.path.insert(0, cfg["golden"])
import torch_env
import torch
torch.set_num_threads(cfg["threads"])
from book_gpt import GPTModel

def load_file(path):
    f = open(path, "rb")
    m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    (n,) = struct.unpack("<Q", m[:8])
    header = json.loads(m[8:8 + n])
    dtypes = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        out[name] = torch.frombuffer(m, dtype=dtypes[info["dtype"]], count=(end - begin) // 4 if info["dtype"] == "F32" else (end - begin) // 2,
                                     offset=8 + n + begin).reshape(info["shape"])
    return out

import warnings
warnings.filterwarnings("ignore")  # frombuffer on a read-only mmap: never written here
model = GPTModel(cfg["config"])
model.load_state_dict(load_file(cfg["model"]))
model.eval()
with torch.no_grad():
    if cfg["mode"] == "walk":
        idx = torch.tensor([cfg["ids"]])
        logits = model(idx)
        print(json.dumps({"next": int(torch.argmax(logits[:, -1, :], dim=-1))}))
        sys.exit(0)
    T, V, seed = cfg["tokens"], cfg["config"]["vocab_size"], cfg["seed"]
    idx = ((seed + 9973 * torch.arange(T)) % V).unsqueeze(0)
    logits = model(idx)
    ms = []
    for _ in range(cfg["repeat"]):
        t0 = time.perf_counter(); logits = model(idx); ms.append((time.perf_counter() - t0) * 1e3)
logits.numpy().tofile(cfg["y"])
ms.sort()
median_ms = ms[len(ms) // 2] if len(ms) % 2 else (ms[len(ms) // 2 - 1] + ms[len(ms) // 2]) / 2
print(json.dumps({"median_ms": median_ms, "min_ms": ms[0], "blas": list(torch_env.loaded_kernel())}))
"""


def torch_variants(threads):
    passive = dict(OMP_WAIT_POLICY="PASSIVE")
    # glibc's malloc with libgomp's workers asleep between parallel regions: on a shared machine its
    # spinning workers take the cores OpenBLAS's threads want (tcmalloc and jemalloc may be missing).
    v = {"PyTorch glibc": base_env(threads), "PyTorch glibc passive": dict(base_env(threads), **passive)}
    if os.path.exists(TCMALLOC):
        v["PyTorch tcmalloc"] = dict(base_env(threads), LD_PRELOAD=TCMALLOC, **passive)
    if os.path.exists(JEMALLOC):
        v["PyTorch jemalloc"] = dict(base_env(threads), LD_PRELOAD=JEMALLOC,
                                     MALLOC_CONF="retain:true,dirty_decay_ms:-1,muzzy_decay_ms:-1", **passive)
    return v


def make_model(args):
    if os.path.exists(args.model):
        return
    os.makedirs(os.path.dirname(os.path.abspath(args.model)), exist_ok=True)
    print(f"making {args.model} (GPT_CONFIG_124M, qkv_bias, random weights) with PyTorch ...", file=sys.stderr)
    tmp = args.model + ".partial"
    run([args.python, "-c", MAKE_MODEL, json.dumps(dict(golden=GOLDEN, config=CONFIG_124M, path=tmp))])
    os.replace(tmp, args.model)


def measure(args, T, tmp):
    cfg = dict(golden=GOLDEN, config=CONFIG_124M, model=os.path.abspath(args.model), tokens=T, seed=args.seed,
               threads=args.threads, repeat=args.repeat, mode="time")
    times, outputs, rss, blas = {}, {}, {}, {}

    def peer(name):
        y = os.path.join(tmp, f"logits_{name.replace(' ', '_')}_{T}")
        if name == "attn-walk":
            r, m, _ = run([args.binary, "bench", "--gpt", "--weights", args.model, "--heads", "12", "--tokens", str(T),
                           "--repeat", str(args.repeat), "--threads", str(args.threads), "--seed", str(args.seed),
                           "--format", "json", "--no-probe", "--save-output", y + ".npy"], env=base_env(args.threads))
            outputs[name] = np.load(y + ".npy").reshape(-1)
        else:
            r, m, _ = run([args.python, "-c", TORCH_CHILD, json.dumps(dict(cfg, y=y))],
                          env=torch_variants(args.threads)[name])
            outputs[name] = np.fromfile(y, dtype=np.float32)
            blas[name] = r.get("blas")
        times.setdefault(name, []).append(r["median_ms"])
        rss[name] = max(rss.get(name, 0.0), m)

    names = ["attn-walk", *torch_variants(args.threads)]
    for rnd in range(args.rounds):
        for name in names[rnd % len(names):] + names[:rnd % len(names)]:
            peer(name)
    med = {n: statistics.median(v) for n, v in times.items()}
    best = min((n for n in med if n.startswith("PyTorch")), key=med.get)
    ref = outputs["PyTorch glibc"]
    a = outputs["attn-walk"]
    exact = a.shape == ref.shape and np.array_equal(a.view(np.uint32), ref.view(np.uint32))
    return dict(T=T, ms=med, rss=rss, torch_best=best, blas=blas.get("PyTorch glibc"), bit_exact=bool(exact),
                max_diff=float(np.max(np.abs(a - ref))) if a.shape == ref.shape else float("inf"))


def walk_vs_torch(args):
    """The 20-token walk, whole process, against PyTorch's script on the same file."""
    walk_cmd = [args.binary, "--stage", "gpt", "--weights", args.model, "--text", TEXT, "-o", os.devnull]
    ids_doc, _, _ = run([args.binary, "--stage", "gpt", "--weights", args.model, "--text", TEXT, "--only", "in_idx",
                         "--format", "json"])
    ids = [int(v) for v in ids_doc["steps"][0]["data"][0]]
    cfg = dict(golden=GOLDEN, config=CONFIG_124M, model=os.path.abspath(args.model), threads=args.threads,
               mode="walk", ids=ids)
    torch_cmd = [args.python, "-c", TORCH_CHILD, json.dumps(cfg)]
    passive = dict(base_env(args.threads), OMP_WAIT_POLICY="PASSIVE")
    best = {}
    for rnd in range(args.rounds):
        order = [("attn-walk", walk_cmd), ("PyTorch", torch_cmd)]
        for name, cmd in (order if rnd % 2 == 0 else order[::-1]):
            _, m, s = run(cmd, env=passive if name == "PyTorch" else base_env(args.threads))
            if name not in best or s < best[name][0]:
                best[name] = (s, m)
    return dict(tokens=len(ids), file_mib=os.path.getsize(args.model) / 2**20, best=best)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default="build/attn-walk")
    ap.add_argument("--python", default="/usr/bin/python3", help="the Python with Debian's torch")
    ap.add_argument("--model", default="build/gpt2-small-random.safetensors")
    ap.add_argument("--tokens", type=int, nargs="*", default=[128, 1024])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3, help="timed forwards per process, after one warm-up")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=123)
    ap.add_argument("--no-walk", action="store_true", help="skip the 20-token walk's row")
    ap.add_argument("--json", help="also write the raw results here")
    args = ap.parse_args()
    make_model(args)

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for T in args.tokens:
            rows.append(measure(args, T, tmp))
            print(f"T={T}: " + ", ".join(f"{n} {v:.0f} ms" for n, v in rows[-1]["ms"].items()), file=sys.stderr)
    ok = all(r["bit_exact"] for r in rows)
    variants = list(torch_variants(args.threads))
    print(f"\nGPTModel forward (GPT_CONFIG_124M, qkv_bias, random weights: {args.model}), batch 1, "
          f"{args.threads} threads; each time the median over {args.rounds} interleaved rounds of each process's "
          f"median of {args.repeat} forwards after a warm-up. PyTorch variants run: {', '.join(variants)}.\n")
    print("| T | attn-walk ms | " + " | ".join(f"{v} ms" for v in variants) +
          " | vs PyTorch at its best | attn-walk = PyTorch | peak RSS attn-walk / PyTorch glibc MiB |")
    print("|---:|---:|" + "---:|" * len(variants) + "---:|:---|---:|")
    for r in rows:
        ms = r["ms"]
        exact = "bit for bit" if r["bit_exact"] else f"DIFFERS ({r['max_diff']:.1e})"
        print(f"| {r['T']} | {ms['attn-walk']:.0f} | " + " | ".join(f"{ms[v]:.0f}" for v in variants) +
              f" | {ms[r['torch_best']] / ms['attn-walk']:.2f}x | {exact} | "
              f"{r['rss']['attn-walk']:.0f} / {r['rss']['PyTorch glibc']:.0f} |")
    kernels = {tuple(r["blas"]) for r in rows if r.get("blas")}
    print("\nsgemm order: " + ", ".join(f"OpenBLAS's {k} kernel with {n} threads" for k, n in sorted(kernels)))
    walk = None
    if not args.no_walk:
        walk = walk_vs_torch(args)
        a, t = walk["best"]["attn-walk"], walk["best"]["PyTorch"]
        print(f"\nThe {walk['tokens']}-token `--stage gpt` walk (text to /dev/null) against PyTorch's script on the "
              f"same file ({walk['file_mib']:.0f} MiB), whole process, best of {args.rounds}:")
        print("| | seconds | peak RSS MiB | RSS - file MiB |")
        print("|---|---:|---:|---:|")
        for name, (s, m) in (("attn-walk", a), ("PyTorch", t)):
            print(f"| {name} | {s:.2f} | {m:.0f} | {m - walk['file_mib']:.0f} |")
        print(f"\nattn-walk is {t[0] / a[0]:.1f}x faster.")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(args=vars(args), rows=rows, walk=walk), f, indent=1)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
