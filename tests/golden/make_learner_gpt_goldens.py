"""Learners' GPTModel dumps for `attn-walk check --stage gpt`, made by real PyTorch.

    /usr/bin/python3 tests/golden/make_learner_gpt_goldens.py   (or: make goldens)

Each dump is what a learner's forward hooks and state dict give when the book's GPTModel
(tests/golden/book_gpt.py), with one of chapter 4's classic slips typed into it, runs in eval()
on "Every effort moves you" (ids 6109, 3626, 6100, 345) with a test model of tests/data/gpt/
(make_gpt_models.py): every module's output by its path in model.named_modules() (the hooks'
own names: trf_blocks.0.att.W_query is the queries, trf_blocks.0.att.dropout the attention
weights, drop_emb the embeddings' sum), and the parameters and buffers by their state-dict
names. Left out, to keep the files small: out_head's logits and the (vocab, emb) tok_emb and
out_head weights (the tests give check the model file itself); the root module's output (the
logits again) and drop_shortcut (called twice in a block, so no one output). Some dumps keep
only the outputs of the blocks, as a learner who hooked trf_blocks.N alone would have them.

The slips (the learner's line, in place of the book's):
  layer_norm_var_unbiased   LayerNorm: var = x.var(dim=-1, keepdim=True)          (unbiased=True)
  layer_norm_wrong_dim      LayerNorm: x.mean(dim=1, keepdim=True), x.var(dim=1, ...)
  shortcut_missing          TransformerBlock: no x = x + shortcut after self.att (or after self.ff)
  gelu_exact                FeedForward: nn.GELU() in place of the book's GELU()
  conv1d_not_transposed     load_weights_into_gpt: assign(..., params[f"h.{b}.attn.c_proj.weight"])
                            without .T (Hugging Face's files); and for c_attn's q_w, k_w, v_w,
                            and for all four
Each slip is dumped on two models: the book's file and Hugging Face's (for the loading's slips,
Hugging Face's and its bfloat16 copy).
Each dump is written in the order of check's walk (check/gpt.h): a module's parameters just
before its output (W_query's, W_key's and W_value's all before W_key, the first to run; the
mask before att.dropout), and tests/golden/learner_gpt/cases.json records, for each, the model
file, the slip, the diagnosis check must name, and the first name whose tensor differs from the correct model's
(torch.allclose with check's default rtol 1e-5, atol 1e-6).
"""
import collections
import json
import math
import os
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import torch_env  # noqa: E402  (before torch: OpenBLAS's reference kernel)

torch_env.require_bit_exact("make_learner_gpt_goldens.py")

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

import book_gpt  # noqa: E402
from book_gpt import assign  # noqa: E402
import make_gpt_goldens as gpt_goldens  # noqa: E402

IDS = [6109, 3626, 6100, 345]
OUT = os.path.join(HERE, "learner_gpt")
LARGE = {"tok_emb.weight", "out_head.weight"}
SKIPPED_OUTPUTS = {"", "out_head"}


# ---- the learners' lines ----------------------------------------------------------------------
def layer_norm_unbiased(self, x):
    mean = x.mean(dim=-1, keepdim=True)
    var = x.var(dim=-1, keepdim=True)  # the learner's line: unbiased=True, the default
    norm_x = (x - mean) / torch.sqrt(var + self.eps)
    return self.scale * norm_x + self.shift


def layer_norm_dim1(self, x):
    mean = x.mean(dim=1, keepdim=True)  # the learner's lines: dim=1, the tokens of (b, T, emb)
    var = x.var(dim=1, keepdim=True, unbiased=False)
    norm_x = (x - mean) / torch.sqrt(var + self.eps)
    return self.scale * norm_x + self.shift


def block_without_first_shortcut(self, x):
    shortcut = x  # noqa: F841
    x = self.norm1(x)
    x = self.att(x)
    x = self.drop_shortcut(x)
    # the learner's slip: no x = x + shortcut here

    shortcut = x
    x = self.norm2(x)
    x = self.ff(x)
    x = self.drop_shortcut(x)
    x = x + shortcut
    return x


def block_without_second_shortcut(self, x):
    shortcut = x
    x = self.norm1(x)
    x = self.att(x)
    x = self.drop_shortcut(x)
    x = x + shortcut

    shortcut = x  # noqa: F841
    x = self.norm2(x)
    x = self.ff(x)
    x = self.drop_shortcut(x)
    # the learner's slip: no x = x + shortcut here
    return x


def patch(model, cls_name, forward):
    for m in model.modules():
        if type(m).__name__ == cls_name:
            m.forward = types.MethodType(forward, m)
    return model


def gelu_exact(model):
    for blk in model.trf_blocks:
        blk.ff.layers[1] = nn.GELU()
    return model


def hf_state(file):
    state = gpt_goldens.models.load_safetensors(os.path.join(gpt_goldens.DATA, file))
    return {k[len("transformer."):] if k.startswith("transformer.") else k: v.float() for k, v in state.items()}


def c_proj_not_transposed(model, file):
    params = hf_state(file)
    for b in range(len(model.trf_blocks)):  # the learner's line, without .T
        model.trf_blocks[b].att.out_proj.weight = assign(
            model.trf_blocks[b].att.out_proj.weight, params[f"h.{b}.attn.c_proj.weight"])
    return model


def c_attn_not_transposed(model, file):
    params = hf_state(file)
    for b in range(len(model.trf_blocks)):  # the learner's lines, without .T
        q_w, k_w, v_w = torch.chunk(params[f"h.{b}.attn.c_attn.weight"], 3, axis=-1)
        att = model.trf_blocks[b].att
        att.W_query.weight = assign(att.W_query.weight, q_w)
        att.W_key.weight = assign(att.W_key.weight, k_w)
        att.W_value.weight = assign(att.W_value.weight, v_w)
    return model


