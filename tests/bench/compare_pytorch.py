"""attn-walk bench against PyTorch, side by side, on the same thread count.

    /usr/bin/python3 tests/bench/compare_pytorch.py --binary build/attn-walk
    /usr/bin/python3 tests/bench/compare_pytorch.py --binary build/attn-walk --scaling --markdown

Both run the chapter's efficient MultiHeadAttention forward, causal, dropout 0, in PyTorch's
order: torch.manual_seed(S); x = torch.randn(B, T, D); mha = MultiHeadAttention(D, D, T, 0.0, H);
y = mha(x). PyTorch (Debian's python3-torch with OpenBLAS) runs the module of
tests/golden/torch_walk.py under torch.no_grad() (inference, its fastest mode), with
torch.set_num_threads(N) and OPENBLAS_NUM_THREADS=N; attn-walk runs `bench --threads N`.
Each side runs in its own process, one warm-up then --repeat timed forwards (--rounds N
repeats the pair N times and keeps each side's best median); the medians,
their ratio and each process's peak resident memory (GNU time's, the child's own) are printed,
and the outputs are compared: y's first 8 values (bit for bit and within 1e-4) and its sum
and sum of absolute values (accumulated in float64).

--gemm also reports the machine's matrix-multiply rate: torch.mm of two 2048 x 2048
float32 matrices (OpenBLAS sgemm) on the same threads.
"""
import argparse
import json
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "golden"))
import torch_env  # noqa: E402  (sets OPENBLAS_CORETYPE for the PyTorch child too)

sys.path.insert(0, HERE)
# Each child's own peak RSS, by GNU time: wait4's would carry this script's over exec.
from bench_compare import run as run_child  # noqa: E402

TORCH_WALK_DIR = os.path.join(HERE, "..", "golden")

# Runs in a child process so that its thread settings and its memory are its own.
TORCH_CHILD = r"""
import json, math, resource, sys, time
cfg = json.loads(sys.argv[1])
sys.path.insert(0, cfg["torch_walk_dir"])
import torch_env  # before torch: it chooses OpenBLAS's kernel
import torch
torch.set_num_threads(cfg["threads"])
sys.path.insert(0, cfg["torch_walk_dir"])
import torch_walk

def median(v):
    v = sorted(v); n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2

out = {"rss_after_import_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
if cfg.get("gemm"):
    n = 2048
    a, b = torch.randn(n, n), torch.randn(n, n)
    a @ b
    ts = []
    for _ in range(5):
        t0 = time.perf_counter(); a @ b; ts.append(time.perf_counter() - t0)
    out["gemm_gflops"] = 2 * n ** 3 / min(ts) / 1e9
else:
    B, T, D, H = cfg["batch"], cfg["tokens"], cfg["d_model"], cfg["heads"]
    torch.manual_seed(cfg["seed"])
    x = torch.randn(B, T, D)
    mha = torch_walk.MultiHeadAttention(D, D, T, 0.0, H)
    with torch.no_grad():
        y = mha(x)  # warm-up
        ms = []
        for _ in range(cfg["repeat"]):
            t0 = time.perf_counter()
            y = mha(x)
            ms.append((time.perf_counter() - t0) * 1e3)
    flat = y.reshape(-1).tolist()
    s = a = 0.0
    for v in flat:  # float64, in order, as attn-walk sums
        s += v; a += abs(v)
    out.update(median_ms=median(ms), min_ms=min(ms), sum=s, abs_sum=a, first=flat[:8],
               threads=torch.get_num_threads())
print(json.dumps(out))
"""


def torch_env(threads):
    env = dict(os.environ)
    env["OPENBLAS_NUM_THREADS"] = env["OMP_NUM_THREADS"] = str(threads)
    return env


def run_torch(args, tokens, gemm=False):
    cfg = dict(batch=args.batch, tokens=tokens, d_model=args.d_model, heads=args.heads, seed=args.seed,
               repeat=args.repeat, threads=args.threads, torch_walk_dir=TORCH_WALK_DIR, gemm=gemm)
    result, rss = run_child([args.python, "-c", TORCH_CHILD, json.dumps(cfg)], env=torch_env(args.threads))
    result["peak_rss_mib"] = rss
    return result


def run_attn_walk(args, tokens):
    cmd = [args.binary, "bench", "--tokens", str(tokens), "--d-model", str(args.d_model), "--heads",
           str(args.heads), "--batch", str(args.batch), "--repeat", str(args.repeat), "--threads",
           str(args.threads), "--seed", str(args.seed), "--format", "json"]
    result, rss = run_child(cmd)
    result["process_peak_rss_mib"] = rss
    return result


def f32_bits(v):
    return struct.unpack("<I", struct.pack("<f", v))[0]


