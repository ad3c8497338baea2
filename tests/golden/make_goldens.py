"""Generate the stage goldens from real PyTorch: tests/golden/walks/*.json.

    /usr/bin/python3 tests/golden/make_goldens.py        (or: make goldens)

Each file holds one configuration (embeddings and options, named as attn-walk's flags)
and, for every stage, PyTorch's steps: name, shape, data and the exact printed text.
The C++ test tests/test_walk_goldens.cpp replays them; no PyTorch is needed to test.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_env  # noqa: E402  (before torch: it chooses OpenBLAS's kernel)
from golden_files import write_goldens  # noqa: E402
import torch  # noqa: E402
import torch_walk  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "walks")
JOURNEY = json.load(open(os.path.join(HERE, "..", "..", "data", "journey.json")))

OPTION_DEFAULTS = dict(query=2, seed=None, d_out=2, heads=2, dropout=0.5, attn_dropout=0.0,
                       batch=2, qkv_bias=False, init="rand", softmax_dim=-1, torch_threads=2)


def random_embeddings(seed, T, d_in):
    g = torch.Generator().manual_seed(seed)
    # Round to 4 decimals, as a teacher would type them.
    return [[round(v, 4) for v in row] for row in torch.rand(T, d_in, generator=g).tolist()]


def to_cfg(opts, embeddings):
    o = dict(OPTION_DEFAULTS, **opts)
    seed1 = seed2 = o["seed"]
    if o["seed"] is None:
        seed1, seed2 = 123, 789
    return torch_walk.Cfg(embeddings, query=o["query"], seed1=seed1, seed2=seed2, d_out=o["d_out"],
                          heads=o["heads"], dropout=o["dropout"], attn_dropout=o["attn_dropout"],
                          batch=o["batch"], qkv_bias=o["qkv_bias"], init=o["init"],
                          softmax_dim=o["softmax_dim"], torch_threads=o["torch_threads"])


def golden(name, opts, tokens, embeddings, stages=None):
    cfg = to_cfg(opts, embeddings)
    stages = stages or list(torch_walk.STAGES)
    o = dict(OPTION_DEFAULTS, **opts)
    if cfg.d_out % cfg.heads != 0 and "multi-head" in stages:
        stages = [s for s in stages if s != "multi-head"]
    return {
        "name": name,
        "torch_version": torch.__version__,
        "options": o,
        "tokens": tokens,
        "embeddings": embeddings,
        "stages": {s: torch_walk.run_stage(s, cfg) for s in stages},
    }


def configurations():
    j_tok, j_emb = JOURNEY["tokens"], JOURNEY["embeddings"]
    yield "book", {}, j_tok, j_emb
    yield "book_query5", {"query": 5}, j_tok, j_emb
    yield "book_seed42_bias", {"seed": 42, "qkv_bias": True}, j_tok, j_emb
    yield "book_randn_dout4_h4", {"init": "randn", "d_out": 4, "heads": 4, "batch": 1}, j_tok, j_emb
    yield "book_dropout01_attn03", {"dropout": 0.1, "attn_dropout": 0.3, "batch": 3}, j_tok, j_emb
    yield "book_dropout_edges", {"dropout": 1.0, "attn_dropout": 0.2, "seed": 7}, j_tok, j_emb
    yield "book_dropout0", {"dropout": 0.0, "d_out": 3, "heads": 1}, j_tok, j_emb

    # Exercise 3.2's solution: CausalAttention's softmax over dim=1, as the first ch03.ipynb.
    yield "book_softmax_dim1", {"softmax_dim": 1}, j_tok, j_emb

    def rnd(name, data_seed, T, d_in, **opts):
        emb = random_embeddings(data_seed, T, d_in)
        return name, opts, [f"x{i + 1}" for i in range(T)], emb

    yield rnd("d8_t10_dout6_h3_bias", 1, 10, 8, d_out=6, heads=3, qkv_bias=True, seed=2024,
              dropout=0.25, attn_dropout=0.1, batch=2, query=10)
    yield rnd("d16_t12_dout8_h4_randn", 2, 12, 16, d_out=8, heads=4, init="randn", seed=5,
              dropout=0.3, batch=3)
    yield rnd("d5_t7_dout3_h1_randn", 3, 7, 5, d_out=3, heads=1, init="randn", seed=99,
              query=1, batch=1)
    yield rnd("d16_t9_dout8_h2_attn05", 4, 9, 16, d_out=8, heads=2, attn_dropout=0.5, seed=31337,
              dropout=0.4, qkv_bias=True)
    yield rnd("d4_t3_dout1_h1", 5, 3, 4, d_out=1, heads=1, seed=0, dropout=0.5)
    yield rnd("d12_t6_dout4_h2_randn_bias", 6, 6, 12, d_out=4, heads=2, init="randn",
              qkv_bias=True, seed=2**32 + 5, dropout=0.15, attn_dropout=0.25, batch=2)
    # Long enough that the (T, T) matrices are summarised with "...".
    yield rnd("d6_t40_long", 7, 40, 6, d_out=4, heads=2, seed=11, batch=1)
    # dim=1 with 8 or more keys: vectorised and scalar columns (the thread count only matters
    # from b*T*T > 32768 on: make_softmax_dim_goldens.py covers that).
    yield rnd("d4_t11_softmax_dim1_b3_threads3", 9, 11, 4, d_out=4, heads=2, seed=8, batch=3,
              softmax_dim=1, torch_threads=3)
    yield rnd("d5_t20_softmax_dim1_threads1_attn02", 10, 20, 5, d_out=2, heads=1, seed=9, batch=2,
              softmax_dim=1, torch_threads=1, attn_dropout=0.2)
    yield rnd("d3_t17_softmax_dim1_b3_threads4_randn", 11, 17, 3, d_out=2, heads=2, seed=10,
              batch=3, softmax_dim=1, torch_threads=4, init="randn")
    yield rnd("d3_t33_long_randn", 8, 33, 3, d_out=2, heads=2, init="randn", seed=3, batch=1,
              attn_dropout=0.1)
    # A multiply-add on a tie of double rounding. inputs @ inputs.T chains its products with
    # fused multiply-adds, so score [0][1] is fma(x01, x11, 1024 * 1024): its exact value lies
    # just below the midpoint between two floats, and its sum in double lands on that midpoint.
    # An fmaf that rounds the double sum again gets 0x1.00002p+20; PyTorch's is 0x1.00001ep+20.
    # (tests/browser/test_web.js walks it in the page, whose engine has no fused multiply-add.)
    yield "fma_tie", {}, ["a", "b", "c"], [[1024.0, float.fromhex("0x1.006bc4p+0")],
                                           [1024.0, float.fromhex("0x1.ef2f8cp+0")], [0.5, 0.25]]


def main():
    torch_env.require_bit_exact("make_goldens.py")
    write_goldens(OUT, ((name + ".json", golden(name, opts, tokens, emb))
                        for name, opts, tokens, emb in configurations()),
                  lambda path, doc: f"{sum(len(s) for s in doc['stages'].values())} steps")


if __name__ == "__main__":
    main()
