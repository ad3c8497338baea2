"""SLEEF goldens from real PyTorch: tests/golden/sleef_cases.json.

    /usr/bin/python3 tests/golden/make_sleef_goldens.py   (or: make goldens)

torch.sin/torch.cos on angles below 125 (where attn-walk reproduces SLEEF's range reduction),
and RoPE's inv_freq = 1.0 / (theta_base ** (arange(0, head_dim, 2) / head_dim)) for head sizes
whose half is below and above 16 (the vectorised pow of the first 16 elements), replayed by
tests/test_torch_sleef.cpp bit for bit.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import torch_env  # noqa: E402  (before torch)
import torch  # noqa: E402


def main():
    torch_env.require_bit_exact("make_sleef_goldens.py")
    torch.manual_seed(0)
    angles = torch.cat([
        torch.tensor([0.0, -0.0, 1e-30, 1.0, 3.1415927, 1.5707964, -2.0, 124.99, -124.99]),
        torch.rand(400) * 250 - 125,                                       # the whole range
        torch.arange(0, 125, dtype=torch.float32)[:, None].mul(torch.rand(1, 4)).flatten(),  # RoPE-like
    ])
    cases = {"angles": angles.tolist(), "sin": torch.sin(angles).tolist(), "cos": torch.cos(angles).tolist(),
             "inv_freq": []}
    for base in [10000.0, 500000.0, 100.0, 2.0, 1.0, 3.7, 1e12, 123456.789]:
        for head_dim in [2, 4, 8, 30, 32, 34, 64, 66, 128]:
            inv_freq = 1.0 / (base ** (torch.arange(0, head_dim, 2, dtype=torch.float32)[: (head_dim // 2)].float() / head_dim))
            cases["inv_freq"].append({"theta_base": base, "head_dim": head_dim, "inv_freq": inv_freq.tolist()})
    path = os.path.join(HERE, "sleef_cases.json")
    with open(path, "w") as f:
        json.dump(cases, f, separators=(",", ":"))
        f.write("\n")
    print(f"{path}: {len(angles)} angles, {len(cases['inv_freq'])} inv_freq cases")


if __name__ == "__main__":
    main()
