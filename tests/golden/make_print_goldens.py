#!/usr/bin/env python3
"""Write tests/golden/print_cases.json: str(tensor) exactly as PyTorch prints it.

Run with the interpreter that has Debian's PyTorch 1.13:

    /usr/bin/python3 tests/golden/make_print_goldens.py

Each case is a float32 tensor, printed by real PyTorch with default print options
(precision 4, threshold 1000, edgeitems 3, linewidth 80). tests/test_torch_print.cpp rebuilds
every tensor and checks that attn::torch_str / torch_parameter_str print the same text.

Case fields:
  name       identifier, [a-z0-9_], unique (used as the GoogleTest name)
  shape      list of ints ([] for a 0-dim tensor)
  data       flat row-major values; each float32 as its exact double (a JSON number),
             non-finite values as the strings "inf", "-inf", "nan"
  recipe     instead of data, for big tensors (to keep the file small); see RECIPES below
  suffixes   what the caller passes to torch_str: grad_fn=<...> / requires_grad=True, taken
             from the tensor the way torch/_tensor_str.py does (the size=... suffix of an
             empty tensor is not listed: torch_str adds it itself)
  parameter  true if printed as an nn.Parameter ("Parameter containing:\\n" first)
  printed    str(tensor) from PyTorch

RECIPES (exact in float32, so the C++ test reproduces them bit for bit):
  {"kind": "hash24", "mul": M, "add": A, "centered": C, "scale": S, "set": [[i, v], ...]}
      u_i = (M * i + A) mod 2**24            (integers; i is the flat row-major index)
      a_i = float32(u_i - 2**23 if C else u_i) (exact: fits in 24 bits)
      v_i = float32(a_i * S)                  (one float32 multiply, S a float32 value)
  {"kind": "full", "value": V, "set": [[i, v], ...]}
      v_i = V
  then "set" overwrites single elements (v may be "inf", "-inf", "nan"), e.g. to hide an
  extreme value behind "..." in a summarised print.

The output is deterministic: torch.manual_seed is fixed and the cases are built in order.
"""

import json
import math
import pathlib

import numpy as np
import torch_env  # before torch: it chooses OpenBLAS's kernel
import torch

torch_env.require_bit_exact("make_print_goldens.py")
import torch.nn as nn

OUT = pathlib.Path(__file__).resolve().parent / "print_cases.json"

CASES = []


# --------------------------------------------------------------------------------------------
# Encoding


def json_value(v):
    """A float32 value (given as a Python float, i.e. its exact double) for the JSON file."""
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v  # json writes the shortest repr that round-trips the double (keeps -0.0)


def decode_value(v):
    return float(v) if isinstance(v, str) else v


def suffixes_of(t):
    """The grad suffix torch/_tensor_str.py::_str_intern appends."""
    if t.grad_fn is not None:
        name = type(t.grad_fn).__name__
        if name == "CppFunction":
            name = t.grad_fn.name().rsplit("::", 1)[-1]
        return ["grad_fn=<{}>".format(name)]
    if t.requires_grad:
        return ["requires_grad=True"]
    return []


def add(name, t, recipe=None):
    """Record str(t) for a float32 tensor (or nn.Parameter)."""
    assert all(c.isalnum() or c == "_" for c in name), name
    assert name not in {c["name"] for c in CASES}, name
    assert t.dtype == torch.float32 and t.device.type == "cpu", name
    parameter = isinstance(t, nn.Parameter)
    printed = str(t)
    suffixes = suffixes_of(t)
    for s in suffixes:
        assert s in printed, (name, s)
    case = {
        "name": name,
        "shape": list(t.shape),
        "suffixes": suffixes,
        "parameter": parameter,
        "printed": printed,
    }
    flat = t.detach().reshape(-1)
    if recipe is not None:
        rebuilt = from_recipe(recipe, t.numel())
        assert torch.equal(rebuilt.isnan(), flat.isnan()), name
        assert torch.equal(torch.nan_to_num(rebuilt), torch.nan_to_num(flat)), name
        case["recipe"] = recipe
    else:
        case["data"] = [json_value(v) for v in flat.tolist()]
    CASES.append(case)
    return printed