# ---- the dump, as forward hooks and the state dict give it --------------------------------------
def hook_dump(model):
    outputs, handles = collections.OrderedDict(), []
    for path, sub in model.named_modules():
        def hook(_m, _inputs, output, path=path):
            outputs[path] = output.detach().clone()
        handles.append(sub.register_forward_hook(hook))
    with torch.no_grad():
        model(torch.tensor([IDS]))
    for h in handles:
        h.remove()
    state = {k: v.detach().clone() for k, v in model.state_dict().items()}
    # check's order: a module's parameters (and the mask) just before its output.
    dump = collections.OrderedDict()

    def put_params(prefix):
        for k, v in state.items():
            if k.startswith(prefix) and k[len(prefix):].count(".") == 0 and k not in LARGE and k not in dump:
                dump[k] = v

    for path, t in outputs.items():
        if path in SKIPPED_OUTPUTS or path.endswith("drop_shortcut"):
            continue
        if path.endswith(".att.W_key"):
            att = path[:-len("W_key")]
            for w in ("W_query", "W_key", "W_value"):
                put_params(att + w + ".")
        if path.endswith(".att.dropout"):
            dump[path[:-len("dropout")] + "mask"] = state[path[:-len("dropout")] + "mask"]
        if "." in path or path in ("tok_emb", "pos_emb", "final_norm"):
            put_params(path + ".")
        dump[path] = t
    return dump


def first_difference(dump, correct):
    for name, t in dump.items():
        c = correct[name]
        if t.shape != c.shape or not torch.allclose(t, c, rtol=1e-5, atol=1e-6, equal_nan=True):
            return name
    return None


def to_json(dump, keep):
    return json.dumps({k: v.tolist() for k, v in dump.items() if keep(k)}, separators=(",", ":"))


def blocks_only(name):
    return name.startswith("trf_blocks.") and name.count(".") == 1


def main():
    os.makedirs(OUT, exist_ok=True)
    # Two configurations for each slip: the book's file and Hugging Face's (whose bfloat16 copy,
    # with `transformer.` keys and no config.json, is the second for the loading's slips).
    files = {"book": "book.safetensors", "hf": "hf/model.safetensors", "bf16": "hf-prefixed-bf16.safetensors"}
    correct = {kind: hook_dump(gpt_goldens.loaded(f)) for kind, f in files.items()}
    slips = [
        # (name, model, the slip, which dumps: "all" outputs and parameters, "outputs", "blocks")
        ("correct", "book", lambda m, f: m, ["all"]),
        ("correct", "hf", lambda m, f: m, ["outputs"]),
        ("correct", "bf16", lambda m, f: m, ["outputs"]),
    ]
    for kind in ("book", "hf"):
        slips += [
            ("layer_norm_var_unbiased", kind, lambda m, f: patch(m, "LayerNorm", layer_norm_unbiased),
             ["outputs", "blocks"]),
            ("layer_norm_wrong_dim", kind, lambda m, f: patch(m, "LayerNorm", layer_norm_dim1), ["outputs", "blocks"]),
            ("shortcut_missing", kind, lambda m, f: patch(m, "TransformerBlock", block_without_first_shortcut),
             ["outputs", "blocks"]),
            ("gelu_exact", kind, lambda m, f: gelu_exact(m), ["outputs", "blocks"]),
        ]
    slips += [
        ("conv1d_not_transposed", "hf", c_proj_not_transposed, ["all", "blocks"]),
        ("conv1d_not_transposed", "bf16", c_proj_not_transposed, ["outputs"]),
        ("conv1d_not_transposed_c_attn", "hf", c_attn_not_transposed, ["outputs"]),
        ("conv1d_not_transposed_all_four", "hf", lambda m, f: c_proj_not_transposed(c_attn_not_transposed(m, f), f),
         ["outputs"]),
        ("shortcut_missing_second", "book", lambda m, f: patch(m, "TransformerBlock", block_without_second_shortcut),
         ["outputs"]),
    ]
    diagnosis = {"correct": None, "conv1d_not_transposed_c_attn": "conv1d_not_transposed",
                 "conv1d_not_transposed_all_four": "conv1d_not_transposed", "shortcut_missing_second": "shortcut_missing"}
    cases = []
    for name, kind, slip, keeps in slips:
        dump = hook_dump(slip(gpt_goldens.loaded(files[kind]), files[kind]))
        for keep in keeps:
            chooser = {"all": lambda k: True,
                       "outputs": lambda k, d=dump: not any(k.startswith(p) for p in ("pos_emb.weight",)) and
                       not k.endswith((".weight", ".bias", ".scale", ".shift", ".mask")),
                       "blocks": blocks_only}[keep]
            kept = collections.OrderedDict((k, v) for k, v in dump.items() if chooser(k))
            file = f"{kind}_{name}_{keep}.json"
            with open(os.path.join(OUT, file), "w") as f:
                f.write(to_json(kept, lambda k: True) + "\n")
            cases.append(collections.OrderedDict(
                dump=file, weights=files[kind], mistake=name, diagnosis=diagnosis.get(name, name),
                first_difference=first_difference(kept, correct[kind]), names=len(kept)))
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump(cases, f, indent=1)
        f.write("\n")
    for c in cases:
        print(c["dump"], c["first_difference"], c["names"])


if __name__ == "__main__":
    main()
