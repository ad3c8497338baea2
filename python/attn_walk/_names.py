"""Which of a notebook's variables are which of the walk's steps.

The chapter's cells reuse names: section 3.5.1 ends with `attn_weights = torch.softmax(masked
/ ..., dim=-1)`, the causal weights, where its first `attn_weights` was the unmasked one;
section 3.6 binds `mha` and `context_vecs` twice, the wrapper's then MultiHeadAttention's; and
the `keys` of section 3.4 are not the keys inside MultiHeadAttention. So each chapter stage says
where each of its steps is found in a notebook that typed its cells: rows (step, source,
condition), in order, the first row whose source is present winning. A source is a variable or
a dotted path into one ("sa_v2.W_query.weight", "mha.out_proj.weight"). A condition names a
path that must exist ("if") or must not ("unless"): `masked` exists once the cell that reassigns
`attn_weights` has been reached. A row whose source is not the step's own name (an alias) is
used only when the value's shape is the chapter's for that step, so a name left over from
another section is not graded as this one.

Stages without a table (softmax, backward, the bonus stages ...) read every variable named as
one of their steps.

A whole notebook (check() with no stage) is read for every stage up to the furthest it reaches
(read_notebook): a variable that two stages read under different steps (`context_vecs` is
CausalAttention's output in section 3.5.3 and MultiHeadAttention's in 3.6.2) counts for the step
whose chapter value it equals, else for the later section's (the notebook's last binding).
`attn-walk check` then grades each stage on the names that hold its values (docs/check.md).
"""
import math

_SAME = object()  # the source is the step's own name

_DOT_PRODUCT = [(s, _SAME, None) for s in (
    "inputs", "query", "attn_scores_2", "res", "attn_weights_2", "context_vec_2", "attn_scores",
    "attn_weights", "row_2_sum", "all_context_vecs")]

_TRAINABLE = [(s, _SAME, None) for s in (
    "x_2", "W_query", "W_key", "W_value", "query_2", "key_2", "value_2", "keys", "values",
    "attn_score_22", "attn_scores_2", "attn_weights_2", "context_vec_2")] + [
    # SelfAttention_v2 counts by its weights.
    (f"sa_v2.{w}.weight", _SAME, None) for w in ("W_query", "W_key", "W_value")]

_CAUSAL = [(s, _SAME, None) for s in ("queries", "keys", "attn_scores")] + [
    ("attn_weights", _SAME, ("unless", "masked")),
    ("mask_simple", _SAME, None), ("masked_simple", _SAME, None), ("row_sums", _SAME, None),
    ("masked_simple_norm", _SAME, None), ("mask", _SAME, None), ("masked", _SAME, None),
    ("attn_weights_causal", _SAME, None),
    ("attn_weights_causal", "attn_weights", ("if", "masked")),
]

_DROPOUT = [
    ("attn_weights_causal", _SAME, None), ("attn_weights_causal", "attn_weights", ("if", "masked")),
    ("dropout_ones", _SAME, None), ("dropout_attn_weights", _SAME, None), ("batch", _SAME, None),
    ("causal_attention_context_vecs", _SAME, None),
    ("causal_attention_context_vecs", "context_vecs", ("if", "ca")),
]

_MULTI_HEAD = [
    ("batch", _SAME, None),
    ("wrapper_context_vecs", _SAME, None), ("wrapper_context_vecs", "context_vecs", ("if", "mha.heads")),
    ("a", _SAME, None), ("a_at_a_T", _SAME, None), ("first_res", _SAME, None), ("second_res", _SAME, None),
    # MultiHeadAttention counts by its weights (and its output, when `context_vecs` is it).
    ("out_proj.weight", "mha.out_proj.weight", None), ("out_proj.bias", "mha.out_proj.bias", None),
    ("mha_context_vecs", _SAME, None), ("mha_context_vecs", "context_vecs", ("if", "mha.out_proj")),
]

# The chapter's stages in its order, each with its rows.
TABLES = {"dot-product": _DOT_PRODUCT, "trainable": _TRAINABLE, "causal": _CAUSAL,
          "dropout": _DROPOUT, "multi-head": _MULTI_HEAD}

_MISSING = object()


