"""`make bench-compare`: attn-walk against PyTorch at its best and ONNX Runtime, side by side; then the
training step (forward plus backward) against PyTorch's autograd (bench_compare_backward.py).

    /usr/bin/python3 tests/bench/bench_compare.py --binary build/attn-walk --ort build/bench-node/node_modules

Every peer runs the chapter's MultiHeadAttention(D, D, T, 0.0, H) forward, causal, dropout 0, on
x = torch.randn(1, T, D) drawn after torch.manual_seed(123), with 2 threads:
- attn-walk: `attn-walk bench` (its fused forward; the FMA probe gives the machine's peak);
- PyTorch (Debian's python3-torch 1.13 with OpenBLAS, its Cooperlake kernel: torch_env.py), the
  module of tests/golden/torch_walk.py under torch.no_grad(), three ways: glibc's malloc; tcmalloc
  (LD_PRELOAD of libtcmalloc_minimal.so.4); jemalloc (LD_PRELOAD of libjemalloc.so.2 with
  MALLOC_CONF=retain:true,dirty_decay_ms:-1,muzzy_decay_ms:-1). The caching allocators keep freed
  pages: in these VMs a first-touch page fault costs about 6.5 us, and glibc returns large tensors
  to the kernel, so every op faults again. The last two also set OMP_WAIT_POLICY=PASSIVE, so that
  libgomp's spinning workers do not fight OpenBLAS's threads for the two cores. "PyTorch at its
  best" is the fastest of the three;
- ONNX Runtime (npm's onnxruntime-node, CPU), on the same module exported by torch.onnx.export.

Each peer is its own process: one warm-up, then --repeat timed forwards, of which it reports the
median. The peers run interleaved, round after round (--rounds), so that drift on a shared machine
hits all of them alike; the table shows the median over rounds. The outputs are compared element
by element: attn-walk against PyTorch bit for bit, ONNX Runtime by its largest difference.
"""
import argparse
import json
import os
import statistics
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "..", "golden")
sys.path.insert(0, GOLDEN)
import torch_env  # noqa: E402,F401  (before numpy/torch: OpenBLAS reads it when it loads)

import numpy as np  # noqa: E402

LIB = "/usr/lib/x86_64-linux-gnu"
TCMALLOC = f"{LIB}/libtcmalloc_minimal.so.4"
JEMALLOC = f"{LIB}/libjemalloc.so.2"

# What every PyTorch child process starts with (this one's and bench_compare_backward.py's):
# the generator's seed set, the module's sizes read from the JSON config in argv[1]; and how it
# reports its median time over the timed steps in `ms`.
CHILD_START = r"""
import json, sys, time
cfg = json.loads(sys.argv[1])
sys.path.insert(0, cfg["golden"])
import torch_env
import torch
torch.set_num_threads(cfg["threads"])
import torch_walk
B, T, D, H = 1, cfg["tokens"], cfg["d_model"], cfg["heads"]
torch.manual_seed(cfg["seed"])
"""
CHILD_MEDIAN = r"""
ms.sort()
median_ms = ms[len(ms) // 2] if len(ms) % 2 else (ms[len(ms) // 2 - 1] + ms[len(ms) // 2]) / 2
"""

# One PyTorch process: "export" writes x and the ONNX model; "time" times the forward.
TORCH_CHILD = CHILD_START + r"""
x = torch.randn(B, T, D)
mha = torch_walk.MultiHeadAttention(D, D, T, 0.0, H).eval()
if cfg["mode"] == "export":
    x.numpy().tofile(cfg["x"])
    torch.onnx.export(mha, (x,), cfg["onnx"], input_names=["x"], output_names=["context_vec"],
                      opset_version=14)
    print("{}")
    sys.exit(0)
with torch.no_grad():
    y = mha(x)
    ms = []
    for _ in range(cfg["repeat"]):
        t0 = time.perf_counter(); y = mha(x); ms.append((time.perf_counter() - t0) * 1e3)
y.numpy().tofile(cfg["y"])
""" + CHILD_MEDIAN + r"""
print(json.dumps({"median_ms": median_ms,
                  "min_ms": ms[0], "blas": list(torch_env.loaded_kernel())}))
"""


