"""Goldens for OpenBLAS's sgemm under each kernel attn-walk reproduces: tests/golden/sgemm_orders.json.

    /usr/bin/python3 tests/golden/make_sgemm_goldens.py   (or: make goldens)

OpenBLAS 0.3.21 picks its sgemm kernel from the CPU (Cooperlake with avx512_bf16, SkylakeX with
AVX-512, Haswell with AVX2); each sums a product's outputs in its own order, and its driver
splits the work differently with one thread than with several. For each kernel and for 1 and 2
OpenBLAS threads, a child process (OPENBLAS_CORETYPE and OPENBLAS_NUM_THREADS set before torch
loads; the kernel and thread count OpenBLAS reports are checked) runs torch.mm / torch.addmm on
the shapes below, with operands as the transposed views PyTorch passes to OpenBLAS when asked.
Operands are filled by `fill` (a 32-bit integer hash to a float32 with 24 significant bits,
tests/test_sgemm_orders.cpp computes the same), so the goldens hold only each output's FNV-1a 64
of its float32 bytes, and how many of its values differ from Cooperlake's with the same threads
(so that the cases are known to tell the kernels apart).

It also writes tests/golden/sgemm_walks/<kernel>.json: the backward stage (chapter 5's training
loop, tests/golden/torch_backward.py) at GPT-2's width, 8 tokens, a batch of 3, under each kernel
with 2 threads, every step as the FNV-1a 64 of its float32 bytes and its printed text, and how
many steps differ from Cooperlake's.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import torch_env  # noqa: E402  (the parent never loads torch)
from golden_files import write_goldens  # noqa: E402

# (M, N, K, a_transposed, b_transposed, bias): C (M, N) = A (M, K) @ B (K, N) [+ bias].
CASES = [
    # small-matrix kernels (M*N*K <= 100^3) on Cooperlake/SkylakeX; Haswell's blocked kernel
    (8, 6, 5, False, False, False), (40, 4, 40, False, False, False), (10, 20, 40, False, False, False),
    (3, 1, 50, False, False, False), (5, 9, 33, False, False, True),
    (8, 12, 64, False, True, False), (10, 1, 40, False, True, False), (6, 16, 48, False, True, True),
    (12, 6, 24, True, False, False), (20, 7, 9, True, False, False),
    (10, 10, 31, False, True, False), (64, 96, 96, False, True, False),
    # Haswell's tiles: rows of C in chunks of 12, 8, 4, 2, 1; columns in 8s, 16s, 4, 2, 1
    (13, 37, 50, False, False, False), (26, 50, 20, False, False, False), (7, 19, 9, False, False, False),
    (25, 33, 17, False, False, False), (37, 47, 12, False, False, False), (4, 24, 40, False, False, False),
    (11, 23, 8, False, False, False), (20, 16, 7, False, False, False), (5, 40, 16, False, True, False),
    (24, 31, 24, True, False, False), (9, 15, 41, False, False, True),
    # the blocked driver: K-blocks of GEMM_Q, the last two halved; threaded above 65536*4 products
    (37, 50, 300, False, False, False), (50, 70, 500, False, False, False), (40, 30, 900, False, True, False),
    (48, 70, 400, True, False, False), (24, 100, 1000, False, True, True), (60, 61, 700, False, False, False),
    (100, 101, 100, False, False, False), (130, 150, 64, False, True, True), (3, 5, 1000, False, False, False),
    # few columns (OpenBLAS's rows): how the threaded driver shares them out (SWITCH_RATIO)
    (300, 6, 200, False, False, False), (200, 12, 200, False, True, False), (40, 5, 2000, False, False, False),
    (220, 12, 200, False, False, False), (220, 10, 300, False, True, False),
    # GPT-2 width: the forward (x @ W.T + b) and a weight's gradient (grad.T @ x) with 3 x 8 tokens
    (24, 768, 768, False, True, True), (768, 768, 24, True, False, False),
]


def fill(n, seed):
    """n float32 values in [-1, 1) with 24 significant bits, from a 32-bit integer hash."""
    import numpy as np
    idx = np.arange(n, dtype=np.uint64)
    h = (idx * np.uint64(0x9E3779B1) + np.uint64(seed) * np.uint64(0x85EBCA77)) & np.uint64(0xFFFFFFFF)
    h ^= h >> np.uint64(15)
    h = (h * np.uint64(0x2C1B3C6D)) & np.uint64(0xFFFFFFFF)
    h ^= h >> np.uint64(12)
    return ((h & np.uint64(0xFFFFFF)).astype(np.int64) - 0x800000).astype(np.float32) / np.float32(8388608.0)


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def product(torch, M, N, K, a_t, b_t, bias, seed):
    """The case's operands (a_t: A stored (K, M); b_t: B stored (N, K)) and torch's result."""
    a = torch.from_numpy(fill(M * K, seed))
    b = torch.from_numpy(fill(K * N, seed + 1))
    A = a.view(K, M).t() if a_t else a.view(M, K)
    B = b.view(N, K).t() if b_t else b.view(K, N)
    if bias:
        return torch.addmm(torch.from_numpy(fill(N, seed + 2)), A, B)
    return torch.mm(A, B)


def child(kernel, threads):
    torch_env.use_kernel(kernel, threads)
    import torch
    loaded = torch_env.loaded_kernel()
    if loaded != (kernel, threads):
        raise SystemExit(f"asked OpenBLAS for {kernel} with {threads} threads, it loaded {loaded}")
    out = []
    for seed, case in enumerate(CASES):
        c = product(torch, *case, 3 * seed + 1).contiguous()
        out.append(c.numpy().astype("<f4").tobytes().hex())
    print(json.dumps(out))


# The training walk of the walks' goldens: (tokens, d_in, options of make_backward_goldens).
WALK = dict(T=8, d_in=768, data_seed=5, opts=dict(seed=3, d_out=768, heads=12, batch=3, steps=2))


def walk_child(kernel):
    torch_env.use_kernel(kernel, 2)
    import make_backward_goldens  # imports torch: after the kernel is chosen
    import make_goldens
    loaded = torch_env.loaded_kernel()
    if loaded != (kernel, 2):
        raise SystemExit(f"asked OpenBLAS for {kernel} with 2 threads, it loaded {loaded}")
    emb = make_goldens.random_embeddings(WALK["data_seed"], WALK["T"], WALK["d_in"])
    doc = make_backward_goldens.golden(f"backward_{kernel}", WALK["opts"], [f"x{i + 1}" for i in range(WALK["T"])], emb)
    import numpy as np
    for step in doc["stages"]["backward"]:
        if "data" in step:  # the large steps come digested already, by the same FNV-1a
            step["digest"] = fnv1a64(np.asarray(step.pop("data"), dtype="<f4").tobytes())
    doc["blas_kernel"] = kernel.lower()
    doc["blas_threads"] = 2
    print(json.dumps(doc))


def write_walks():
    docs = {}
    for kernel in torch_env.KERNELS:
        run = subprocess.run([sys.executable, __file__, "walk", kernel], capture_output=True, text=True)
        if run.returncode != 0:
            raise SystemExit(f"make_sgemm_goldens.py: the walk under {kernel}: {run.stderr.strip()}")
        docs[kernel] = json.loads(run.stdout)
    ref = [s["digest"] for s in docs["Cooperlake"]["stages"]["backward"]]
    for doc in docs.values():
        doc["steps_differing_from_cooperlake"] = sum(s["digest"] != r for s, r in zip(doc["stages"]["backward"], ref))
    write_goldens(os.path.join(HERE, "sgemm_walks"), ((f"{kernel.lower()}.json", doc) for kernel, doc in docs.items()),
                  lambda path, doc: f"{len(doc['stages']['backward'])} steps, "
                                    f"{doc['steps_differing_from_cooperlake']} differ from Cooperlake's",
                  replace=None)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "walk":
        return walk_child(sys.argv[2])
    if len(sys.argv) == 3:
        return child(sys.argv[1], int(sys.argv[2]))
    results = {}
    for kernel in torch_env.KERNELS:
        for threads in (1, 2):
            run = subprocess.run([sys.executable, __file__, kernel, str(threads)], capture_output=True, text=True)
            if run.returncode != 0:
                raise SystemExit(f"make_sgemm_goldens.py: {kernel}, {threads} threads: {run.stderr.strip()}")
            results[kernel, threads] = [bytes.fromhex(h) for h in json.loads(run.stdout)]
    cases = []
    for i, (M, N, K, a_t, b_t, bias) in enumerate(CASES):
        case = {"M": M, "N": N, "K": K, "a_transposed": a_t, "b_transposed": b_t, "bias": bias, "seed": 3 * i + 1,
                "kernels": {}}
        for (kernel, threads), outs in results.items():
            ref = results["Cooperlake", threads][i]
            mine = outs[i]
            differ = sum(mine[j:j + 4] != ref[j:j + 4] for j in range(0, len(mine), 4))
            case["kernels"][f"{kernel}/{threads}"] = {"fnv1a64": fnv1a64(mine), "differ_from_cooperlake": differ}
        cases.append(case)
    path = os.path.join(HERE, "sgemm_orders.json")
    with open(path, "w") as f:
        json.dump({"openblas": "0.3.21", "cases": cases}, f, indent=1)
        f.write("\n")
    told = sum(any(v["differ_from_cooperlake"] for v in c["kernels"].values()) for c in cases)
    print(f"{path}: {len(cases)} cases x {len(results)} kernels/threads, {told} cases where a kernel differs")
    write_walks()


if __name__ == "__main__":
    main()
