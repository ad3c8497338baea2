"""A learner's value as the nested lists of numbers a dump holds.

Tensors (nn.Parameter and tensors with a grad_fn included, on any device, of any dtype,
integer and bool too), numpy arrays, numbers and nested lists or tuples of them; an nn.Linear
counts as its .weight. float32 values are written exactly (read back bit for bit);
-inf, inf and nan as JSON's -Infinity, Infinity and NaN (Python's json writes them, and
attn-walk check reads them).
"""
import math
import numbers

from ._errors import AttnWalkError


def is_tensor(value):
    return type(value).__module__.startswith("torch") and hasattr(value, "detach") and hasattr(value, "tolist")


def is_module(value):
    return any(c.__module__.startswith("torch.nn") and c.__name__ == "Module" for c in type(value).__mro__)


def _is_numpy(value):
    return type(value).__module__.startswith("numpy") and hasattr(value, "tolist") and hasattr(value, "shape")


def _rectangular(name, value, path):
    """Check that nested lists are a tensor (every row the shape of its siblings); return the shape."""
    if not isinstance(value, list):
        return ()
    shapes = [_rectangular(name, v, path + [i]) for i, v in enumerate(value)]
    for i, shape in enumerate(shapes):
        if shape != shapes[0]:
            at = name + "".join(f"[{j}]" for j in path)
            raise AttnWalkError(f"{name}: its rows are not all the same shape: {at}[{i}] has shape {list(shape)} "
                                f"where {at}[0] has {list(shapes[0])}; a tensor needs every row as long as the others")
    return (len(value),) + (shapes[0] if shapes else ())


def _numbers(name, value):
    if isinstance(value, (list, tuple)):
        return [_numbers(name, v) for v in value]
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, numbers.Real):
        return float(value)
    raise AttnWalkError(f"{name}: holds a {type(value).__name__} ({value!r:.40}), not a number")


def to_lists(name, value):
    """`value` as nested lists of numbers for the dump; AttnWalkError naming `name` when it
    is none of the kinds above or its rows are ragged."""
    if is_module(value):
        weight = getattr(value, "weight", None)
        if type(value).__name__ != "Linear" or weight is None:
            raise AttnWalkError(f"{name}: is a {type(value).__name__} module, not a tensor; pass a module to "
                                "attn_walk.check_module(module, x), or give the tensor you mean")
        value = weight
    if is_tensor(value):
        t = value.detach().cpu()
        if t.is_complex():
            raise AttnWalkError(f"{name}: is a complex tensor; attn-walk grades real float32 tensors")
        data = t.tolist() if not t.dtype.is_floating_point or t.dtype == _torch_float32() else t.float().tolist()
    elif _is_numpy(value):
        if value.dtype.kind not in "biuf":
            raise AttnWalkError(f"{name}: is a numpy array of {value.dtype}, not of numbers")
        data = value.tolist()
    elif isinstance(value, (list, tuple, numbers.Real)):
        data = value
    else:
        raise AttnWalkError(f"{name}: is a {type(value).__name__}, which attn_walk cannot grade: give a torch "
                            "tensor, an nn.Parameter, an nn.Linear (its weight), a numpy array, a number or "
                            "nested lists of numbers")
    data = _numbers(name, data)
    _rectangular(name, data, [])
    return data


def _torch_float32():
    import torch  # only reached with a torch tensor in hand
    return torch.float32


def nonfinite_as_strings(data):
    """inf, -inf and nan as the strings "inf", "-inf", "nan" (attn-walk's JSON convention)."""
    if isinstance(data, dict):
        return {k: nonfinite_as_strings(v) for k, v in data.items()}
    if isinstance(data, list):
        return [nonfinite_as_strings(v) for v in data]
    if math.isnan(data):
        return "nan"
    if math.isinf(data):
        return "inf" if data > 0 else "-inf"
    return data


def shape_of(data):
    """The shape of nested lists already checked by to_lists."""
    shape = []
    while isinstance(data, list):
        shape.append(len(data))
        data = data[0] if data else None
    return tuple(shape)


def from_walk(data, use_torch=True):
    """A step's data from attn-walk's JSON ("inf", "-inf", "nan" as strings) as floats;
    a float32 torch tensor when torch is importable and `use_torch`."""
    def cell(v):
        if isinstance(v, list):
            return [cell(x) for x in v]
        if isinstance(v, str):
            return {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}[v]
        return float(v)
    values = cell(data)
    if use_torch:
        try:
            import torch
        except ImportError:
            return values
        return torch.tensor(values, dtype=torch.float32)
    return values