def agreement(ours, theirs):
    """(first 8 bit-identical, max |difference| of the first 8, relative sum differences)."""
    same_bits = all(f32_bits(a) == f32_bits(b) for a, b in zip(ours["first"], theirs["first"]))
    max_first = max(abs(a - b) for a, b in zip(ours["first"], theirs["first"]))
    rel_sum = abs(ours["sum"] - theirs["sum"]) / max(1.0, abs(theirs["abs_sum"]))
    rel_abs = abs(ours["abs_sum"] - theirs["abs_sum"]) / max(1.0, abs(theirs["abs_sum"]))
    return same_bits, max_first, max(rel_sum, rel_abs)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default="build/attn-walk")
    ap.add_argument("--python", default="/usr/bin/python3", help="the Python with Debian's torch")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--tokens", type=int, nargs="+", default=[1024])
    ap.add_argument("--scaling", action="store_true", help="T = 128, 512, 1024, 2048, 4096")
    ap.add_argument("--d-model", type=int, default=768)
    ap.add_argument("--heads", type=int, default=12)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--seed", type=int, default=123)
    ap.add_argument("--rounds", type=int, default=1,
                    help="run both sides this many times, alternating, and keep each side's best median "
                         "(steadier on a shared machine)")
    ap.add_argument("--gemm", action="store_true", help="also measure OpenBLAS sgemm's rate (2048^3)")
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table")
    ap.add_argument("--json", help="also write the raw results to this file")
    args = ap.parse_args()
    tokens = [128, 512, 1024, 2048, 4096] if args.scaling else args.tokens

    rows, ok = [], True
    for T in tokens:
        ours = theirs = None
        for _ in range(max(1, args.rounds)):
            o, t = run_attn_walk(args, T), run_torch(args, T)
            ours = o if ours is None or o["median_ms"] < ours["median_ms"] else ours
            theirs = t if theirs is None or t["median_ms"] < theirs["median_ms"] else theirs
        same_bits, max_first, rel = agreement(ours, theirs)
        agree = max_first <= 1e-4 and rel <= 1e-4
        ok &= agree
        rows.append(dict(T=T, ours=ours, torch=theirs, ratio=theirs["median_ms"] / ours["median_ms"],
                         same_bits=same_bits, max_first=max_first, rel_sum=rel, agree=agree))
        if not args.markdown:
            print(f"T={T}: attn-walk {ours['median_ms']:.1f} ms, PyTorch {theirs['median_ms']:.1f} ms", file=sys.stderr)
    gemm = run_torch(args, 0, gemm=True)["gemm_gflops"] if args.gemm else None

    B, D, H, N = args.batch, args.d_model, args.heads, args.threads
    title = (f"MultiHeadAttention({D}, {D}, T, 0.0, num_heads={H}) forward, batch {B}, {N} threads, "
             f"median of {args.repeat} after a warm-up" + (f", best of {args.rounds} rounds" if args.rounds > 1 else ""))
    if args.markdown:
        print(f"{title}\n")
        print("| T | attn-walk ms | PyTorch ms | speed-up | attn-walk GFLOP/s (PyTorch's count) | attn-walk peak RSS | "
              "PyTorch peak RSS | outputs |")
        print("|---:|---:|---:|---:|---:|---:|---:|:---|")
        for r in rows:
            o, t = r["ours"], r["torch"]
            verdict = ("equal (first 8 bit-identical" if r["same_bits"] else f"within {r['max_first']:.1e} (first 8") + \
                      f", sums within {r['rel_sum']:.0e})"
            print(f"| {r['T']} | {o['median_ms']:.1f} | {t['median_ms']:.1f} | {r['ratio']:.2f}x | {o['gflops']:.0f} | "
                  f"{o['process_peak_rss_mib']:.0f} MiB | {t['peak_rss_mib']:.0f} MiB | {verdict if r['agree'] else 'DIFFER'} |")
        print(f"\nPyTorch's peak RSS includes about {rows[0]['torch']['rss_after_import_mib']:.0f} MiB for "
              "`import torch` itself. GFLOP/s counts the forward's FLOPs as PyTorch computes it (full T x T "
              "products); attn-walk skips the masked half of the attention.")
    else:
        print(title)
        print(f"{'T':>6} {'attn-walk ms':>13} {'PyTorch ms':>11} {'speed-up':>9} {'GFLOP/s':>8} "
              f"{'RSS ours':>9} {'RSS torch':>10}  outputs")
        for r in rows:
            o, t = r["ours"], r["torch"]
            verdict = "agree" if r["agree"] else "DIFFER"
            detail = "first 8 bit-identical" if r["same_bits"] else f"first 8 within {r['max_first']:.1e}"
            print(f"{r['T']:>6} {o['median_ms']:>13.1f} {t['median_ms']:>11.1f} {r['ratio']:>8.2f}x "
                  f"{o['gflops']:>8.0f} {o['process_peak_rss_mib']:>6.0f} MiB {t['peak_rss_mib']:>6.0f} MiB  "
                  f"{verdict} ({detail}, sums within {r['rel_sum']:.0e})")
    if gemm is not None:
        print(f"\nOpenBLAS sgemm (torch.mm, 2048 x 2048 x 2048 float32) on {N} threads: {gemm:.0f} GFLOP/s")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(args=vars(args), rows=rows, gemm_gflops=gemm), f, indent=1)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
