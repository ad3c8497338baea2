"""The training step's rows of `make bench-compare`: attn-walk's `bench --backward` against PyTorch's
autograd at its best, side by side (imported by bench_compare.py; also runs alone).

    /usr/bin/python3 tests/bench/bench_compare_backward.py --binary build/attn-walk --tokens 128 1024

Both run the chapter's MultiHeadAttention(D, D, T, 0.0, H), causal, dropout 0, batch 1:
    torch.manual_seed(123); x = torch.randn(1, T, D).requires_grad_(); mha = MultiHeadAttention(...)
    y = mha(x); grad_y = torch.randn_like(y); y.backward(grad_y)
and time the forward plus the backward, y = mha(x); y.backward(grad_y), the gradients set to None
before each (so each step writes them afresh, as the first one does). PyTorch runs under the same
three allocators as the forward's rows (bench_compare.py: glibc; tcmalloc and jemalloc with
OMP_WAIT_POLICY=PASSIVE); "at its best" is the fastest. Each peer is its own process, a warm-up then
--repeat timed steps, its median; the peers interleave round by round; the table shows the median
over rounds. Every gradient is compared with PyTorch glibc's, bit for bit.
"""
import argparse
import json
import os
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_compare as bc  # noqa: E402  (imports torch_env first)

import numpy as np  # noqa: E402

GRADS = ["x", "W_query.weight", "W_key.weight", "W_value.weight", "out_proj.weight", "out_proj.bias"]

TORCH_CHILD = bc.CHILD_START + r"""
x = torch.randn(B, T, D).requires_grad_()
mha = torch_walk.MultiHeadAttention(D, D, T, 0.0, H)
y = mha(x)
grad_y = torch.randn_like(y)
y.backward(grad_y)
ms = []
for _ in range(cfg["repeat"]):
    x.grad = None
    mha.zero_grad(set_to_none=True)
    t0 = time.perf_counter(); y = mha(x); y.backward(grad_y); ms.append((time.perf_counter() - t0) * 1e3)
grads = {"x": x.grad, "W_query.weight": mha.W_query.weight.grad, "W_key.weight": mha.W_key.weight.grad,
         "W_value.weight": mha.W_value.weight.grad, "out_proj.weight": mha.out_proj.weight.grad,
         "out_proj.bias": mha.out_proj.bias.grad}
for name, g in grads.items():
    g.numpy().tofile(cfg["out"] + "." + name)
""" + bc.CHILD_MEDIAN + r"""
print(json.dumps({"median_ms": median_ms,
                  "min_ms": ms[0]}))
"""


def step_gflop(T, D):
    """What attn-walk's step computes: the forward's work and the backward's (the causal half)."""
    return (24.0 * T * D * D + 6.0 * D * T * (T + 1)) / 1e9


def measure(args, T, tmp):
    cfg = dict(golden=bc.GOLDEN, tokens=T, d_model=args.d_model, heads=args.heads, seed=args.seed,
               threads=args.threads, repeat=args.repeat)
    times, grads, rss, checked, parts, check_rss = {}, {}, {}, {}, {}, {}

    def peer(name):
        out = os.path.join(tmp, f"g_{name.replace(' ', '_')}_{T}")
        if name == "attn-walk":
            r, m = bc.run([args.binary, "bench", "--backward", "--tokens", str(T), "--d-model", str(args.d_model),
                           "--heads", str(args.heads), "--batch", "1", "--repeat", str(args.repeat),
                           "--threads", str(args.threads), "--seed", str(args.seed), "--format", "json",
                           "--no-probe", "--save-output", out + ".npy"])
            grads[name] = {g: np.load(f"{out}.{g}.npy").reshape(-1) for g in GRADS}
            checked[name] = r["backward"]["bits_checked"] and r["backward"]["bits_equal"]
            # The step's own peak: attn-walk reads it before its bit check, whose reference
            # backward holds five (B, H, T, T) tensors (up to T = 1024 at 12 heads); GNU time's
            # figure for the whole process, that check included, is kept beside it.
            check_rss[name] = max(check_rss.get(name, 0.0), m)
            m = r["peak_rss_mib"]
            for part, ms in r["backward"].get("parts_ms", {}).items():
                parts.setdefault(part, []).append(ms)
        else:
            r, m = bc.run([args.python, "-c", TORCH_CHILD, json.dumps(dict(cfg, out=out))],
                          env=bc.torch_variants(args.threads)[name])
            grads[name] = {g: np.fromfile(f"{out}.{g}", dtype=np.float32) for g in GRADS}
        times.setdefault(name, []).append(r["median_ms"])
        rss[name] = max(rss.get(name, 0.0), m)

    names = ["attn-walk", *bc.torch_variants(args.threads)]
    for rnd in range(args.rounds):
        for name in names[rnd % len(names):] + names[:rnd % len(names)]:
            peer(name)
    med = {n: statistics.median(v) for n, v in times.items()}
    ref = grads["PyTorch glibc"]
    differ = [g for g in GRADS if not bc.bits_equal(grads["attn-walk"][g], ref[g])]
    return dict(T=T, ms=med, rss=rss, check_rss=check_rss, parts={p: statistics.median(v) for p, v in parts.items()}, torch_best=min((n for n in med if n.startswith("PyTorch")), key=med.get),
                differ=differ, self_checked=checked.get("attn-walk", False),
                torch_variants_agree=all(bc.bits_equal(grads[n][g], ref[g]) for n in grads if n.startswith("PyTorch")
                                         for g in GRADS))


