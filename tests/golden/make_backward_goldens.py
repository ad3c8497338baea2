"""Generate the backward stage's goldens from real PyTorch: tests/golden/backward/*.json.

    /usr/bin/python3 tests/golden/make_backward_goldens.py     (or: make goldens)

Each file holds one configuration (options named as attn-walk's flags, tokens, embeddings)
and the steps of torch_backward.run, laid out as tests/golden/walks/*.json;
tests/test_backward_goldens.cpp replays them bit for bit.

tests/golden/backward_mistakes/*.json hold the same for chapter 5's loop written with one of
the mistakes learners make (options["choices"], as src/modules/train.h's TrainChoices), with
every parameter's .grad after the last step too; tests/test_backward_mistakes.cpp replays them.
"""
import glob
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import torch_env  # noqa: E402  (before torch)
import torch  # noqa: E402

import make_goldens  # noqa: E402
import torch_backward  # noqa: E402

OUT = os.path.join(HERE, "backward")
MISTAKES_OUT = os.path.join(HERE, "backward_mistakes")

# The options that shape the backward stage, with attn-walk's defaults (src/core/config.h).
DEFAULTS = dict(seed=123, d_out=2, heads=2, attn_dropout=0.0, batch=2, qkv_bias=False, steps=30, lr=0.05,
                weight_decay=0.1, optimizer="adamw")


def golden(name, opts, tokens, embeddings):
    o = dict(DEFAULTS, **opts)
    cfg = torch_backward.TrainCfg(tokens, embeddings, **o)
    if "choices" in o:
        o["choices"] = cfg.choices  # every choice spelled out
    torch.set_num_threads(2)
    return {"name": name, "torch_version": torch.__version__, "options": o, "tokens": tokens,
            "embeddings": embeddings, "stages": {"backward": torch_backward.run(cfg)}}


def configurations():
    """(name, options, tokens, embeddings): the chapter's six tokens, then other inputs."""
    j_tok, j_emb = make_goldens.JOURNEY["tokens"], make_goldens.JOURNEY["embeddings"]
    yield "book", {}, j_tok, j_emb
    yield "book_sgd_3", dict(optimizer="sgd", lr=0.5, steps=3), j_tok, j_emb
    yield "book_dropout_bias", dict(attn_dropout=0.1, qkv_bias=True, steps=5), j_tok, j_emb

    def rnd(name, data_seed, T, d_in, labels=None, **opts):
        emb = make_goldens.random_embeddings(data_seed, T, d_in)
        return name, opts, labels or [f"x{i + 1}" for i in range(T)], emb

    # A repeated label ("the cat sat on the mat": V = 5), wider heads.
    yield rnd("cat_mat_d8_h2", 31, 6, 8, labels=["the", "cat", "sat", "on", "the", "mat"], seed=7, d_out=8,
              heads=2, steps=4, weight_decay=0.0)
    yield rnd("t12_d16_h4_bias", 32, 12, 16, seed=2024, d_out=16, heads=4, qkv_bias=True, batch=3, steps=3)
    yield rnd("t9_d5_h1_dropout", 33, 9, 5, seed=5, d_out=6, heads=1, attn_dropout=0.5, steps=2, lr=0.01)
    yield rnd("t40_d32_h2_long", 34, 40, 32, seed=11, d_out=32, heads=2, steps=2, lr=0.002)
    yield rnd("t7_d4_b1_sgd", 35, 7, 4, seed=3, d_out=4, heads=2, batch=1, optimizer="sgd", lr=0.1, steps=3)
    # A batch of one: keys.grad reaches W_key column-major; 33 rows take the NN kernel's
    # dot-like columns for W_key.weight.grad and a cascade sum for its bias.
    yield rnd("t34_d6_b1_bias", 36, 34, 6, seed=99, d_out=6, heads=3, batch=1, qkv_bias=True, steps=3)


# The mistakes of chapter 5's loop, by the names `attn-walk check` diagnoses them with.
MISTAKES = {
    "grad_not_zeroed": dict(zero_grad=False),
    "softmax_before_cross_entropy": dict(softmax_before_cross_entropy=True),
    "targets_not_shifted": dict(shift_targets=False),
    "adam_instead_of_adamw": dict(decoupled_weight_decay=False),
    "loss_summed": dict(loss_reduction_sum=True),
}


def mistake_configurations():
    """Each mistake on the chapter's sentence and on a wider random input with biases,
    dropout and a batch of 3; the two that do not need AdamW with SGD too."""
    j_tok, j_emb = make_goldens.JOURNEY["tokens"], make_goldens.JOURNEY["embeddings"]
    emb = make_goldens.random_embeddings(41, 10, 6)
    rnd_tok = ["a", "b", "c", "a", "d", "e", "b", "f", "g", "h"]  # repeated labels: V = 8
    for mistake, choices in MISTAKES.items():
        yield f"{mistake}_book", dict(steps=5, choices=choices), j_tok, j_emb
        yield (f"{mistake}_t10_d8_bias_dropout",
               dict(seed=17, d_out=8, heads=2, qkv_bias=True, attn_dropout=0.1, batch=3, steps=4, lr=0.01,
                    choices=choices), rnd_tok, emb)
        if mistake in ("grad_not_zeroed", "loss_summed"):
            yield f"{mistake}_book_sgd", dict(optimizer="sgd", lr=0.5, steps=4, choices=choices), j_tok, j_emb


def write_all(out, configs):
    os.makedirs(out, exist_ok=True)
    for old in glob.glob(os.path.join(out, "*.json")):
        os.remove(old)
    for name, opts, tokens, emb in configs:
        doc = golden(name, opts, tokens, emb)
        path = os.path.join(out, f"{name}.json")
        with open(path, "w") as f:
            json.dump(doc, f, separators=(",", ":"))
            f.write("\n")
        print(f"{path}: {len(doc['stages']['backward'])} steps")


def main():
    torch_env.require_bit_exact("make_backward_goldens.py")
    write_all(OUT, configurations())
    write_all(MISTAKES_OUT, mistake_configurations())


if __name__ == "__main__":
    main()