def run_timed(cmd, env=None):
    """Runs cmd; returns (its JSON on stdout, or its text when that is not JSON; its peak RSS in MiB; its
    wall time in s).

    The peak RSS is GNU time's (%M) of cmd run under /usr/bin/time, so that it is cmd's own: a child
    forked from this Python inherits the script's high-water mark across exec (Linux keeps the old
    image's in ru_maxrss), so wait4's figure would be at least this process's size, which by then
    holds the peers' outputs. (/usr/bin/time is a small C program: what its child inherits from it
    is a few MiB at most.)"""
    with tempfile.TemporaryFile() as out, tempfile.NamedTemporaryFile("r") as rss:
        t0 = time.perf_counter()
        p = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", rss.name, *cmd], stdout=out,
                             stderr=subprocess.PIPE, env=env)
        _, status, _ = os.wait4(p.pid, 0)
        seconds = time.perf_counter() - t0
        err = p.stderr.read().decode()
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"{' '.join(cmd[:4])} ... failed: {err.strip()[-2000:]}")
        out.seek(0)
        text = out.read().decode()
        peak_kib = int(rss.read().split()[-1])
        return (json.loads(text) if text.strip().startswith("{") else text), peak_kib / 1024, seconds


def run(cmd, env=None):
    """Runs cmd; returns (its JSON on stdout, its peak RSS in MiB): run_timed without the time."""
    doc, peak_mib, _ = run_timed(cmd, env)
    return doc, peak_mib


def base_env(threads):
    env = dict(os.environ)
    env["OPENBLAS_NUM_THREADS"] = env["OMP_NUM_THREADS"] = str(threads)
    return env


def torch_variants(threads):
    passive = dict(OMP_WAIT_POLICY="PASSIVE")
    return {
        "PyTorch glibc": base_env(threads),
        "PyTorch tcmalloc": dict(base_env(threads), LD_PRELOAD=TCMALLOC, **passive),
        "PyTorch jemalloc": dict(base_env(threads), LD_PRELOAD=JEMALLOC,
                                 MALLOC_CONF="retain:true,dirty_decay_ms:-1,muzzy_decay_ms:-1", **passive),
    }


def work_gflop(T, D):
    """What attn-walk computes: the projections and the causal half of the attention."""
    return (8.0 * T * D * D + 2.0 * 2.0 * D * T * (T + 1) / 2.0) / 1e9


def bits_equal(a, b):
    return a.shape == b.shape and np.array_equal(a.view(np.uint32), b.view(np.uint32))


