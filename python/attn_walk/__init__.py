"""attn-walk in your notebook: grade your own chapter 3 tensors and modules where you work.

    import attn_walk
    attn_walk.check(stage="causal")                  # your notebook's variables, by the chapter's names
    attn_walk.check(attn_weights=my_w, stage="causal")   # just what you give
    attn_walk.check_module(mha, batch)               # your own class, run with forward hooks
    attn_walk.walk("causal")                         # the chapter's tensors, {step: tensor}

    %load_ext attn_walk
    %attn_walk check --stage causal

Standard library only; torch (and numpy) are used when present. The grading is `attn-walk
check`'s: the binary is found through $ATTN_WALK, attn_walk.BINARY, PATH, then the repository's
build/attn-walk (`make build`). Nothing is written to disk: the dump goes to its standard input.
docs/notebook.md says which names are read and how values are converted.
"""
import inspect
import json

from . import _binary, _capture, _convert, _names
from ._errors import AttnWalkError
from ._report import Report, Step

__all__ = ["check", "check_module", "walk", "dump", "grads", "Report", "Step", "AttnWalkError", "BINARY"]

# The attn-walk binary to use when $ATTN_WALK is not set (None: PATH, then the repository's build).
BINARY = None

# Options of `attn-walk check` that are not the walk's: they grade, they do not change the numbers.
_CHECK_ONLY = {"rtol", "atol"}
# The walk's and check's options that a keyword argument can set (keyword -> --keyword-with-dashes).
OPTIONS = {"seed", "d_out", "heads", "qkv_bias", "dropout", "attn_dropout", "batch", "init", "dropout_rng",
           "input", "random_input", "text", "text_file", "embed_dim", "max_tokens", "lang", "rtol", "atol",
           "softmax_dim", "kv_groups", "window", "latent_dim", "rope_base", "block", "lr", "optimizer",
           "weight_decay", "steps", "torch_threads", "weights"}


def _binary_path():
    return _binary.find_binary(BINARY)


def _is_option(name, value):
    # `batch` is both an option (--batch 2) and a step (the stacked inputs): a number is the option.
    return name in OPTIONS and (value is None or isinstance(value, (bool, int, float, str)))


def _option_args(options, check=True):
    args = []
    for name, value in options.items():
        if value is None or value is False or (not check and name in _CHECK_ONLY):
            continue
        if name not in OPTIONS:
            raise AttnWalkError(f"unknown option {name}=; the options are {', '.join(sorted(OPTIONS))}")
        flag = "--" + name.replace("_", "-")
        args += [flag] if value is True else [flag, str(value)]
    return args


def _split(kwargs):
    for name, value in kwargs.items():  # a word where a tensor belongs is a misspelt option
        if isinstance(value, str) and name not in OPTIONS:
            raise AttnWalkError(f"unknown option {name}={value!r}; the options are {', '.join(sorted(OPTIONS))}")
    options = {k: v for k, v in kwargs.items() if _is_option(k, v)}
    tensors = {k: v for k, v in kwargs.items() if k not in options}
    return tensors, options


def _dump_text(tensors, nonfinite_as_strings=False):
    """{name: value} as the JSON document check reads: -Infinity and NaN as Python writes them,
    or as "-inf" and "nan" (attn-walk's own JSON, what dump() has always written)."""
    doc = {str(name): _convert.to_lists(str(name), value) for name, value in tensors.items()}
    if nonfinite_as_strings:
        doc = _convert.nonfinite_as_strings(doc)
        return json.dumps(doc, allow_nan=False)
    return json.dumps(doc)


def _walk_json(stage, options):
    _, out = _binary.run(_binary_path(), ["--stage", stage, "--format", "json"] + _option_args(options, check=False))
    return json.loads(out)


def _grade(tensors, stage, options, sources=None):
    """Run attn-walk check on {name: value}; return the Report. With no stage, check chooses it
    from the names given, or grades every stage of a whole notebook's names."""
    if not tensors:
        raise AttnWalkError("nothing to grade: give tensors by the chapter's names, e.g. check(attn_weights=w)")
    text = _dump_text(tensors)
    binary = _binary_path()
    common = (["--stage", stage] if stage else []) + _option_args(options)

    def render(fmt):
        return _binary.run(binary, ["check", "-", "--format", fmt] + common, text, ok_codes=(0, 3))[1]
    return Report(json.loads(render("json")), render, sources)


def _shape(value):
    if _convert.is_tensor(value) or hasattr(value, "shape"):
        return tuple(value.shape)
    try:
        return _convert.shape_of(_convert.to_lists("value", value))
    except AttnWalkError:
        return None


