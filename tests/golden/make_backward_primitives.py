"""The experiments behind the backward stage's kernels, as goldens: PyTorch 1.13's outputs on
inputs chosen to reach every path (row lengths around the 8-lane vectors, the 16-row cascade,
columns in groups of 4, 8 and 32, OpenBLAS's small and blocked kernels with a transposed A,
the scalar tail of AdamW's element-wise ops). Writes tests/golden/backward_primitives.json,
which tests/test_backward_primitives.cpp replays bit for bit.

    /usr/bin/python3 tests/golden/make_backward_primitives.py     (or: make goldens)
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import torch_env  # noqa: E402  (before torch)
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

OUT = os.path.join(HERE, "backward_primitives.json")


def flat(t):
    return [float(v) for v in t.detach().reshape(-1).tolist()]


def main():
    torch_env.require_bit_exact("make_backward_primitives.py")
    torch.set_num_threads(2)
    g = torch.Generator().manual_seed(2024)
    doc = {"torch_version": torch.__version__, "softmax_backward": [], "cross_entropy": [], "logf": None,
           "column_sums": [], "mm_at": [], "adamw": []}

    # softmax's backward: rows of n, the weights a causal softmax (zeros after the diagonal).
    for n in [1, 2, 7, 8, 9, 15, 16, 17, 24, 33, 100]:
        scores = torch.randn(3, n, generator=g) * 2
        for r in range(3):
            scores[r, n - r:] = -torch.inf if n - r > 0 else scores[r, n - r:]
        x = scores.clone().requires_grad_(True)
        w = torch.softmax(x, dim=-1)
        grad = torch.randn(3, n, generator=g)
        w.backward(grad)
        doc["softmax_backward"].append({"n": n, "weights": flat(w), "grad": flat(grad), "out": flat(x.grad)})

    # cross_entropy: log_softmax and the NLL's cascade over N rows of V labels.
    for N, V in [(1, 2), (3, 6), (5, 7), (17, 8), (33, 9), (16, 17), (40, 100), (4, 1000)]:
        logits = (torch.randn(N, V, generator=g) * 3).requires_grad_(True)
        targets = torch.randint(0, V, (N,), generator=g)
        loss = F.cross_entropy(logits, targets)
        loss.backward()
        doc["cross_entropy"].append({"N": N, "V": V, "logits": flat(logits), "targets": targets.tolist(),
                                     "log_probs": flat(F.log_softmax(logits, dim=1)), "loss": float(loss),
                                     "grad": flat(logits.grad)})

    # torch.log on float32 (every element through Sleef_logf8_u10): 8 decades, subnormals, 1.
    x = torch.cat([torch.rand(2048, generator=g) * 10 ** torch.randint(-8, 9, (2048,), generator=g).float(),
                   torch.tensor([1.0, 0.75, 1.5, 2.0, 1e-40, 3e-39, 1e30, 0.9999999] * 8)])
    doc["logf"] = {"x": flat(x), "log": flat(torch.log(x))}

    # The larger inputs below are drawn as torch.manual_seed(seed); torch.randn(...), which
    # attn-walk's generator reproduces, so only the seed and the results are stored.
    # t.sum(0) of (rows, cols): a bias's gradient.
    seed = 1000
    for rows in [1, 3, 16, 17, 100, 300]:
        for cols in [1, 2, 3, 4, 5, 7, 8, 9, 16, 31, 32, 33, 40, 70]:
            seed += 1
            torch.manual_seed(seed)
            t = torch.randn(rows, cols)
            doc["column_sums"].append({"seed": seed, "rows": rows, "cols": cols, "sum": flat(t.sum(0))})

    # a.T @ b with a (K, M) contiguous: OpenBLAS's NT small kernel (up to 100^3 multiply-adds),
    # and its blocked kernel (K in blocks of 320, the last two halved).
    for K, M, N in [(1, 3, 2), (10, 6, 2), (33, 5, 3), (100, 16, 16), (321, 4, 7), (700, 9, 5),
                    (101, 101, 101), (700, 40, 40), (1000, 33, 31)]:
        seed += 1
        torch.manual_seed(seed)
        a = torch.randn(K, M)
        b = torch.randn(K, N)
        doc["mm_at"].append({"seed": seed, "K": K, "M": M, "N": N, "c": flat(a.t() @ b)})

    # AdamW and SGD: three steps on 37 elements (two 16-wide vectors and a scalar tail).
    for opt in ["adamw", "sgd"]:
        p = torch.nn.Parameter(torch.randn(37, generator=g))
        grads = [torch.randn(37, generator=g) * s for s in (1.0, 1e-3, 10.0)]
        start = flat(p)
        o = torch.optim.AdamW([p], lr=0.01, weight_decay=0.1) if opt == "adamw" else torch.optim.SGD([p], lr=0.3)
        for gr in grads:
            o.zero_grad()
            p.grad = gr.clone()
            o.step()
        entry = {"optimizer": opt, "start": start, "grads": [flat(x) for x in grads], "param": flat(p)}
        if opt == "adamw":
            entry["exp_avg"] = flat(o.state[p]["exp_avg"])
            entry["exp_avg_sq"] = flat(o.state[p]["exp_avg_sq"])
        doc["adamw"].append(entry)

    with open(OUT, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")
    print(OUT)


if __name__ == "__main__":
    main()