def measure(args, T, tmp):
    cfg = dict(golden=GOLDEN, tokens=T, d_model=args.d_model, heads=args.heads, seed=args.seed,
               threads=args.threads, repeat=args.repeat)
    xs, onnx = os.path.join(tmp, f"x{T}.bin"), os.path.join(tmp, f"mha{T}.onnx")
    run([args.python, "-c", TORCH_CHILD, json.dumps(dict(cfg, mode="export", x=xs, onnx=onnx))],
        env=base_env(args.threads))
    times = {}
    blas = {}  # the sgemm kernel and thread count each PyTorch process's OpenBLAS loaded
    outputs = {}
    rss = {}

    def peer(name):
        y = os.path.join(tmp, f"y_{name.replace(' ', '_')}_{T}")
        if name == "attn-walk":
            r, m = run([args.binary, "bench", "--tokens", str(T), "--d-model", str(args.d_model),
                        "--heads", str(args.heads), "--batch", "1", "--repeat", str(args.repeat),
                        "--threads", str(args.threads), "--seed", str(args.seed), "--format", "json",
                        "--no-probe", "--save-output", y + ".npy"])
            outputs[name] = np.load(y + ".npy").reshape(-1)
        elif name == "ONNX Runtime":
            env = dict(os.environ, NODE_PATH=args.ort)
            r, m = run(["node", os.path.join(HERE, "ort_runner.js"), onnx, xs, "1", str(T), str(args.d_model),
                        str(args.threads), str(args.repeat), y], env=env)
            outputs[name] = np.fromfile(y, dtype=np.float32)
        else:
            r, m = run([args.python, "-c", TORCH_CHILD, json.dumps(dict(cfg, mode="time", y=y))],
                       env=torch_variants(args.threads)[name])
            outputs[name] = np.fromfile(y, dtype=np.float32)
        times.setdefault(name, []).append(r["median_ms"])
        if "blas" in r:
            blas[name] = r["blas"]
        rss[name] = max(rss.get(name, 0.0), m)

    names = ["attn-walk", *torch_variants(args.threads), "ONNX Runtime"]
    for rnd in range(args.rounds):
        # Rotate the order each round so that no peer always runs first after a pause.
        for name in names[rnd % len(names):] + names[:rnd % len(names)]:
            peer(name)
    med = {n: statistics.median(v) for n, v in times.items()}
    torch_best = min((n for n in med if n.startswith("PyTorch")), key=med.get)
    ref = outputs["PyTorch glibc"]
    return dict(T=T, ms=med, rss=rss, torch_best=torch_best, blas=blas.get("PyTorch glibc"),
                attn_walk_bit_exact=bits_equal(outputs["attn-walk"], ref),
                attn_walk_max_diff=float(np.max(np.abs(outputs["attn-walk"] - ref))),
                torch_variants_agree=all(bits_equal(outputs[n], ref) for n in outputs if n.startswith("PyTorch")),
                ort_max_diff=float(np.max(np.abs(outputs["ONNX Runtime"] - ref))))


def walk_at_scale(args):
    """The multi-head walk at GPT-2 size: whole process time and peak RSS."""
    cmd = [args.binary, "--stage", "multi-head", "--random-input", f"1024x{args.d_model}", "--d-out",
           str(args.d_model), "--heads", str(args.heads), "--batch", "1", "-o", os.devnull]
    best = None
    for _ in range(args.rounds):
        _, peak_mib, s = run_timed(cmd)
        r = (s, peak_mib)
        best = r if best is None or r[0] < best[0] else best
    return best