def _caller_namespace(depth=2):
    frame = inspect.currentframe()
    try:
        for _ in range(depth):
            frame = frame.f_back
        return frame.f_globals
    finally:
        del frame


def check(stage_or_tensors=None, /, stage=None, *, namespace=None, **kwargs):
    """Grade tensors against the chapter with `attn-walk check`; return a Report.
    check("causal"), check(stage="causal"), check(attn_weights=w, stage="causal"),
    check({"out_proj.weight": w}, stage="multi-head").

    With no tensors, reads the caller's variables (a notebook's globals) by the chapter's names
    (docs/notebook.md): those of `stage`, or, with no stage, of every chapter stage up to the
    furthest your variables reach, each graded on its own (Report.stages). With tensors (keywords, or a dict for names such as "out_proj.weight"),
    grades just those. Other keywords are the CLI's options: seed=789, d_out=4, heads=2,
    qkv_bias=True, lang="zh", rtol=1e-4, atol=..., input="emb.json", ..."""
    tensors = None
    if isinstance(stage_or_tensors, str):
        stage = stage_or_tensors
    elif stage_or_tensors is not None:
        tensors = stage_or_tensors  # {"out_proj.weight": w, ...}: names that are not identifiers
    given, options = _split(kwargs)
    if tensors:
        given = {**dict(tensors), **given}
    if given:
        return _grade(given, stage, options)
    ns = namespace if namespace is not None else _caller_namespace()
    if stage is None:
        return _check_notebook(ns, options)
    walk = _walk_json(stage, options)
    shapes = {s["name"]: s["shape"] for s in walk["steps"]}
    found = _names.read(ns, stage, shapes, _shape)
    if not found:
        raise AttnWalkError(f"none of stage {stage}'s names is a variable here (its steps: "
                            f"{', '.join(shapes)}); give the tensors by name")
    values = {step: value for step, (_, value) in found.items()}
    # Errors name the variable the learner typed, not the step it was read as.
    for step, (source, value) in found.items():
        _convert.to_lists(source, value)
    return _grade(values, stage, options, {step: source for step, (source, _) in found.items()})


def _check_notebook(ns, options):
    """check() with no stage: every chapter stage the notebook reaches, up to the furthest,
    read by its names (a variable bound again in a later section counts for the step whose
    value it holds) and graded by `attn-walk check` stage by stage (Report.stages)."""
    stages = _names.stages_reached(ns)
    if not stages:
        raise AttnWalkError("none of the chapter's names (inputs, x_2, keys, attn_weights, masked, batch, mha, "
                            "...) is a variable here; give stage= and the tensors, e.g. "
                            "check(attn_weights=w, stage='causal')")
    walks = {s: {step["name"]: (tuple(step["shape"]), _convert.from_walk(step["data"], use_torch=False)
                                if "data" in step else None)
                 for step in _walk_json(s, options)["steps"]} for s in stages}
    found = _names.read_notebook(ns, stages, walks, _shape, _convert.to_lists)
    # A module's output that `context_vecs` no longer holds (a later cell bound it again): the
    # module run again on `batch`, so that a slip in the learner's class is still seen. `ca` is
    # section 3.5.3's CausalAttention; `mha` is 3.6.1's wrapper or 3.6.2's MultiHeadAttention,
    # whichever it holds now (told by its parts).
    for module_name, stage, steps in _RUN_AGAIN:
        module = ns.get(module_name)
        step = steps.get(_capture.kind_of(module)) if _convert.is_module(module) else None
        if stage in stages and step and step not in found and step in walks[stage]:
            out = _run_again(ns, module_name, "batch", walks[stage][step][0])
            if out is not None:
                found[step] = (f"{module_name}(batch)", out)
    if not found:
        raise AttnWalkError(f"none of stage {stages[-1]}'s names is a variable here; give the tensors by name")
    for step, (source, value) in found.items():  # errors name the variable the learner typed
        _convert.to_lists(source, value)
    values = {step: value for step, (_, value) in found.items()}
    return _grade(values, None, options, {step: source for step, (source, _) in found.items()})


# The chapter's modules whose output check() recovers by running them again: the variable, its
# stage, and {the class it holds (_capture.kind_of): the step of its output}.
_RUN_AGAIN = [
    ("ca", "dropout", {"CausalAttention": "causal_attention_context_vecs"}),
    ("mha", "multi-head", {"MultiHeadAttentionWrapper": "wrapper_context_vecs",
                           "MultiHeadAttention": "mha_context_vecs"}),
]