def from_recipe(recipe, n):
    if recipe["kind"] == "hash24":
        i = np.arange(n, dtype=np.int64)
        u = (recipe["mul"] * i + recipe["add"]) % (1 << 24)
        if recipe["centered"]:
            u = u - (1 << 23)
        a = u.astype(np.float32)  # exact
        v = a * np.float32(recipe["scale"])  # one correctly rounded float32 multiply
    elif recipe["kind"] == "full":
        v = np.full(n, recipe["value"], dtype=np.float32)
    else:
        raise ValueError(recipe["kind"])
    for idx, val in recipe.get("set", []):
        v[idx] = np.float32(decode_value(val))
    assert v.dtype == np.float32
    return torch.from_numpy(v.copy())


def f32(x):
    """The float32 nearest to x, as a Python float (for JSON recipes)."""
    return float(np.float32(x))


def hash24(mul, add_, centered, scale, set_=()):
    return {
        "kind": "hash24",
        "mul": mul,
        "add": add_,
        "centered": centered,
        "scale": f32(scale),
        "set": [[i, json_value(f32(v))] for i, v in set_],
    }


def full(value, set_=()):
    return {"kind": "full", "value": f32(value), "set": [[i, json_value(f32(v))] for i, v in set_]}


def add_recipe(name, shape, recipe, hidden=False):
    """hidden=True: the "set" values sit behind "..." and must not change the print."""
    n = 1
    for d in shape:
        n *= d
    printed = add(name, from_recipe(recipe, n).reshape(shape), recipe=recipe)
    if hidden:
        plain = str(from_recipe(dict(recipe, set=[]), n).reshape(shape))
        assert printed == plain, name


def T(values):
    return torch.tensor(values, dtype=torch.float32)


INF = float("inf")
NAN = float("nan")

# --------------------------------------------------------------------------------------------
# Cases

torch.manual_seed(123)

# 0-dim
add("scalar_one", T(1.0))
add("scalar_0_9999", T(0.9999))
add("scalar_just_below_one", T(float(np.nextafter(np.float32(1), np.float32(0)))))  # tensor(1.0000)
add("scalar_negative", T(-2.5))
add("scalar_negative_small", T(-0.0123))
add("scalar_zero", T(0.0))
add("scalar_negative_zero", T(-0.0))
add("scalar_inf", T(INF))
add("scalar_negative_inf", T(-INF))
add("scalar_nan", T(NAN))
add("scalar_negative_nan", -T(NAN))  # Python prints no sign on a NaN
add("scalar_int_1000", T(1000.0))
add("scalar_int_1e8", T(1e8))  # max > 1e8 is strict: still int mode
add("scalar_int_large", T(1e10))  # > 1e8: scientific
add("scalar_123456789", T(123456789.0))  # float32 123456792
add("scalar_float_large", T(12345.678))
add("scalar_small", T(1e-5))
add("scalar_tie_half_even", T(0.03125))  # exact tie: 0.0312
add("scalar_flt_max", T(3.4028234663852886e38))
add("scalar_denormal", T(1e-45))

