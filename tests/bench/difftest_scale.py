"""tests/golden/difftest.py on larger random configurations: every stage, every step.

    /usr/bin/python3 tests/bench/difftest_scale.py --binary build/attn-walk [--count 12] [--seed 1]

difftest.py draws embedding widths up to 16 and d_out up to 8, where every matrix product
reaches OpenBLAS's small kernels with K < 32. These configurations (widths up to 768,
d_out up to 128, up to 160 tokens) reach the other code paths: the "dot-like" small
kernels (K >= 32), the blocked kernel (M*N*K > 100^3, K-blocks of 320), sdot's vector
part (length >= 32), the fused attention of CausalAttention. Each step must match PyTorch
as difftest.py checks it: the same printed text, and values within 1e-5.
"""
import argparse
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "golden"))
import torch_env  # noqa: E402  (before torch: it chooses OpenBLAS's kernel)
import difftest  # noqa: E402
import make_goldens  # noqa: E402


def random_config(rng, i):
    T = rng.choice([8, 30, 33, 64, 100, 129, 160])
    d_in = rng.choice([32, 40, 64, 96, 300, 400, 768])
    heads = rng.choice([1, 2, 3, 4])
    d_out = heads * rng.choice([8, 12, 16, 32])
    opts = {"d_out": d_out, "heads": heads, "batch": rng.randint(1, 2), "qkv_bias": rng.random() < 0.5,
            "attn_dropout": rng.choice([0.0, 0.0, 0.1]), "init": rng.choice(["rand", "randn"]),
            "seed": rng.choice([None, 1, 42])}
    emb = [[round(rng.uniform(-1, 1), 4) for _ in range(d_in)] for _ in range(T)]
    return make_goldens.golden(f"scale{i}_T{T}_d{d_in}_o{d_out}_h{heads}", opts, [f"x{k + 1}" for k in range(T)], emb)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default="build/attn-walk")
    ap.add_argument("--count", type=int, default=12)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    failed = 0
    for i in range(args.count):
        doc = random_config(rng, i)
        problems = difftest.compare(doc, args.binary)
        print(("FAIL " if problems else "ok   ") + doc["name"], doc["options"] if problems else "")
        for p in problems:
            print("  " + p[:200])
        failed += bool(problems)
    print(f"{args.count - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