def _run_again(ns, module_name, input_name, shape):
    """ns[module_name](ns[input_name]) under torch.no_grad(), or None: when either is missing or
    not a module and a tensor, when the module has a dropout that is on (its output would be
    another draw), when its forward raises, or when the output is not of `shape`."""
    module, x = ns.get(module_name), ns.get(input_name)
    if not _convert.is_module(module) or not _convert.is_tensor(x):
        return None
    if module.training and any(type(m).__name__ == "Dropout" and m.p > 0 for m in module.modules()):
        return None
    import torch  # a module and a tensor are in hand: torch is there
    try:
        with torch.no_grad():
            out = module(x)
    except Exception:  # noqa: BLE001 (the learner's forward: whatever it raises, the name is not read)
        return None
    return out if _convert.is_tensor(out) and tuple(out.shape) == tuple(shape) else None


def check_module(module, x, stage=None, **options):
    """Run your own module on x with forward hooks, and grade what it computed (a Report).

    Every submodule's output is captured by its named_modules() path, and the parameters by
    their state-dict names; the chapter's classes (SelfAttention_v1/v2, CausalAttention, the
    wrapper, MultiHeadAttention) map them to the walk's steps (W_query -> queries, ...), and
    choose the stage. Chapter 4's GPTModel is graded as `attn-walk check --stage gpt`: give the
    token ids it runs on as x and its weights file, check_module(model, idx, weights="gpt2.pth")
    (idx is graded as in_idx: the ids of text=..., "Every effort moves you" by default). The
    module is not changed: the hooks are removed afterwards, even when forward raises."""
    if not _convert.is_module(module):
        raise AttnWalkError(f"check_module: the first argument is a {type(module).__name__}, not an nn.Module")
    if not _convert.is_tensor(x):
        raise AttnWalkError(f"check_module: x is a {type(x).__name__}; give the tensor the module runs on "
                            "(batch, inputs)")
    if _capture.is_gpt_model(module):
        dropping = [m.p for m in module.modules() if type(m).__name__ == "Dropout" and m.p > 0]
        if module.training and dropping:
            raise AttnWalkError(f"check_module: your {type(module).__name__} is in training mode, so its dropout "
                                f"(p={dropping[0]}) changes every run; the chapter's GPTModel runs in eval(): call "
                                "model.eval() first")
    captured = _capture.capture(module, x)
    kind_stage, named = _capture.name_steps(module, captured, None)
    stage = stage or kind_stage
    if kind_stage == "gpt" and stage == "gpt":
        if not options.get("weights"):
            raise AttnWalkError("check_module: a GPTModel is graded against its weights file: give weights=\"...\" "
                                "(the book's .safetensors or .pth, or Hugging Face's model.safetensors)")
        named = {"in_idx": x, **named}
        return _grade(named, stage, options, {k: f"{type(module).__name__}" for k in named})
    if stage is None:
        raise AttnWalkError(f"check_module: {type(module).__name__} is none of the chapter's classes; "
                            "give stage= (its steps are named by module path)")
    _, steps = _binary.run(_binary_path(), ["--stage", stage, "--list-steps"]
                           + _option_args({k: v for k, v in options.items() if k != "lang"}, check=False))
    steps = set(steps.split())
    if kind_stage is None:
        _, named = _capture.name_steps(module, captured, steps)
    named = {k: v for k, v in named.items() if k in steps}
    if not named:
        raise AttnWalkError(f"check_module: nothing {type(module).__name__} computed is a step of stage {stage}")
    return _grade(named, stage, options, {k: f"{type(module).__name__}" for k in named})


def walk(stage, **options):
    """The chapter's tensors for `stage`, {step name: tensor} (float32 torch tensors, nested
    lists without torch), from `attn-walk --stage STAGE --format json` with these options."""
    doc = _walk_json(stage, options)
    return {s["name"]: _convert.from_walk(s["data"]) for s in doc["steps"] if "data" in s}


def grads(named_tensors, prefix=""):
    """{prefix + name + ".grad": t.grad} for each (name, tensor) that has a gradient, e.g. from
    module.named_parameters() after loss.backward(); grads(out_head.named_parameters(),
    prefix="out_head.") names them as the model's named_parameters() does."""
    return {f"{prefix}{name}.grad": t.grad for name, t in named_tensors if getattr(t, "grad", None) is not None}


def dump(path, tensors=None, **named):
    """Write {name: nested lists} to `path` as JSON for `attn-walk check` in a terminal (whole or
    not at all). check() does the same without a file."""
    from ._dump import write
    items = dict(tensors or {})
    items.update(named)
    if not items:
        raise ValueError("dump: give at least one tensor, e.g. dump(path, queries=queries)")
    return write(path, _dump_text(items, nonfinite_as_strings=True))


def load_ipython_extension(ipython):
    """%load_ext attn_walk: the %attn_walk line magic (_magics.py)."""
    from ._magics import register
    register(ipython)