# 1-D
add("vec_short_rand", torch.rand(6))
add("vec_book_x2", T([0.55, 0.87, 0.66]))
add("vec_single", T([0.5]))
add("vec_wrap_rand30", torch.rand(30))
add("vec_wrap_randn25", torch.randn(25))
add("vec_wrap_exactly_9_per_line", torch.rand(27))  # 9 elements of width 6 per line
add("vec_wide_values", torch.randn(20) * 100)  # width 8 or 9, 8 per line
add("vec_sci_small", torch.randn(7) * 1e-5)
add("vec_sci_wide_ratio_wrap", torch.cat([torch.randn(10), T([2500.0, -0.5])]))  # width 11
add("vec_sci_wide_negative_wrap", torch.randn(16) * torch.logspace(-6, 6, 16))
add("vec_ratio_exactly_1000_float", T([0.001, 1.0]))  # ratio in double is just below 1000
# ratio 500: only min < 1e-4 can select scientific, and float32 1e-4 is below 1e-4 in double
add("vec_min_1e_4_float32", T([1e-4, 0.05]))
add("vec_min_just_above_1e_4", T([0.00010001, 0.05]))  # 0.0001, 0.0500
add("vec_min_5e_5_small_ratio", T([5e-5, 0.04]))
add("vec_mixed_signs", T([-1.5, 0.25, -0.0625, 3.75, -10.125]))
add("vec_negative_zero_float", T([-0.0, 0.5, 1.25]))  # "-0.0000" is wider than the column
add("vec_negative_zero_int", T([-0.0, 1.0, 2.0]))
add("vec_nan_middle", T([0.1, NAN, 0.3]))
add("vec_nan_inf_float", T([0.5, -INF, INF, NAN, -2.25]))
add("vec_inf_int", T([1.0, INF, -INF, 3.0]))
add("vec_inf_sci", T([1e-6, INF, -INF, NAN, 2.0]))
add("vec_all_zeros_30", torch.zeros(30))  # width 1: 24 per line, lines run past 80
add("vec_all_negative_inf", T([-INF] * 4))
add("vec_all_nan", T([NAN] * 3))
add("vec_zero_and_negative_inf", T([0.0, -INF, -INF, 0.0]))
add("vec_tie_rounding", T([0.03125, 0.09375, 0.15625, 0.5, -0.21875]))
add("vec_tie_rounding_sci", T([1.03125, 1e-5, -3.65625]))
add("vec_int_ones", torch.ones(6))
add("vec_int_negative", T([-3.0, 5.0, 0.0, 12.0]))
add("vec_int_ratio_exactly_1000", T([1.0, 1000.0]))
add("vec_int_ratio_over_1000", T([1.0, 2000.0]))  # whole numbers, but scientific
add("vec_int_over_1e8", T([123456789.0, 2.0, 3.0]))
add("vec_int_1e9_only", T([1e9, 3e9]))
add("vec_int_big_same_magnitude", T([1024.0, 2048.0, -4096.0, 65536.0]))
add("vec_dropout_mask", (torch.rand(12) > 0.5).float() * 2.0)
add("vec_1000_not_summarised", torch.rand(1000))  # threshold is "more than 1000"
add("vec_1001_summarised", torch.randn(1001))
add_recipe("vec_2000_summarised", [2000], hash24(2654435761, 12345, True, 2.0**-22))
add_recipe(  # hidden 1e6 and 1e-9 must not affect the format
    "vec_2000_hidden_extremes",
    [2000],
    hash24(2246822519, 777, True, 2.0**-22, [(1000, 1e6), (1001, 1e-9), (500, -12345.5)]),
    hidden=True,
)
add_recipe(  # scientific, width 11: 5 per line, so " ..." takes a slot and the row wraps
    "vec_1500_summarised_sci_wrap", [1500], hash24(3266489917, 99, True, 2.0**-40)
)
add_recipe("vec_5000_summarised_int", [5000], full(1.0, [(2500, 0.5)]), hidden=True)
add_recipe("vec_1200_summarised_zeros", [1200], full(0.0))

