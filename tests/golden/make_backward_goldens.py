"""Generate the backward stage's goldens from real PyTorch: tests/golden/backward/*.json.

    /usr/bin/python3 tests/golden/make_backward_goldens.py     (or: make goldens)

Each file holds one configuration (options named as attn-walk's flags, tokens, embeddings)
and the steps of torch_backward.run, laid out as tests/golden/walks/*.json;
tests/test_backward_goldens.cpp replays them bit for bit. The forward pass is the book's
MultiHeadAttention itself, which masks attn_scores in place: its .grad holds -0.0 at the masked
entries where softmax's backward gave +0 * (a negative number), and the goldens keep that sign
(json writes -0.0). A step of more than DIGEST_ABOVE values keeps its printed text and, instead
of its values, "digest" (below).

tests/golden/backward_mistakes/*.json hold the same for chapter 5's loop written with one of
the mistakes learners make (options["choices"], as src/modules/train.h's TrainChoices), with
every parameter's .grad after the last step too; tests/test_backward_mistakes.cpp replays them.

tests/golden/backward_text/*.json hold the stage on a --text input (GPT-2's ids from tiktoken,
as make_text_goldens.py gets them, so node and tests/node/node_modules are needed; V = 50257,
tok_emb and pos_emb trained): a step of more than DIGEST_ABOVE values keeps its printed text
and, instead of its values, "digest": FNV-1a 64 of its float32 bits (little-endian), which
tests/test_backward_text.cpp computes the same way. tests/test_backward_text.cpp replays them.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import torch_env  # noqa: E402  (before torch)
from golden_files import write_goldens  # noqa: E402
import torch  # noqa: E402

import make_goldens  # noqa: E402
import torch_backward  # noqa: E402

OUT = os.path.join(HERE, "backward")
MISTAKES_OUT = os.path.join(HERE, "backward_mistakes")
TEXT_OUT = os.path.join(HERE, "backward_text")
DIGEST_ABOVE = 2000  # --text goldens
WALK_DIGEST_ABOVE = 2000  # the others too: every file stays under 1 MB

# The options that shape the backward stage, with attn-walk's defaults (src/core/config.h).
DEFAULTS = dict(seed=123, d_out=2, heads=2, attn_dropout=0.0, batch=2, qkv_bias=False, steps=30, lr=0.05,
                weight_decay=0.1, optimizer="adamw", grad_step=1)


def options(opts):
    """DEFAULTS with opts; torch.optim.SGD's weight_decay defaults to 0 (AdamW's to chapter 5's 0.1)."""
    o = dict(DEFAULTS, **opts)
    if o["optimizer"] == "sgd" and "weight_decay" not in opts:
        o["weight_decay"] = 0.0
    return o


def digest_large(steps, tensors, above):
    """Steps of more than `above` values keep their printed text and a digest of their bits."""
    for step, t in zip(steps, tensors):
        if t is not None and t.numel() > above:
            del step["data"]
            step["digest"] = fnv1a64(t.float())
    return steps


def golden(name, opts, tokens, embeddings):
    o = options(opts)
    cfg = torch_backward.TrainCfg(tokens, embeddings, **o)
    if "choices" in o:
        o["choices"] = cfg.choices  # every choice spelled out
    torch.set_num_threads(2)
    rec = torch_backward.KeepingRecorder()
    steps = digest_large(torch_backward.run(cfg, rec=rec), rec.tensors, WALK_DIGEST_ABOVE)
    return {"name": name, "torch_version": torch.__version__, "options": o, "tokens": tokens,
            "embeddings": embeddings, "stages": {"backward": steps}}


def configurations():
    """(name, options, tokens, embeddings): the chapter's six tokens, then other inputs."""
    j_tok, j_emb = make_goldens.JOURNEY["tokens"], make_goldens.JOURNEY["embeddings"]
    yield "book", {}, j_tok, j_emb
    yield "book_sgd_3", dict(optimizer="sgd", lr=0.5, steps=3), j_tok, j_emb
    yield "book_dropout_bias", dict(attn_dropout=0.1, qkv_bias=True, steps=5), j_tok, j_emb
    # torch.optim.SGD(params, lr, weight_decay=0.5): grad + 0.5 * param.
    yield "book_sgd_weight_decay", dict(optimizer="sgd", lr=0.5, weight_decay=0.5, steps=3), j_tok, j_emb
    # --grad-step: the gradients (and forward pass, dropout's masks too) of step 4 of 6, of the last.
    yield "book_dropout_grad_step_4", dict(attn_dropout=0.5, steps=6, grad_step=4), j_tok, j_emb
    yield "book_sgd_grad_step_last", dict(optimizer="sgd", lr=0.5, steps=3, grad_step=3), j_tok, j_emb
    # Dropout of every weight: its backward multiplies each gradient by 0, so the softmax's
    # backward sees only signed zeros (the sign of each zero its gradient's), and its sums of
    # them are -0.0 only when every term is: the zeros' signs all the way to W_query.weight.grad.
    yield "book_dropout_all", dict(attn_dropout=1.0, steps=2), j_tok, j_emb

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
    # One head of one dimension: queries.grad's and W_key.weight.grad's products get a column
    # or a row of one, whose strides decide how addmm hands them to sgemm (33 to 50 tokens
    # reach the kernels where that shows); with three heads of one dimension the keys stay a view.
    yield rnd("t40_d1_b1_bias", 37, 40, 5, seed=1638, d_out=1, heads=1, batch=1, qkv_bias=True, steps=2)
    yield rnd("t37_d1_b2", 38, 37, 5, seed=1033, d_out=1, heads=1, batch=2, steps=2)
    yield rnd("t44_d3_h3_b1", 39, 44, 2, seed=8076, d_out=3, heads=3, batch=1, steps=2)
    # One head of 16 with a batch of 2: keys.T reshapes to (b*H, hd, T) as a view, not a copy.
    yield rnd("t41_d16_h1_b2", 40, 41, 8, seed=0, d_out=16, heads=1, batch=2, steps=3, lr=0.1, weight_decay=0.01)
    # Rows of 8 and more (the softmax backward's sums in 8 lanes) with every weight dropped.
    yield rnd("t12_d8_h2_dropout_all", 42, 12, 8, seed=9, d_out=8, heads=2, attn_dropout=1.0, steps=2)


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


