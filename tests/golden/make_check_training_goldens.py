"""Goldens for `attn-walk check` on chapter 5's loop: learners' dumps made by real PyTorch
running the loop with a mistake that modules/train.h's TrainChoices does not name.

    /usr/bin/python3 tests/golden/make_check_training_goldens.py

The loop is tests/golden/torch_backward.py's (chapter 5's train_model_simple around chapter 3's
MultiHeadAttention), with the learner's slip made in PyTorch itself:
  optimizer_step_forgotten  optimizer.step() never called (the loop runs, nothing is updated);
  grad_zeroed_before_step   optimizer.zero_grad() between loss.backward() and optimizer.step() (1.13:
                            the .grad filled with zeros; the gradients printed right after
                            backward() are the real ones);
  dropout_off_in_training   model.eval() to look at the untrained attention weights, and no
                            model.train() after it: the loop trains without dropout.
Each dump holds what a learner prints (the loss, a few gradients, the losses, two trained
weights), written by tools/attn_walk_dump.py; cases.json names each one's configuration.
tests/test_check_training.cpp grades them.
"""
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
import torch_env  # noqa: E402,F401  (before torch)
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

import make_goldens  # noqa: E402
import torch_backward  # noqa: E402
from attn_walk_dump import dump  # noqa: E402

OUT = os.path.join(HERE, "check_training")
PRINTED = ["loss", "logits.grad", "W_query.weight.grad", "out_head.weight.grad", "losses", "W_query.weight",
           "out_head.weight"]
DEFAULTS = dict(seed=123, d_out=2, heads=2, attn_dropout=0.0, batch=2, qkv_bias=False, steps=30, lr=0.05,
                weight_decay=0.1, optimizer="adamw")


def learner_run(cfg, mistake):
    """torch_backward.run with the learner's slip made in PyTorch."""
    saved = {}

    def patch(owner, name, value):
        saved[(owner, name)] = getattr(owner, name)
        setattr(owner, name, value)

    if mistake == "optimizer_step_forgotten":
        for opt in (torch.optim.AdamW, torch.optim.SGD):
            patch(opt, "step", lambda self, closure=None: None)  # the line left out
        patch(torch_backward, "_record_first_update", lambda *a: None)  # no update to show
    elif mistake == "grad_zeroed_before_step":
        for opt in (torch.optim.AdamW, torch.optim.SGD):
            real_step = opt.step

            def zeroed_then_step(self, closure=None, real_step=real_step):
                self.zero_grad()  # the learner's line, between backward() and step()
                return real_step(self, closure)
            patch(opt, "step", zeroed_then_step)
    elif mistake == "dropout_off_in_training":
        real_train = nn.Module.train
        # model.train() after the evaluation is left out: train(True) does nothing.
        patch(nn.Module, "train", lambda self, mode=True: self if mode else real_train(self, False))
    try:
        return torch_backward.run(cfg)
    finally:
        for (owner, name), value in saved.items():
            setattr(owner, name, value)


def configurations():
    j_tok, j_emb = make_goldens.JOURNEY["tokens"], make_goldens.JOURNEY["embeddings"]
    emb = make_goldens.random_embeddings(41, 10, 6)
    rnd_tok = ["a", "b", "c", "a", "d", "e", "b", "f", "g", "h"]
    yield "optimizer_step_forgotten", "book", dict(steps=5), j_tok, j_emb
    yield "optimizer_step_forgotten", "t10_d8_bias_dropout_sgd", dict(
        seed=17, d_out=8, heads=2, qkv_bias=True, attn_dropout=0.1, batch=3, steps=4, lr=0.1, optimizer="sgd"), \
        rnd_tok, emb
    yield "grad_zeroed_before_step", "book", dict(steps=5), j_tok, j_emb
    yield "grad_zeroed_before_step", "t10_d8_bias_dropout_sgd", dict(
        seed=17, d_out=8, heads=2, qkv_bias=True, attn_dropout=0.1, batch=3, steps=4, lr=0.1, weight_decay=0.1,
        optimizer="sgd"), rnd_tok, emb
    yield "dropout_off_in_training", "book_dropout", dict(attn_dropout=0.5, steps=5), j_tok, j_emb
    yield "dropout_off_in_training", "t10_d8_bias_dropout", dict(
        seed=17, d_out=8, heads=2, qkv_bias=True, attn_dropout=0.1, batch=3, steps=4, lr=0.01), rnd_tok, emb


def main():
    torch_env.require_bit_exact("make_check_training_goldens.py")
    torch.set_num_threads(2)
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    cases = []
    for mistake, name, opts, tokens, emb in configurations():
        o = dict(DEFAULTS, **opts)
        steps = {s["name"]: s["data"] for s in learner_run(torch_backward.TrainCfg(tokens, emb, **o), mistake)}
        chapter = {s["name"]: s["data"] for s in torch_backward.run(torch_backward.TrainCfg(tokens, emb, **o))}
        assert steps["losses"] != chapter["losses"] or steps["out_head.weight"] != chapter["out_head.weight"], name
        path = f"{mistake}_{name}.json"
        dump(os.path.join(OUT, path), {k: steps[k] for k in PRINTED})
        cases.append({"dump": path, "mistake": mistake, "options": o, "tokens": tokens, "embeddings": emb})
        print(path)
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump(cases, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