# 2-D
book_inputs = T(
    [
        [0.43, 0.15, 0.89],  # Your     (x^1)
        [0.55, 0.87, 0.66],  # journey  (x^2)
        [0.57, 0.85, 0.64],  # starts   (x^3)
        [0.22, 0.58, 0.33],  # with     (x^4)
        [0.77, 0.25, 0.10],  # one      (x^5)
        [0.05, 0.80, 0.55],  # step     (x^6)
    ]
)
add("mat_small_rand", torch.rand(2, 2))
add("mat_book_inputs", book_inputs)
add("mat_book_attn_scores", book_inputs @ book_inputs.T)
add("mat_book_attn_weights", torch.softmax(book_inputs @ book_inputs.T, dim=-1))
add("mat_randn_5x4", torch.randn(5, 4))
add("mat_1x1", T([[0.5]]))
add("mat_1x8", torch.rand(1, 8))
add("mat_8x1", torch.rand(8, 1))
add("mat_wrap_rows_2x15", torch.rand(2, 15))
add("mat_wrap_rows_negative_3x12", torch.randn(3, 12))
scores = torch.randn(6, 6)
mask_upper = torch.triu(torch.ones(6, 6), diagonal=1)
add("mat_triu_ones", mask_upper)
add("mat_tril_ones", torch.tril(torch.ones(6, 6)))
add("mat_causal_masked_scores", scores.masked_fill(mask_upper.bool(), -INF))
mask_diag = torch.triu(torch.ones(6, 6), diagonal=0).bool()
add("mat_causal_all_negative_inf_row", scores.masked_fill(mask_diag, -INF))  # row 0 all -inf
add("mat_softmax_nan_row", torch.softmax(scores.masked_fill(mask_diag, -INF), dim=-1))
add("mat_zero_and_negative_inf_only", torch.zeros(6, 6).masked_fill(mask_upper.bool(), -INF))
add("mat_all_negative_inf", torch.full((3, 3), -INF))
add("mat_dropout_mask_2x", nn.Dropout(0.5)(torch.ones(6, 6)))
add("mat_dropout_weights", nn.Dropout(0.5)(torch.softmax(scores, dim=-1)))
add("mat_int_ratio_sci", T([[1.0, 2000.0], [3.0, -4.0]]))
add("mat_int_over_1e8", T([[2e8, 1.0], [0.0, -7.0]]))
add("mat_sci_small", torch.randn(3, 3) * 1e-5)
add("mat_sci_wide_ratio", torch.randn(3, 4) * T([1.0, 10.0, 100.0, 10000.0]))
add("mat_all_zeros", torch.zeros(3, 4))
add("mat_negative_zero", T([[-0.0, 0.5], [0.25, -0.0]]))
add("mat_nan_middle", T([[0.1, 0.2, 0.3], [0.4, NAN, 0.6], [0.7, 0.8, 0.9]]))
add("mat_40x3_not_summarised", torch.randn(40, 3))  # 120 elements: printed in full
add_recipe("mat_400x3_summarised", [400, 3], hash24(2654435761, 5, True, 2.0**-22))
add_recipe("mat_40x40_summarised", [40, 40], hash24(2246822519, 9876543, False, 2.0**-24))
add_recipe(  # scientific, width 10: in each row " ..." takes a slot and the row wraps
    "mat_40x40_summarised_sci", [40, 40], hash24(2654435761, 4321, True, 2.0**-40)
)
add_recipe(  # a hidden 1e-7 would force scientific if it were looked at
    "mat_40x40_summarised_hidden_small",
    [40, 40],
    hash24(3266489917, 5555555, False, 2.0**-24, [(20 * 40 + 20, 1e-7), (3 * 40 + 3, -1e9)]),
    hidden=True,
)
add_recipe("mat_40x40_summarised_ones", [40, 40], full(1.0, [(40 * 20 + 5, 0.25)]), hidden=True)
add_recipe("mat_40x40_summarised_zeros", [40, 40], full(0.0))
add_recipe("mat_3x400_summarised", [3, 400], hash24(2654435761, 42, True, 2.0**-20))
add_recipe("mat_1024x768_summarised", [1024, 768], hash24(2654435761, 1, True, 3.0 / 2**23))
add_recipe("mat_1024x768_summarised_small", [1024, 768], hash24(2246822519, 9, True, 0.02 / 2**23))

# 3-D and more: blank lines between blocks
add("t3_small_rand", torch.rand(2, 3, 4))
add("t3_book_batch", torch.stack((book_inputs, book_inputs)))
add("t3_int_ones", torch.ones(2, 2, 2))
add("t3_mixed_sci", torch.randn(2, 2, 3) * 1e-6)
add("t3_7x2x2_not_summarised", torch.rand(7, 2, 2))
add_recipe("t3_2x6x100_summarised", [2, 6, 100], hash24(2654435761, 7, True, 2.0**-23))
add_recipe("t3_10x10x11_summarised", [10, 10, 11], hash24(2246822519, 8, True, 2.0**-21))
add("t4_small_rand", torch.rand(2, 2, 3, 2))
add("t4_causal_mask", torch.zeros(1, 1, 4, 4).masked_fill(torch.ones(4, 4).triu(1).bool(), -INF))
add_recipe("t4_2x2x20x20_summarised", [2, 2, 20, 20], hash24(3266489917, 11, True, 2.0**-22))
add("t5_small", torch.randn(1, 2, 1, 2, 2))

# empty tensors
add("empty_1d", torch.zeros(0))
add("empty_0x3", torch.zeros(0, 3))
add("empty_3x0", torch.zeros(3, 0))
add("empty_2x0x4", torch.zeros(2, 0, 4))