def print_table(args, rows, peak):
    D, H, N = args.d_model, args.heads, args.threads
    print(f"\nMultiHeadAttention({D}, {D}, T, 0.0, num_heads={H}), forward plus y.backward(grad_y), batch 1, "
          f"{N} threads; each time is the median over {args.rounds} interleaved rounds of each process's median of "
          f"{args.repeat} steps after a warm-up. GFLOP/s counts the work attn-walk does: 24·T·D² for the "
          "projections forward and backward, and the causal half of the attention's six products, 6·T(T+1)·D.\n")
    print("| T | attn-walk ms | GFLOP/s | % of peak | PyTorch glibc ms | PyTorch tcmalloc ms | PyTorch jemalloc ms "
          "| vs PyTorch at its best | gradients = PyTorch |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|:---|")
    ok = True
    for r in rows:
        ms, T = r["ms"], r["T"]
        gf = step_gflop(T, D) / (ms["attn-walk"] / 1e3)
        ok &= not r["differ"]
        exact = "bit for bit (all six)" if not r["differ"] else "DIFFER: " + ", ".join(r["differ"])
        print(f"| {T} | {ms['attn-walk']:.1f} | {gf:.0f} | {100 * gf / peak:.1f}% | {ms['PyTorch glibc']:.1f} | "
              f"{ms['PyTorch tcmalloc']:.1f} | {ms['PyTorch jemalloc']:.1f} | "
              f"{ms[r['torch_best']] / ms['attn-walk']:.2f}x | {exact} |")
    print("\nPeak RSS of the step (attn-walk's by the end of its timed steps; in brackets its whole process, with "
          "the bit check's reference backward; PyTorch's whole process): " +
          "; ".join(f"T = {r['T']}: " + ", ".join(
              f"{n} {v:.0f} MiB" + (f" ({r['check_rss'][n]:.0f} MiB)" if n in r["check_rss"] else "")
              for n, v in r["rss"].items()) for r in rows))
    # Where attn-walk's step goes (`bench --backward`'s parts, medians over the rounds).
    names = list(rows[0]["parts"])
    if names:
        print("\nattn-walk's step by part, ms: the forward, then the backward's parts (out_proj's gradients "
              "and context's, the heads, the projections' weight gradients, x's gradient)\n")
        print("| T | " + " | ".join(names) + " |")
        print("|---:|" + "---:|" * len(names))
        for r in rows:
            print(f"| {r['T']} | " + " | ".join(f"{r['parts'][n]:.1f}" for n in names) + " |")
    return ok


def run_all(args, tokens, tmp):
    rows = []
    for T in tokens:
        rows.append(measure(args, T, tmp))
        print(f"T={T} backward: " + ", ".join(f"{n} {v:.1f} ms" for n, v in rows[-1]["ms"].items()), file=sys.stderr)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default="build/attn-walk")
    ap.add_argument("--python", default="/usr/bin/python3")
    ap.add_argument("--tokens", type=int, nargs="+", default=[128, 512, 1024, 2048, 4096])
    ap.add_argument("--d-model", type=int, default=768)
    ap.add_argument("--heads", type=int, default=12)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=123)
    ap.add_argument("--json", help="also write the raw results here")
    args = ap.parse_args()
    peak = bc.probe_peak(args)[0]
    with tempfile.TemporaryDirectory() as tmp:
        rows = run_all(args, args.tokens, tmp)
    peak = max(peak, bc.probe_peak(args)[0])
    print(f"FMA peak measured by `attn-walk bench`'s probe: {peak:.0f} GFLOP/s.")
    ok = print_table(args, rows, peak)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(args=vars(args), peak_gflops=peak, rows=rows), f, indent=1)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
