"""Goldens for torch.softmax(x, dim=1) of (b, T, T) scores: tests/golden/softmax_dim_cases.json.

    /usr/bin/python3 tests/golden/make_softmax_dim_goldens.py   (or: make goldens)

--softmax-dim 1 (exercise 3.2's solution) runs PyTorch's _vec_softmax, whose columns take a
vectorised or a scalar exp depending on how parallel_for splits them among
torch.get_num_threads() threads. Each case is torch.randn(b, T, T) after manual_seed(seed),
masked above the diagonal with -inf and divided by sqrt(2), as CausalAttention does, then
softmaxed over dim=1 with `threads` threads. The output is recorded as the FNV-1a 64-bit hash
of its float32 bytes (little-endian) and the number of elements that differ between threads,
so that the cases are known to tell thread counts apart. tests/test_softmax_dim.cpp replays them.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import torch_env  # noqa: E402  (before torch)
import torch  # noqa: E402


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def scores(b, T, seed):
    torch.manual_seed(seed)
    x = torch.randn(b, T, T)
    x.masked_fill_(torch.triu(torch.ones(T, T), diagonal=1).bool(), -torch.inf)
    return x / 2 ** 0.5


def main():
    torch_env.require_bit_exact("make_softmax_dim_goldens.py")
    cases = []
    # Below b*T*T = 32768 PyTorch stays on one thread; above, the columns are split.
    for b, T, seed in [(2, 6, 1), (3, 17, 2), (1, 181, 3), (1, 182, 4), (2, 129, 5), (4, 91, 6),
                       (3, 105, 7), (2, 300, 8)]:
        x = scores(b, T, seed)
        outs = {}
        for threads in [1, 2, 3, 4]:
            torch.set_num_threads(threads)
            outs[threads] = torch.softmax(x, dim=1).contiguous()
        for threads, out in outs.items():
            differ = int((out != outs[1]).sum())
            cases.append({"b": b, "T": T, "seed": seed, "threads": threads,
                          "fnv1a64": fnv1a64(out.numpy().astype("<f4").tobytes()),
                          "differ_from_1_thread": differ})
    path = os.path.join(HERE, "softmax_dim_cases.json")
    with open(path, "w") as f:
        json.dump(cases, f, indent=1)
        f.write("\n")
    print(f"{path}: {len(cases)} cases, "
          f"{sum(c['differ_from_1_thread'] > 0 for c in cases)} where the thread count matters")


if __name__ == "__main__":
    main()