# --------------------------------------------------------------------------------------------
# Suffixes from real autograd, and parameters

# Where grad_fn=<MulBackward0> (22 characters) lands. 9 width-6 values fit on a line; with the
# +2 overcount of last_line_len a last line of 5 values keeps the suffix, 6 values push it down.
p = add("suffix_vec_14_fits", torch.rand(14, requires_grad=True) * 1.0)
assert "\n       grad_fn" not in p
p = add("suffix_vec_15_wraps", torch.rand(15, requires_grad=True) * 1.0)
assert "\n       grad_fn=<MulBackward0>" in p
p = add("suffix_vec_18_wraps", torch.rand(18, requires_grad=True) * 1.0)
assert "\n       grad_fn=<MulBackward0>" in p
p = add("suffix_single_line_5_fits", torch.rand(5, requires_grad=True) * 1.0)
assert "\n" not in p
p = add("suffix_single_line_6_wraps", torch.rand(6, requires_grad=True) * 1.0)
assert "\n       grad_fn" in p and p.count("\n") == 1
add("suffix_scalar_loss", (torch.rand(4, requires_grad=True) ** 2).mean())
add("suffix_requires_grad_leaf", torch.rand(2, 3, requires_grad=True))
p = add("suffix_empty_size_and_grad", torch.zeros(0, 3, requires_grad=True))
assert p == "tensor([], size=(0, 3), requires_grad=True)"
add("suffix_empty_1d_grad", torch.zeros(0, requires_grad=True))

# The chapter's own steps: parameters, projections, scores, softmax, mask, dropout.
torch.manual_seed(123)
d_in, d_out = 3, 2
W_query = nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)
W_key = nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)
add("param_no_grad_W_query", W_query)  # no suffix at all
add("param_no_grad_W_key", W_key)

torch.manual_seed(789)
W_q = nn.Linear(d_in, d_out, bias=False)
W_k = nn.Linear(d_in, d_out, bias=False)
W_v = nn.Linear(d_in, d_out, bias=False)
add("param_linear_weight", W_q.weight)
add("param_scalar", nn.Parameter(torch.tensor(1.0)))
p = add("param_vec_15_fits", nn.Parameter(torch.rand(15)))  # requires_grad=True is shorter
assert "\n       requires_grad=True" not in p
p = add("param_vec_16_wraps", nn.Parameter(torch.rand(16)))
assert "\n       requires_grad=True" in p
add("param_linear_bias", nn.Linear(3, 4).bias)
add("param_sci", nn.Parameter(torch.randn(2, 3) * 1e-5))

queries, keys, values = W_q(book_inputs), W_k(book_inputs), W_v(book_inputs)
add("grad_mm_queries", queries)
attn_scores = queries @ keys.T
add("grad_mm_scores", attn_scores)
context_length = attn_scores.shape[0]
mask = torch.triu(torch.ones(context_length, context_length), diagonal=1)
masked = attn_scores.masked_fill(mask.bool(), -torch.inf)
add("grad_masked_fill", masked)
attn_weights = torch.softmax(masked / keys.shape[-1] ** 0.5, dim=-1)
add("grad_softmax_causal", attn_weights)
torch.manual_seed(123)
add("grad_dropout_weights", nn.Dropout(0.5)(attn_weights))
add("grad_mm_context", attn_weights @ values)
add("grad_div_scores", attn_scores / keys.shape[-1] ** 0.5)

batch = torch.stack((book_inputs, book_inputs))
keys_b = W_k(batch)
add("grad_batch_keys", keys_b)
add("grad_transpose", keys_b.transpose(1, 2))
heads = torch.cat([W_q(batch), W_v(batch)], dim=-1)
add("grad_cat_heads", heads)
add("grad_view_4d", heads.view(2, 6, 2, 2).transpose(1, 2))
wide = nn.Linear(3, 30)(batch)
add("grad_wide_rows_3d", wide)  # rows wrap inside a 3-D tensor, suffix after the last line
add("grad_summarised", torch.randn(40, 40, requires_grad=True) * 2.0)

OUT.write_text(json.dumps(CASES, indent=1) + "\n")
print(f"wrote {len(CASES)} cases to {OUT} ({OUT.stat().st_size} bytes)")
