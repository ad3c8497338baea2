"""Running a learner's own module with forward hooks, and naming what it computed.

Every submodule's output is captured under its named_modules() path ("W_query",
"out_proj", "trf_blocks.0.att"; the module itself as ""), the input of each under
"<path>:input", and the parameters and buffers under their state-dict names ("out_proj.weight").
The chapter's classes, recognised by their parts, then name these as the walk's steps do
(CHAPTER_CLASSES); chapter 4's GPTModel keeps its paths and state-dict names, which are
`attn-walk check --stage gpt`'s names (gpt_names); another module keeps its paths too.
The module is not changed: its hooks are removed afterwards, even when forward raises.
"""
from ._convert import is_tensor
from ._errors import AttnWalkError


def _kind(module):
    """Which of the chapter's classes `module` is, by its parts (a learner may rename the class)."""
    has = lambda name: hasattr(module, name)  # noqa: E731
    if all(has(n) for n in ("tok_emb", "pos_emb", "trf_blocks", "final_norm", "out_head")):
        return "GPTModel"
    if has("heads") and type(getattr(module, "heads")).__name__ == "ModuleList":
        return "MultiHeadAttentionWrapper"
    if has("out_proj") and has("W_query"):
        return "MultiHeadAttention"
    w = getattr(module, "W_query", None)
    if w is None:
        return None
    if type(w).__name__ == "Parameter":
        return "SelfAttention_v1"
    if has("mask"):
        return "CausalAttention"
    return "SelfAttention_v2"


def kind_of(module):
    """Which of the chapter's classes `module` is ("CausalAttention", "MultiHeadAttention", ...),
    or None."""
    return _kind(module)


# For each class: its stage, and {captured name: step}. Only these are graded for it.
CHAPTER_CLASSES = {
    "SelfAttention_v1": ("trainable", {"": "sa_v1_output"}),
    "SelfAttention_v2": ("trainable", {"": "sa_v2_output", "W_query.weight": "sa_v2.W_query.weight",
                                       "W_key.weight": "sa_v2.W_key.weight",
                                       "W_value.weight": "sa_v2.W_value.weight"}),
    "CausalAttention": ("dropout", {"": "causal_attention_context_vecs"}),
    "MultiHeadAttentionWrapper": ("multi-head", {"": "wrapper_context_vecs"}),
    "MultiHeadAttention": ("multi-head", {
        "W_query": "queries", "W_key": "keys", "W_value": "values",
        "dropout:input": "attn_weights",          # the softmax's weights, as dropout receives them
        "out_proj:input": "context_vec_merged",  # the heads merged, as out_proj receives them
        "out_proj.weight": "out_proj.weight", "out_proj.bias": "out_proj.bias",
        "": "mha_context_vecs"}),
}


def is_gpt_model(module):
    """Whether `module` is chapter 4's GPTModel, by its parts."""
    return _kind(module) == "GPTModel"


# GPTModel: parameters larger than this (tok_emb.weight, out_head.weight: vocabulary x emb_dim)
# are not sent; check grades them only when given, and no slip it names changes them.
GPT_LARGEST_PARAMETER = 1 << 16


def gpt_names(captured):
    """{name: tensor} of what a GPTModel computed, by check --stage gpt's names: every module's
    output by its path (drop_shortcut, called twice in a block, has no one output; the model's
    own output is out_head's), and the state dict's entries but the largest."""
    out = {}
    for name, t in captured.items():
        if ":" in name or not name or name.endswith(".drop_shortcut") or name == "drop_shortcut":
            continue
        if "." in name and name.rsplit(".", 1)[1] in ("weight", "bias", "scale", "shift", "mask") \
                and t.numel() > GPT_LARGEST_PARAMETER:
            continue
        out[name] = t
    return out


def capture(module, x):
    """{name: tensor} of everything `module(x)` computed, as described above."""
    import torch
    captured, handles = {}, []

    def hook_for(path):
        def hook(_mod, inputs, output):
            if is_tensor(output):
                captured.setdefault(path, output.detach().clone())
            if inputs and is_tensor(inputs[0]):
                captured.setdefault(path + ":input", inputs[0].detach().clone())
        return hook

    try:
        for path, sub in module.named_modules():
            handles.append(sub.register_forward_hook(hook_for(path)))
        try:
            with torch.no_grad():
                out = module(x)
        except Exception as e:  # the learner's forward: say where, not attn_walk's frames
            raise AttnWalkError(f"your {type(module).__name__}'s forward raised {type(e).__name__}: {e}") from None
    finally:
        for h in handles:
            h.remove()
    if is_tensor(out):
        captured[""] = out.detach().clone()
    for name, t in module.state_dict().items():
        captured[name] = t.detach().clone()
    return captured


def name_steps(module, captured, steps):
    """(stage or None, {step: tensor}) from what capture() returned, `steps` the stage's names
    (None: not known yet)."""
    kind = _kind(module)
    if kind == "GPTModel":
        return "gpt", gpt_names(captured)
    if kind is not None:
        stage, names = CHAPTER_CLASSES[kind]
        return stage, {step: captured[src] for src, step in names.items() if src in captured}
    return None, {name: t for name, t in captured.items() if ":" not in name and name
                  and (steps is None or name in steps)}
