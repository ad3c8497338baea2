"""Goldens for the fast paths under OpenBLAS's Haswell kernel: tests/golden/haswell_fast.json.

    /usr/bin/python3 tests/golden/make_haswell_fast_goldens.py   (or: make goldens)

Haswell's kernel sums some outputs of a product in two chains (torch/sgemm_order.cpp), which the
fast kernels recompute (kernels/gemm.h). These goldens check them where they run: the bench's
prepared projections, the fused causal attention forward and its backward. For each case and for
1 and 2 OpenBLAS threads, a child process (OPENBLAS_CORETYPE=Haswell and OPENBLAS_NUM_THREADS set
before torch loads; what OpenBLAS loaded is checked) runs make_bench_backward_goldens.py's case:
the chapter's MultiHeadAttention forward and backward in the bench's order of draws, each tensor
as its FNV-1a 64 digest and a few sampled values. Any AVX2 CPU can run the Haswell kernel.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import torch_env  # noqa: E402  (the parent never loads torch)

# (tokens, d_model, heads): GPT-2's width and heads at two lengths (T = 203 cuts every tile);
# head_dim 48; T = 700, whose products over T have three K-blocks, the last two rounded
# differently by OpenBLAS's one-thread and threaded drivers.
CASES = [(128, 768, 12), (203, 768, 12), (333, 192, 4), (700, 128, 2)]


def child(threads):
    torch_env.use_kernel("Haswell", threads)
    import make_bench_backward_goldens  # imports torch: after the kernel is chosen
    loaded = torch_env.loaded_kernel()
    if loaded != ("Haswell", threads):
        raise SystemExit(f"asked OpenBLAS for Haswell with {threads} threads, it loaded {loaded}")
    print(json.dumps([make_bench_backward_goldens.case(T, D, H) for T, D, H in CASES]))


def main():
    if len(sys.argv) == 2:
        return child(int(sys.argv[1]))
    doc = {"blas_kernel": "haswell", "threads": {}}
    for threads in (1, 2):
        run = subprocess.run([sys.executable, __file__, str(threads)], capture_output=True, text=True)
        if run.returncode != 0:
            raise SystemExit(f"make_haswell_fast_goldens.py: {threads} threads: {run.stderr.strip()}")
        doc["threads"][str(threads)] = json.loads(run.stdout)
    path = os.path.join(HERE, "haswell_fast.json")
    with open(path, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")
    print(f"{path}: {len(CASES)} cases x 1 and 2 threads")


if __name__ == "__main__":
    main()