def resolve(namespace, path):
    """The value at a dotted path ("mha.out_proj.weight") in a namespace, or _MISSING."""
    head, *rest = path.split(".")
    if head not in namespace:
        return _MISSING
    value = namespace[head]
    for attr in rest:
        value = getattr(value, attr, _MISSING)
        if value is _MISSING:
            return _MISSING
    return value


def rows_for(stage):
    """The stage's rows as (step, source, condition, is_alias)."""
    return [(step, step if src is _SAME else src, cond, src is not _SAME) for step, src, cond in TABLES[stage]]


def _roots(stage):
    return {src.split(".")[0] for _, src, _, _ in rows_for(stage)}


def furthest_stage(namespace):
    """The furthest of the chapter's stages whose own names (none of an earlier stage's) the
    namespace holds, or None."""
    seen, found = set(), None
    for stage in TABLES:
        own = _roots(stage) - seen
        if any(name in namespace for name in own):
            found = stage
        seen |= _roots(stage)
    return found


def read(namespace, stage, shapes, shape_of_value):
    """{step: (source, value)} for `stage` from the namespace; `shapes` maps the stage's steps
    to the chapter's shapes. Stages without a table read variables named as their steps."""
    chosen = {}
    if stage not in TABLES:
        for step in shapes:
            value = resolve(namespace, step)
            if value is not _MISSING:
                chosen[step] = (step, value)
        return chosen
    for step, source, cond, alias in rows_for(stage):
        if step in chosen or step not in shapes:
            continue
        if cond is not None:
            present = resolve(namespace, cond[1]) is not _MISSING
            if present != (cond[0] == "if"):
                continue
        value = resolve(namespace, source)
        if value is _MISSING:
            continue
        if alias:
            shape = shape_of_value(value)
            if shape is None or tuple(shape) != tuple(shapes[step]):
                continue
        chosen[step] = (source, value)
    return chosen


def stages_reached(namespace):
    """The chapter's stages, in order, up to the furthest the namespace reaches ([] if none)."""
    furthest = furthest_stage(namespace)
    if furthest is None:
        return []
    order = list(TABLES)
    return order[:order.index(furthest) + 1]


def _flat(data):
    if isinstance(data, list):
        for v in data:
            yield from _flat(v)
    else:
        yield data


def close(lists, reference, rtol=1e-5, atol=1e-6):
    """Whether nested lists of floats are torch.allclose to a step's data (the same shape; NaN
    meets NaN, an infinity the same infinity), as `attn-walk check` grades them."""
    def shape(d):
        out = []
        while isinstance(d, list):
            out.append(len(d))
            d = d[0] if d else None
        return out
    if reference is None or shape(lists) != shape(reference):
        return False
    for a, b in zip(_flat(lists), _flat(reference)):
        if a == b or (math.isnan(a) and math.isnan(b)):
            continue
        if math.isnan(a) or math.isnan(b) or math.isinf(a) or math.isinf(b) or abs(a - b) > atol + rtol * abs(b):
            return False
    return True


def read_notebook(namespace, stages, walks, shape_of_value, lists_of):
    """{step: (source, value)} for a whole notebook: each stage's read(), then a variable read
    under several steps kept for the one whose chapter value it holds. `walks` maps each stage
    to {step: (its shape, its data from the walk's JSON as floats)}; lists_of(source, value)
    gives a value's nested lists."""
    claims = {}  # source -> [(order, stage, step, value)]
    for order, stage in enumerate(stages):
        shapes = {step: shape for step, (shape, _) in walks[stage].items()}
        for step, (source, value) in read(namespace, stage, shapes, shape_of_value).items():
            claims.setdefault(source, []).append((order, stage, step, value))
    chosen = {}
    for source, found in claims.items():
        steps = {step for _, _, step, _ in found}
        if len(steps) > 1:  # one variable, several steps: the one whose value it holds
            lists = lists_of(source, found[0][3])
            equal = [c for c in found if close(lists, walks[c[1]][c[2]][1])]
            best = (equal or found)[-1]  # else the later section's: the notebook's last binding
            found = [c for c in found if c[2] == best[2]]
        for _, _, step, value in found:
            chosen.setdefault(step, (source, value))
    return chosen

