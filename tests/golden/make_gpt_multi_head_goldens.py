"""Goldens of `attn-walk --stage multi-head --weights F --layer L`: chapter 3's MultiHeadAttention
with a trained block's weights, run by PyTorch on every test model.

    /usr/bin/python3 tests/golden/make_gpt_multi_head_goldens.py   (or: make goldens)

For each model file of tests/data/gpt/, loaded as make_gpt_goldens.py loads it (the book's
load_state_dict, or load_weights_into_gpt for Hugging Face's), model.eval() runs on the ids of
TEXT under torch.no_grad(); a forward hook keeps the output of trf_blocks[LAYER].norm1 (the
input MultiHeadAttention sees in the model). Then mha = model.trf_blocks[LAYER].att, the book's
MultiHeadAttention holding the file's weights, runs its forward line by line on that input, and
tests/golden/gpt/multi-head-<file>.json records the walk's steps by their names (batch, keys,
queries, values, keys_viewed ... context_vec_merged, out_proj.weight, out_proj.bias,
mha_context_vecs), each as make_gpt_goldens.step records it (shape, FNV-1a digest, bits).
The module's own output, mha(batch), must equal the line-by-line one bit for bit.
"""
import collections
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import torch_env  # noqa: E402  (before torch: OpenBLAS's reference kernel)

torch_env.require_bit_exact("make_gpt_multi_head_goldens.py")

import torch  # noqa: E402

import make_gpt_goldens as gpt  # noqa: E402
import torch_walk  # noqa: E402  (the chapter's MultiHeadAttention, recording its steps)

TEXT = gpt.TEXT
IDS = gpt.IDS
LAYER = 1


def traced_mha(mha, x, record):
    """MultiHeadAttention.forward line by line, in the walk's names: the oracle's recorded forward
    (torch_walk.py, chapter 3's module) run on the block's module (book_gpt.py's, the same code and
    attributes), then the module's output as the walk's last step."""
    context_vec = torch_walk.MultiHeadAttention.forward(mha, x, record)
    record("mha_context_vecs", context_vec)
    return context_vec


def golden_of(model):
    model.eval()
    kept = {}
    hook = model.trf_blocks[LAYER].norm1.register_forward_hook(lambda m, i, o: kept.setdefault("batch", o))
    with torch.no_grad():
        model(torch.tensor([IDS]))
    hook.remove()
    batch = kept["batch"]
    steps = [gpt.step("batch", batch)]
    mha = model.trf_blocks[LAYER].att
    with torch.no_grad():
        out = traced_mha(mha, batch, lambda name, t: steps.append(gpt.step(name, t)))
        assert torch.equal(out.view(torch.int32), mha(batch).view(torch.int32)), "traced != module"
    g = collections.OrderedDict()
    g["text"] = TEXT
    g["ids"] = IDS
    g["layer"] = LAYER
    g["steps"] = steps
    return g


def main():
    os.makedirs(gpt.OUT, exist_ok=True)
    for name in gpt.FILES:
        g = golden_of(gpt.loaded(name))
        g["file"] = name
        base = name.replace("/", "-").replace(".safetensors", "").replace(".pth", "-pth")
        path = os.path.join(gpt.OUT, "multi-head-" + base + ".json")
        with open(path, "w") as f:
            json.dump(g, f, indent=0, separators=(",", ":"))
            f.write("\n")
        print(f"{path}: {os.path.getsize(path)} bytes, {len(g['steps'])} steps")


if __name__ == "__main__":
    main()
