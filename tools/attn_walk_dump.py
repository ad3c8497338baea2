"""Write your notebook's tensors for `attn-walk check`, which grades them against chapter 3.

Copy this file next to your notebook (it needs only the standard library and torch), then:

    from attn_walk_dump import dump
    dump("mine.json", queries=queries, keys=keys, attn_weights=attn_weights)

and in a terminal:

    attn-walk check mine.json --stage causal

Names are the chapter's variable names, as `attn-walk --stage causal --list-steps` prints them.
Names that are not Python identifiers go in a dict: dump("mine.json", {"out_proj.weight": w}).
Gradients are named as the backward stage names them, the tensor's name plus ".grad"
("W_query.weight.grad", "attn_scores.grad"); grads() collects a module's:

    dump("mine.json", {**grads(mha.named_parameters()), "logits.grad": logits.grad})
Values may be tensors (Parameters and tensors with grad_fn included), numbers or nested lists.
Numbers are written exactly (float32 values read back bit for bit); inf, -inf and nan are
written as the strings "inf", "-inf", "nan", as attn-walk's own JSON does.
"""
import json
import math
import os
import tempfile

__all__ = ["dump", "grads"]


def _cell(v):
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def _data(value):
    if hasattr(value, "detach"):  # a torch.Tensor or nn.Parameter
        value = value.detach().cpu().float().tolist()
    if isinstance(value, (list, tuple)):
        return [_data(v) for v in value]
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    return _cell(value)


def grads(named_tensors):
    """{name + ".grad": t.grad} for each (name, tensor) that has a gradient, e.g. from
    module.named_parameters() after loss.backward()."""
    return {f"{name}.grad": t.grad for name, t in named_tensors if getattr(t, "grad", None) is not None}


def dump(path, tensors=None, **named):
    """Write {name: nested list} to `path` as JSON for `attn-walk check` (whole or not at all)."""
    items = dict(tensors or {})
    items.update(named)
    if not items:
        raise ValueError("dump: give at least one tensor, e.g. dump(path, queries=queries)")
    doc = {str(name): _data(value) for name, value in items.items()}
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".attn_walk_dump.", suffix=".json", dir=directory)
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(doc, f, allow_nan=False)
            f.write("\n")
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # as open(path, "w") would create it
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
    return path