def probe_peak(args):
    r, _ = run([args.binary, "bench", "--tokens", "64", "--d-model", "64", "--heads", "1", "--repeat", "1",
                "--threads", str(args.threads), "--format", "json"])
    return r["peak_gflops"], r["isa"], r["tile_gflops"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default="build/attn-walk")
    ap.add_argument("--python", default="/usr/bin/python3", help="the Python with Debian's torch")
    ap.add_argument("--ort", default="build/bench-node/node_modules", help="node_modules holding onnxruntime-node")
    ap.add_argument("--tokens", type=int, nargs="+", default=[128, 512, 1024, 2048, 4096])
    ap.add_argument("--d-model", type=int, default=768)
    ap.add_argument("--heads", type=int, default=12)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=10, help="timed forwards per process, after one warm-up")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=123)
    ap.add_argument("--backward-tokens", type=int, nargs="*", default=[128, 512, 1024, 2048, 4096],
                    help="T of the training step's rows (bench_compare_backward.py); none: skip them")
    ap.add_argument("--backward-repeat", type=int, default=5, help="timed steps per process, after one warm-up")
    ap.add_argument("--json", help="also write the raw results here")
    args = ap.parse_args()
    args.ort = os.path.abspath(args.ort)

    peak, isa, tile = probe_peak(args)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for T in args.tokens:
            rows.append(measure(args, T, tmp))
            r = rows[-1]
            print(f"T={T}: " + ", ".join(f"{n} {v:.1f} ms" for n, v in r["ms"].items()), file=sys.stderr)
        import bench_compare_backward as bcb
        backward_args = argparse.Namespace(**dict(vars(args), repeat=args.backward_repeat))
        backward_rows = bcb.run_all(backward_args, args.backward_tokens, tmp)
    walk = walk_at_scale(args)
    # The peak is a maximum: a neighbour's load can only lower a reading, so keep the higher of
    # a probe before and one after the runs.
    after = probe_peak(args)
    peak, tile = max(peak, after[0]), max(tile, after[2])

    D, H, N = args.d_model, args.heads, args.threads
    print(f"MultiHeadAttention({D}, {D}, T, 0.0, num_heads={H}) forward, batch 1, {N} threads; each time "
          f"is the median over {args.rounds} interleaved rounds of each process's median of {args.repeat} "
          f"forwards after a warm-up.\n")
    print(f"FMA peak measured by `attn-walk bench`'s probe ({isa}, {N} threads; the higher of a reading before "
          f"and one after the runs): {peak:.0f} GFLOP/s. "
          "GFLOP/s counts the work attn-walk does: 8·T·D² for the projections and the causal half of "
          "the attention, 2·T(T+1)·D. The products' register tile alone, its operands in L1 cache, ran at "
          f"{tile:.0f} GFLOP/s ({100 * tile / peak:.1f}% of the peak; the higher of the same two readings): "
          "what the products approach at best on this machine.\n")
    print("| T | attn-walk ms | GFLOP/s | % of peak | PyTorch glibc ms | PyTorch tcmalloc ms | PyTorch jemalloc ms "
          "| ONNX Runtime ms | vs PyTorch at its best | vs ONNX Runtime | attn-walk = PyTorch | ONNX Runtime max diff |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---|---:|")
    ok = True
    for r in rows:
        ms, T = r["ms"], r["T"]
        gf = work_gflop(T, D) / (ms["attn-walk"] / 1e3)
        best = ms[r["torch_best"]]
        ok &= r["attn_walk_bit_exact"]
        exact = "bit for bit" if r["attn_walk_bit_exact"] else f"DIFFERS ({r['attn_walk_max_diff']:.1e})"
        print(f"| {T} | {ms['attn-walk']:.1f} | {gf:.0f} | {100 * gf / peak:.1f}% | {ms['PyTorch glibc']:.1f} | "
              f"{ms['PyTorch tcmalloc']:.1f} | {ms['PyTorch jemalloc']:.1f} | {ms['ONNX Runtime']:.1f} | "
              f"{best / ms['attn-walk']:.2f}x | {ms['ONNX Runtime'] / ms['attn-walk']:.2f}x | {exact} | "
              f"{r['ort_max_diff']:.1e} |")
    # Whose summation order attn-walk matched: the kernel PyTorch's OpenBLAS loaded (attn-walk
    # picks the same one from the CPU and OPENBLAS_CORETYPE, which torch_env.py set for both).
    kernels = {tuple(r["blas"]) for r in rows if r.get("blas")}
    matched = [r["T"] for r in rows if r["attn_walk_bit_exact"]]
    print("\nsgemm order: " + (", ".join(f"OpenBLAS's {k} kernel with {n} threads" for k, n in sorted(kernels))
                               or "(PyTorch did not say which kernel)") +
          (f"; attn-walk matched it bit for bit at T = {', '.join(map(str, matched))}" if matched
           else "; attn-walk matched it at no T"))
    print(f"\nPeak RSS at T = {rows[-1]['T']}: " + ", ".join(f"{n} {v:.0f} MiB" for n, v in rows[-1]["rss"].items()))
    print(f"\nThe multi-head walk at 1024 x {D}, {H} heads, batch 1, text to /dev/null: "
          f"{walk[0]:.2f} s whole process, peak {walk[1]:.0f} MiB (best of {args.rounds}).")
    if backward_rows:
        ok &= bcb.print_table(backward_args, backward_rows, peak)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(args=vars(args), peak_gflops=peak, tile_gflops=tile, isa=isa, rows=rows, walk=walk,
                           backward_rows=backward_rows), f, indent=1)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