# name, text, options (as attn-walk's flags; embed_dim is --embed-dim). Inputs with repeated
# tokens (their tok_emb rows add up), ids 0, 1, 2 and 50256 (the rows print() shows of a
# 50257-row table), a batch of one, dropout, biases, SGD, and Chinese split over byte pieces.
TEXTS = [
    ("text_journey", "Your journey starts with one step", dict(steps=3)),
    ("text_repeats_d4_bias", "the cat and the dog and the bird",
     dict(embed_dim=4, d_out=4, heads=2, qkv_bias=True, seed=7, steps=3)),
    ("text_edges_b1_sgd_dropout", '"#! wow<|endoftext|>#!',
     dict(embed_dim=2, d_out=2, heads=1, batch=1, attn_dropout=0.2, optimizer="sgd", lr=0.5, steps=3)),
    ("text_zh_d8_h4", "你的旅程从一步开始！", dict(embed_dim=8, d_out=8, heads=4, batch=3, steps=2, lr=0.01)),
]


def fnv1a64(t):
    """FNV-1a 64 of a float32 tensor's bytes, little-endian, in row-major order."""
    h = 0xcbf29ce484222325
    for byte in t.detach().contiguous().numpy().astype("<f4").tobytes():
        h = ((h ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def text_golden(name, text, opts, ids):
    o = dict(options(opts), embed_dim=opts.get("embed_dim", 3))
    emb_dim = o.pop("embed_dim")
    cfg = torch_backward.TrainCfg(None, None, **o)
    torch.set_num_threads(2)
    rec = torch_backward.KeepingRecorder()
    steps = digest_large(torch_backward.run(cfg, text_ids=ids, embed_dim=emb_dim, text_seed=o["seed"], rec=rec),
                         rec.tensors, DIGEST_ABOVE)
    return {"name": name, "torch_version": torch.__version__, "text": text, "token_ids": ids,
            "options": dict(o, embed_dim=emb_dim), "stages": {"backward": steps}}


def text_goldens():
    import subprocess
    import tempfile
    import make_text_goldens
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for name, text, _ in TEXTS:
            paths.append(os.path.join(tmp, name))
            with open(paths[-1], "w", encoding="utf-8", newline="") as f:
                f.write(text)
        try:
            ids = make_text_goldens.reference_ids(paths)
        except (OSError, subprocess.CalledProcessError):
            # No tiktoken (tests/node/node_modules): the ids it gave before, as the goldens keep them.
            print("make_backward_goldens.py: tiktoken not at hand; the --text ids are the goldens' token_ids")
            ids = {}
            for name, text, _ in TEXTS:
                with open(os.path.join(TEXT_OUT, f"{name}.json"), encoding="utf-8") as f:
                    doc = json.load(f)
                assert doc["text"] == text, name
                ids[name] = {"tiktoken": doc["token_ids"]}
    for name, text, opts in TEXTS:
        yield name, text_golden(name, text, opts, ids[name]["tiktoken"])


def backward_steps(path, doc):
    return f"{len(doc['stages']['backward'])} steps"


def goldens_of(configs):
    for name, opts, tokens, emb in configs:
        yield f"{name}.json", golden(name, opts, tokens, emb)


def main():
    torch_env.require_bit_exact("make_backward_goldens.py")
    write_goldens(OUT, goldens_of(configurations()), backward_steps)
    write_goldens(MISTAKES_OUT, goldens_of(mistake_configurations()), backward_steps)
    texts = [(f"{name}.json", doc) for name, doc in text_goldens()]  # first: they may read the old files' ids
    write_goldens(TEXT_OUT, texts, backward_steps, ensure_ascii=False)


if __name__ == "__main__":
    main()
