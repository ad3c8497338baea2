"""Goldens for `attn-walk bench --backward`: the chapter's MultiHeadAttention at GPT-2 width,
forward and backward under PyTorch 1.13's autograd, as digests.

    /usr/bin/python3 tests/golden/make_bench_backward_goldens.py [--tokens 40 128 203 256 1024]

For each T, in the bench's order of draws:
    torch.manual_seed(123)
    x = torch.randn(1, T, 768).requires_grad_()
    mha = MultiHeadAttention(768, 768, T, 0.0, 12)
    y = mha(x)
    grad_y = torch.randn_like(y)          # drawn after the forward, from the same generator
    y.backward(grad_y)
and for y, grad_y and each gradient (x, W_query, W_key, W_value, out_proj weight and bias):
its shape, the 64-bit FNV-1a hash of its float32 bytes (little-endian, C order), its sum in double, and a
few sampled values as their bits, so a mismatch says where. The full tensors (several MB each)
are not committed: the digest is the bit-for-bit check.
"""
import argparse
import json
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import torch_env  # noqa: E402  (before torch: it chooses OpenBLAS's kernel)
import torch  # noqa: E402
import torch_walk  # noqa: E402

NAMES = ["y", "grad_y", "x", "W_query.weight", "W_key.weight", "W_value.weight", "out_proj.weight",
         "out_proj.bias"]


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def digest(t):
    flat = t.detach().contiguous().view(-1)
    data = flat.numpy().astype("<f4").tobytes()
    n = flat.numel()
    picks = sorted({0, 1, n // 7, n // 3, n // 2, (2 * n) // 3, n - 2, n - 1})
    return {
        "shape": list(t.shape),
        "fnv1a64": fnv1a64(data),
        "sum": float(flat.double().sum()),
        "samples": [[i, "%08x" % struct.unpack("<I", struct.pack("<f", float(flat[i])))[0]] for i in picks],
    }


def case(T, D=768, H=12, seed=123):
    torch.manual_seed(seed)
    x = torch.randn(1, T, D).requires_grad_()
    mha = torch_walk.MultiHeadAttention(D, D, T, 0.0, H)
    y = mha(x)
    grad_y = torch.randn_like(y)
    y.backward(grad_y)
    tensors = {"y": y, "grad_y": grad_y, "x": x.grad, "W_query.weight": mha.W_query.weight.grad,
               "W_key.weight": mha.W_key.weight.grad, "W_value.weight": mha.W_value.weight.grad,
               "out_proj.weight": mha.out_proj.weight.grad, "out_proj.bias": mha.out_proj.bias.grad}
    return {"tokens": T, "d_model": D, "heads": H, "seed": seed,
            "tensors": {name: digest(tensors[name]) for name in NAMES}}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tokens", type=int, nargs="+", default=[40, 128, 203, 256, 1024])
    ap.add_argument("--out", default=os.path.join(HERE, "bench_backward.json"))
    args = ap.parse_args()
    if not torch_env.bit_exact:
        sys.exit("make_bench_backward_goldens.py: this CPU cannot run OpenBLAS's Cooperlake kernel; "
                 "goldens not written")
    cases = [case(T) for T in args.tokens]
    # One line per tensor: small diffs when a golden changes.
    lines = ['{"torch": %s, "threads": %d, "cases": [' % (json.dumps(torch.__version__), torch.get_num_threads())]
    for c, cfg in enumerate(cases):
        head = {k: v for k, v in cfg.items() if k != "tensors"}
        lines.append(" {" + json.dumps(head)[1:-1] + ', "tensors": {')
        names = list(cfg["tensors"])
        for i, name in enumerate(names):
            lines.append("  %s: %s%s" % (json.dumps(name), json.dumps(cfg["tensors"][name]), "," if i + 1 < len(names) else ""))
        lines.append(" }}" + ("," if c + 1 < len(cases) else ""))
    lines.append("]}")
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
