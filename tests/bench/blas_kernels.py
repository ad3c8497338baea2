"""What a learner sees with another OpenBLAS kernel than the one attn-walk reproduces.

    /usr/bin/python3 tests/bench/blas_kernels.py [--kernels Cooperlake,SkylakeX,Haswell,...]

OpenBLAS 0.3.21 picks its sgemm kernel from the CPU; OPENBLAS_CORETYPE overrides the choice.
For each kernel this CPU can run, a child process (with that OPENBLAS_CORETYPE, and the
kernel OpenBLAS reports it actually loaded) computes, with the reference Cooperlake kernel as
the baseline:
  - torch.randn(1024, 768) @ torch.randn(768, 768).T and a 40 x 40 @ 40 x 4 product:
    how many float32 results differ in their bits, and whether str() (4 decimals) differs;
  - every stage of the chapter's walk (tests/golden/torch_walk.py, book configuration):
    how many values differ in their bits, and how many printed steps differ.
The numbers go into docs/fidelity.md.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "..", "golden")
sys.path.insert(0, GOLDEN)
import torch_env  # noqa: E402  (the parent never loads torch; each child asks torch_env for its kernel)

CHILD = r"""
import ctypes, json, os, struct, sys
sys.path.insert(0, sys.argv[1])
import torch_env  # sets OPENBLAS_CORETYPE from ATTN_WALK_KERNEL, before torch
import torch
import torch_walk
lib = ctypes.CDLL("libopenblas.so.0")
lib.openblas_get_corename.restype = ctypes.c_char_p
core = lib.openblas_get_corename().decode()
def bits(t):
    return [struct.unpack("<I", struct.pack("<f", v))[0] for v in t.flatten().tolist()]
g = torch.Generator().manual_seed(0)
a, b = torch.randn(1024, 768, generator=g), torch.randn(768, 768, generator=g)
big = a @ b.T
c, d = torch.randn(40, 40, generator=g), torch.randn(40, 4, generator=g)
small = c @ d
journey = json.load(open(os.path.join(sys.argv[1], "..", "..", "data", "journey.json")))
cfg = torch_walk.Cfg(journey["embeddings"])
walk = {s: torch_walk.run_stage(s, cfg) for s in torch_walk.STAGES}
print(json.dumps({"core": core, "big": bits(big), "big_str": str(big), "small": bits(small),
                  "small_str": str(small), "walk": walk}))
"""


def run(kernel):
    env = dict(os.environ, ATTN_WALK_KERNEL=kernel, OPENBLAS_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-c", CHILD, GOLDEN], env=env, capture_output=True, text=True)
    if out.returncode != 0:
        return None
    return json.loads(out.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernels", default="Cooperlake,SkylakeX,Haswell,Zen,Sandybridge,Nehalem,Core2,Prescott")
    args = ap.parse_args()
    ref = run(torch_env.REFERENCE_KERNEL)
    print(f"| OPENBLAS_CORETYPE | kernel loaded | 1024x768 @ 768x768: values differing | printed | "
          f"40x40 @ 40x4: differing | printed | walk values differing | walk steps printed differently |")
    print("|---|---|---|---|---|---|---|---|")
    for k in args.kernels.split(","):
        r = run(k)
        if r is None:
            print(f"| {k} | (failed) | | | | | | |")
            continue
        nb = sum(x != y for x, y in zip(r["big"], ref["big"]))
        ns = sum(x != y for x, y in zip(r["small"], ref["small"]))
        nv = steps = total = 0
        names = []
        for stage, rs in r["walk"].items():
            for s, t in zip(rs, ref["walk"][stage]):
                total += 1
                if s["printed"] != t["printed"]:
                    steps += 1
                    names.append(f"{stage}/{s['name']}")
                nv += sum(x != y for x, y in zip(json.dumps(s["data"]).split(","), json.dumps(t["data"]).split(",")))
        print(f"| {k} | {r['core']} | {nb} of {len(r['big'])} | {'same' if r['big_str'] == ref['big_str'] else 'differs'} | "
              f"{ns} of {len(r['small'])} | {'same' if r['small_str'] == ref['small_str'] else 'differs'} | "
              f"{nv} | {steps} of {total}{': ' + ', '.join(names) if names else ''} |")


if __name__ == "__main__":
    main()
