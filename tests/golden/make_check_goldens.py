"""Goldens for `attn-walk check`: learners' dumps made by real PyTorch, with and without mistakes.

    /usr/bin/python3 tests/golden/make_check_goldens.py            (or: make goldens)
    /usr/bin/python3 tests/golden/make_check_goldens.py --random 40 --seed 7 --binary build/attn-walk

The learner's notebook cells are written here as a learner writes them, each known mistake
switched on by name (the `m == ...` lines), independently of attn-walk's C++. Every dump is
written by tools/attn_walk_dump.py itself, so the helper is tested too. For each dump the
expected grade comes from PyTorch: the first step (in the stage's order) whose tensor is not
torch.allclose(rtol=1e-5, atol=1e-6) to the correct one.

Default: writes tests/golden/check/ (cases.json and the dumps) for tests/test_check.cpp.
--random N: instead, N random configurations and mistakes (not seen by the committed test)
run through the binary, which must find the same first step and name the mistake.
"""
import torch_env  # noqa: F401  (before torch: OpenBLAS's kernel)

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import zlib

import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
import torch_walk  # noqa: E402
from attn_walk_dump import dump  # noqa: E402
from make_goldens import OPTION_DEFAULTS, random_embeddings, to_cfg, JOURNEY  # noqa: E402

OUT = os.path.join(HERE, "check")
RTOL, ATOL = 1e-5, 1e-6


# ---- the learner's notebook, with mistakes ----------------------------------------------

def scaled_softmax(attn_scores, d_k, m, dim=-1, num_tokens=None, d_out=None):
    if m == "scale_missing":
        return torch.softmax(attn_scores, dim=dim)
    if m == "scale_by_d_k":
        return torch.softmax(attn_scores / d_k, dim=dim)
    if m == "softmax_wrong_dim":
        return torch.softmax(attn_scores / d_k ** 0.5, dim=-2)
    if m == "softmax_dim0":  # dim=0 of the batched scores: over the batch
        return torch.softmax(attn_scores / d_k ** 0.5, dim=0)
    if m == "softmax_dim1_heads" and attn_scores.dim() == 4:  # MultiHeadAttention's dim=1: the heads
        return torch.softmax(attn_scores / d_k ** 0.5, dim=1)
    if m == "wrong_divisor_tokens":  # keys.shape[0] for keys.shape[-1]
        return torch.softmax(attn_scores / num_tokens ** 0.5, dim=dim)
    if m == "wrong_divisor_d_out":  # MultiHeadAttention's self.d_out for self.head_dim
        return torch.softmax(attn_scores / d_out ** 0.5, dim=dim)
    if m == "wrong_divisor_precedence":  # Python reads d_k**1/2 as (d_k**1)/2
        return torch.softmax(attn_scores / d_k**1/2, dim=dim)
    if m == "scaled_after_softmax":
        return torch.softmax(attn_scores, dim=dim) / d_k ** 0.5
    return torch.softmax(attn_scores / d_k ** 0.5, dim=dim)


def masked_after_softmax(attn_weights, mask, m):
    """The mask filled into the weights after the softmax (mask_after_softmax)."""
    return attn_weights.masked_fill(mask, 0) if m == "mask_after_softmax" else attn_weights


def declare_layers(module, m, d_in, d_out, qkv_bias):
    """__init__'s three nn.Linear layers, declared in the learner's order (each draws in turn)."""
    order = {"layers_declared_kqv": ("W_key", "W_query", "W_value"),
             "layers_declared_vqk": ("W_value", "W_query", "W_key")}.get(m, ("W_query", "W_key", "W_value"))
    for name in order:
        setattr(module, name, nn.Linear(d_in, d_out, bias=qkv_bias))


class LearnerSelfAttention_v2(torch_walk.SelfAttention_v2):
    def __init__(self, m, d_in, d_out, qkv_bias=False):
        nn.Module.__init__(self)
        declare_layers(self, m, d_in, d_out, qkv_bias)


def qk(module, x, m):
    if m == "query_key_swapped":
        return module.W_key(x), module.W_query(x)
    return module.W_query(x), module.W_key(x)


def future_mask(T, m):
    if m == "mask_wrong_triangle":
        return torch.tril(torch.ones(T, T), diagonal=-1)
    if m in ("mask_wrong_triangle_diagonal", "mask_hides_diagonal"):  # the second: this mask alone
        return torch.triu(torch.ones(T, T))
    return torch.triu(torch.ones(T, T), diagonal=1)


def masked_scores(attn_scores, mask, m):
    if m in ("masked_fill_result_discarded", "mask_after_softmax"):
        if m == "masked_fill_result_discarded":
            attn_scores.masked_fill(mask, -torch.inf)  # the result is dropped
        return attn_scores
    attn_scores.masked_fill_(mask, 0 if m == "mask_filled_with_zero" else -torch.inf)
    return attn_scores


class LearnerCausalAttention(torch_walk.CausalAttention):
    def __init__(self, m, d_in, d_out, context_length, dropout, qkv_bias=False):
        nn.Module.__init__(self)  # the chapter's __init__, typed by the learner
        self.m = m
        self.d_out = d_out
        self.softmax_dim = -1
        declare_layers(self, m, d_in, d_out, qkv_bias)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("mask", future_mask(context_length, m))

    def forward(self, x):
        b, num_tokens, d_in = x.shape
        queries, keys = qk(self, x, self.m)
        values = self.W_value(x)
        attn_scores = queries @ keys.transpose(1, 2)
        mask = self.mask.bool()[:num_tokens, :num_tokens]
        attn_scores = masked_scores(attn_scores, mask, self.m)
        if self.m == "dropout_on_scores":  # dropout on the masked scores, not on the weights
            attn_scores = self.dropout(attn_scores)
        attn_weights = scaled_softmax(attn_scores, keys.shape[-1], self.m, num_tokens=keys.shape[1],
                                      d_out=keys.shape[-1])
        if self.m != "dropout_on_scores":
            attn_weights = self.dropout(masked_after_softmax(attn_weights, mask, self.m))
        if self.m == "attn_weights_transposed":
            return attn_weights.transpose(1, 2) @ values
        return attn_weights @ values


class LearnerWrapper(nn.Module):
    def __init__(self, m, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        self.m = m
        self.heads = nn.ModuleList([LearnerCausalAttention(m, d_in, d_out, context_length, dropout, qkv_bias)
                                    for _ in range(num_heads)])

    def forward(self, x):
        dim = {"cat_wrong_dim": 0, "cat_wrong_dim_tokens": 1}.get(self.m, -1)
        return torch.cat([head(x) for head in self.heads], dim=dim)


class LearnerMHA(torch_walk.MultiHeadAttention):
    def __init__(self, m, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        nn.Module.__init__(self)  # the chapter's __init__, typed by the learner
        self.m = m
        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads
        declare_layers(self, m, d_in, d_out, qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("mask", future_mask(context_length, m))

    def forward(self, x, rec):
        m = self.m
        b, num_tokens, d_in = x.shape
        queries, keys = qk(self, x, m)
        values = self.W_value(x)
        rec("keys", keys); rec("queries", queries); rec("values", values)
        H, hd = self.num_heads, self.head_dim
        if m == "view_instead_of_transpose":
            keys = keys.view(b, H, num_tokens, hd)
            queries = queries.view(b, H, num_tokens, hd)
            values = values.view(b, H, num_tokens, hd)
        else:
            keys = rec("keys_viewed", keys.view(b, num_tokens, H, hd))
            queries = rec("queries_viewed", queries.view(b, num_tokens, H, hd))
            values = rec("values_viewed", values.view(b, num_tokens, H, hd))
            keys, queries, values = keys.transpose(1, 2), queries.transpose(1, 2), values.transpose(1, 2)
        rec("keys_transposed", keys); rec("queries_transposed", queries); rec("values_transposed", values)
        attn_scores = queries @ keys.transpose(2, 3)
        kept = attn_scores  # a reference, as `self.attn_scores = attn_scores` keeps it
        if m != "attn_scores_changed_in_place":
            rec("attn_scores", attn_scores)  # recorded now (a copy)
        attn_scores = rec("attn_scores_masked",
                          masked_scores(attn_scores, self.mask.bool()[:num_tokens, :num_tokens], m))
        if m == "attn_scores_changed_in_place":
            rec("attn_scores", kept)  # dumped later: masked_fill_ has changed it
        if m == "dropout_on_scores":  # dropout on the masked scores, then the softmax
            attn_scores = self.dropout(attn_scores)
        attn_weights = scaled_softmax(attn_scores, keys.shape[-1], m, num_tokens=num_tokens, d_out=self.d_out)
        if m != "dropout_on_scores":
            attn_weights = self.dropout(attn_weights)
        rec("attn_weights", attn_weights)
        if m == "attn_weights_transposed":
            context_vec = attn_weights.transpose(2, 3) @ values
        else:
            context_vec = attn_weights @ values
        if m != "context_not_transposed":
            context_vec = context_vec.transpose(1, 2)
        rec("context_vec", context_vec)
        if m == "view_result_discarded":
            context_vec.contiguous().view(b, num_tokens, self.d_out)  # the result is dropped
            rec("context_vec_merged", context_vec)
            return None  # out_proj cannot take the four dimensions: the notebook stops here
        context_vec = rec("context_vec_merged", context_vec.contiguous().view(b, num_tokens, self.d_out))
        rec("out_proj.weight", self.out_proj.weight)
        rec("out_proj.bias", self.out_proj.bias)
        return context_vec if m == "out_proj_missing" else self.out_proj(context_vec)


def typed_inputs(c, m):
    """The embeddings as the learner typed them: with input_typed_wrong, one value off by a digit."""
    inputs = c.inputs
    if m == "input_typed_wrong":
        inputs = inputs.clone()
        inputs[inputs.shape[0] // 2, 1] += 0.02
    return inputs


def learner_trainable(c, m, rec):
    inputs = typed_inputs(c, m)
    d_in, d_out = inputs.shape[1], c.d_out
    draw = torch.rand if c.init == "rand" else torch.randn
    # x(2) typed as inputs[2] (Python counts from 0) with picked_wrong_row, which then takes
    # keys[2] as keys_2 too; with input_row_picked_wrong only x_2 is that row.
    if m == "picked_wrong_row":
        x_2 = rec("x_2", inputs[c.query % inputs.shape[0]])
    elif m == "input_row_picked_wrong":
        x_2 = rec("x_2", inputs[c.query])
    else:
        x_2 = rec("x_2", inputs[c.query - 1])
    torch.manual_seed(c.seed1)
    W_query = nn.Parameter(draw(d_in, d_out), requires_grad=False)
    W_key = nn.Parameter(draw(d_in, d_out), requires_grad=False)
    W_value = nn.Parameter(draw(d_in, d_out), requires_grad=False)
    if m == "query_key_swapped":
        W_query, W_key = W_key, W_query
    query_2 = rec("query_2", x_2 @ W_query)
    rec("key_2", x_2 @ W_key)
    keys = rec("keys", inputs @ W_key)
    values = rec("values", inputs @ W_value)
    q = c.query % inputs.shape[0] if m == "picked_wrong_row" else c.query - 1
    rec("attn_score_22", query_2.dot(keys[q]))
    attn_scores_2 = rec("attn_scores_2", query_2 @ keys.T)
    attn_weights_2 = rec("attn_weights_2", scaled_softmax(attn_scores_2, keys.shape[-1], m, dim=-1)
                         if m != "softmax_wrong_dim" else torch.softmax(attn_scores_2 / keys.shape[-1] ** 0.5, dim=0))
    rec("context_vec_2", attn_weights_2 @ values)
    if m != "seed_not_reset_sa_v1":
        torch.manual_seed(c.seed1)
    sa_v1 = torch_walk.SelfAttention_v1(d_in, d_out, c.init)
    if m == "query_key_swapped":
        sa_v1.W_query, sa_v1.W_key = sa_v1.W_key, sa_v1.W_query
    if m == "scale_missing":
        q, k, v = inputs @ sa_v1.W_query, inputs @ sa_v1.W_key, inputs @ sa_v1.W_value
        rec("sa_v1_output", torch.softmax(q @ k.T, dim=-1) @ v)
    else:
        rec("sa_v1_output", sa_v1(inputs))
    if m != "seed_not_reset_sa_v2":
        torch.manual_seed(c.seed2)

    def learners_v2(qkv_bias):
        """The learner's SelfAttention_v2 class, wherever it is used (exercise 3.1 too)."""
        if m == "bias_left_on":  # nn.Linear(d_in, d_out) in the class: bias=True by default
            return torch_walk.SelfAttention_v2(d_in, d_out, True)
        return LearnerSelfAttention_v2(m, d_in, d_out, qkv_bias)

    sa_v2 = learners_v2(c.qkv_bias)
    for name in ("W_query", "W_key", "W_value"):
        layer = getattr(sa_v2, name)
        rec(f"sa_v2.{name}.weight", layer.weight)
        if layer.bias is not None and c.qkv_bias:  # (the learner with a bias left on dumps the weights)
            rec(f"sa_v2.{name}.bias", layer.bias)
    rec("sa_v2_output", sa_v2(inputs))
    torch.manual_seed(c.seed1)
    ex_v1 = torch_walk.SelfAttention_v1(d_in, d_out, c.init)
    torch.manual_seed(c.seed1)
    ex_v2 = learners_v2(False)
    wq, wk, wv = ex_v2.W_query.weight, ex_v2.W_key.weight, ex_v2.W_value.weight
    if m == "query_key_swapped_exercise":
        wq, wk = wk, wq
    if m == "weights_not_transposed":
        ex_v1.W_query, ex_v1.W_key, ex_v1.W_value = nn.Parameter(wq), nn.Parameter(wk), nn.Parameter(wv)
    else:
        ex_v1.W_query, ex_v1.W_key, ex_v1.W_value = nn.Parameter(wq.T), nn.Parameter(wk.T), nn.Parameter(wv.T)
    rec("exercise_3_1_sa_v1_output", ex_v1(inputs))
    rec("exercise_3_1_sa_v2_output", ex_v2(inputs))


def learner_causal(c, m, rec):
    inputs = typed_inputs(c, m)
    torch.manual_seed(123 if m == "wrong_seed" else c.seed2)  # the book's seed where --seed (or 789) belongs
    if m == "bias_left_on":  # nn.Linear(d_in, d_out): bias=True by default
        sa_v2 = torch_walk.SelfAttention_v2(inputs.shape[1], c.d_out, True)
    else:
        sa_v2 = LearnerSelfAttention_v2(m, inputs.shape[1], c.d_out, c.qkv_bias)
    queries, keys = qk(sa_v2, inputs, m)
    rec("queries", queries); rec("keys", keys)
    attn_scores = rec("attn_scores", queries.T @ keys if m == "queries_transposed_in_scores" else queries @ keys.T)
    attn_weights = rec("attn_weights", scaled_softmax(attn_scores, keys.shape[-1], m, num_tokens=keys.shape[0]))
    T = inputs.shape[0]
    if attn_weights.shape != (T, T):
        return rec  # attn_weights * mask_simple stops the notebook: (d_k, d_k) against (T, T)
    if m == "mask_wrong_triangle":
        mask_simple = torch.triu(torch.ones(T, T))
    elif m == "mask_wrong_triangle_diagonal":
        mask_simple = torch.tril(torch.ones(T, T), diagonal=-1)
    else:
        mask_simple = torch.tril(torch.ones(T, T))
    rec("mask_simple", mask_simple)
    masked_simple = rec("masked_simple", attn_weights * mask_simple)
    source = {"normalized_wrong_tensor": mask_simple,
              "normalized_wrong_tensor_weights": attn_weights}.get(m, masked_simple)
    if m == "sum_wrong_dim":
        row_sums = rec("row_sums", source.sum(dim=0, keepdim=True))
    else:
        row_sums = rec("row_sums", source.sum(dim=-1, keepdim=m != "keepdim_missing"))
    rec("masked_simple_norm", source / row_sums)
    mask = rec("mask", future_mask(T, m))
    if m == "mask_after_softmax":  # no masked scores: the weights are masked after the softmax
        weights = scaled_softmax(attn_scores, keys.shape[-1], m, num_tokens=T)
        rec("attn_weights_causal", masked_after_softmax(weights, mask.bool(), m))
        return rec
    fill = 0 if m == "mask_filled_with_zero" else -torch.inf
    masked = rec("masked", attn_scores.masked_fill(mask.bool(), fill)
                 if m != "masked_fill_result_discarded" else attn_scores)
    rec("attn_weights_causal", scaled_softmax(masked, keys.shape[-1], m, num_tokens=T))
    return rec


def learner_dot_product(c, m, rec):
    inputs = rec("inputs", typed_inputs(c, m))
    query = rec("query", inputs[c.query % inputs.shape[0]] if m == "picked_wrong_row" else inputs[c.query - 1])
    attn_scores_2 = torch.empty(inputs.shape[0])
    for i, x_i in enumerate(inputs):
        attn_scores_2[i] = torch.dot(x_i, query)
    rec("attn_scores_2", attn_scores_2)
    attn_weights_2 = rec("attn_weights_2", torch.softmax(attn_scores_2, dim=0))
    attn_scores = rec("attn_scores", inputs @ inputs.T)
    attn_weights = rec("attn_weights", torch.softmax(attn_scores, dim=-1))
    rec("all_context_vecs", attn_weights @ inputs)


def learner_dropout(c, m, rec):
    inputs = c.inputs
    T = inputs.shape[0]
    weights = {}
    learner_causal(c, m, lambda name, t: weights.__setitem__(name, t) or t)
    attn_weights = rec("attn_weights_causal", weights["attn_weights_causal"])
    torch.manual_seed(c.seed1)
    dropout = torch.nn.Dropout(c.dropout)
    # Dropout "by hand" with the kept values scaled by 1/p: the same mask, another scale.
    fix = (lambda t: t * (1 - c.dropout) / c.dropout) if m == "dropout_scaled_by_p" else (lambda t: t)
    rec("dropout_ones", fix(dropout(torch.ones(T, T))))
    if m != "seed_not_reset_dropout":
        torch.manual_seed(c.seed1)
    if m == "dropout_on_scores":  # on the masked scores, then the softmax (a dropped -inf is nan)
        dropped = torch.softmax(dropout(weights["masked"]) / weights["keys"].shape[-1] ** 0.5, dim=-1)
    elif m == "dropout_on_unmasked_weights":  # 3.5.1's attn_weights, before any mask
        dropped = dropout(weights["attn_weights"])
    elif m == "dropout_before_renormalising":  # then mask_simple and the row sums, as 3.5.1
        dropped = dropout(weights["attn_weights"]) * weights["mask_simple"]
        dropped = dropped / dropped.sum(dim=-1, keepdim=True)
    else:
        dropped = fix(dropout(attn_weights))
    dropped = rec("dropout_attn_weights", dropped)
    rec("dropout_attn_weights_row_sums", dropped.sum(dim=-1))
    batch = rec("batch", torch.stack((inputs,) * c.batch, dim=0))
    torch.manual_seed(c.seed1)
    ca = LearnerCausalAttention(m, inputs.shape[1], c.d_out, T, c.attn_dropout, c.qkv_bias)
    rec("causal_attention_context_vecs", ca(batch))


def learner_multi_head(c, m, rec):
    inputs = typed_inputs(c, m)
    T, d_in = inputs.shape
    batch = rec("batch", torch.stack((inputs,) * c.batch, dim=0))
    torch.manual_seed(c.seed1)
    if m == "seed_not_reset_wrapper":  # section 3.5.3 ran before, and no reseed after it
        torch_walk.CausalAttention(d_in, c.d_out, T, c.attn_dropout, c.qkv_bias)(batch)
    wrapper = LearnerWrapper(m, d_in, c.d_out, T, c.attn_dropout, c.heads, c.qkv_bias)
    rec("wrapper_context_vecs", wrapper(batch))
    a = rec("a", torch.tensor(torch_walk.CHAPTER_A))
    rec("a_at_a_T", a @ a.transpose(2, 3))
    first_head = a[0, 0, :, :]
    rec("first_res", first_head @ first_head.T)
    second_head = a[0, 0 if m == "same_head_twice" else 1, :, :]
    rec("second_res", second_head @ second_head.T)
    if m != "seed_not_reset_mha":
        torch.manual_seed(c.seed1)
    mha = LearnerMHA(m, d_in, c.d_out, T, c.attn_dropout, c.heads, c.qkv_bias)
    out = mha(batch, rec)
    if out is None:
        return
    rec("mha_context_vecs", out)
    torch.manual_seed(c.seed1)
    wrapper_2d = LearnerWrapper(m, d_in, 1, T, c.attn_dropout, 2, c.qkv_bias)
    rec("exercise_3_2_context_vecs", wrapper_2d(batch))


LEARNERS = {"dot-product": learner_dot_product, "trainable": learner_trainable, "causal": learner_causal, "dropout": learner_dropout,
            "multi-head": learner_multi_head}

# (mistake as written above, stage, the id attn-walk must name)
MISTAKES = [
    ("query_key_swapped", "causal", "query_key_swapped"),
    ("query_key_swapped", "trainable", "query_key_swapped"),
    ("query_key_swapped_exercise", "trainable", "query_key_swapped"),
    ("query_key_swapped", "multi-head", "query_key_swapped"),
    ("scale_missing", "causal", "scale_missing"),
    ("scale_missing", "trainable", "scale_missing"),
    ("scale_missing", "multi-head", "scale_missing"),
    ("scale_by_d_k", "causal", "scale_by_d_k"),
    ("scale_by_d_k", "multi-head", "scale_by_d_k"),
    ("softmax_wrong_dim", "causal", "softmax_wrong_dim"),
    ("softmax_wrong_dim", "multi-head", "softmax_wrong_dim"),
    ("normalized_wrong_tensor", "causal", "normalized_wrong_tensor"),
    ("normalized_wrong_tensor_weights", "causal", "normalized_wrong_tensor"),
    ("keepdim_missing", "causal", "keepdim_missing"),
    ("mask_wrong_triangle", "causal", "mask_wrong_triangle"),
    ("mask_wrong_triangle_diagonal", "causal", "mask_wrong_triangle"),
    ("mask_wrong_triangle", "multi-head", "mask_wrong_triangle"),
    ("masked_fill_result_discarded", "multi-head", "masked_fill_result_discarded"),
    ("masked_fill_result_discarded", "dropout", "masked_fill_result_discarded"),
    ("attn_scores_changed_in_place", "multi-head", "attn_scores_changed_in_place"),
    ("dropout_scaled_by_p", "dropout", "dropout_scaled_by_p"),
    ("view_instead_of_transpose", "multi-head", "view_instead_of_transpose"),
    ("context_not_transposed", "multi-head", "context_not_transposed"),
    ("view_result_discarded", "multi-head", "view_result_discarded"),
    ("out_proj_missing", "multi-head", "out_proj_missing"),
    ("weights_not_transposed", "trainable", "weights_not_transposed"),
    ("same_head_twice", "multi-head", "same_head_twice"),
    ("seed_not_reset_sa_v1", "trainable", "seed_not_reset"),
    ("seed_not_reset_sa_v2", "trainable", "seed_not_reset"),
    ("seed_not_reset_dropout", "dropout", "seed_not_reset"),
    ("seed_not_reset_wrapper", "multi-head", "seed_not_reset"),
    ("seed_not_reset_mha", "multi-head", "seed_not_reset"),
    # Mistakes measured on the learner's tensor (src/check/measured.cpp) and the newer ones.
    ("picked_wrong_row", "trainable", "picked_wrong_row"),
    ("picked_wrong_row", "dot-product", "picked_wrong_row"),
    ("input_typed_wrong", "dot-product", "input_typed_wrong"),
    ("wrong_divisor_tokens", "causal", "wrong_divisor"),
    ("wrong_divisor_precedence", "causal", "wrong_divisor"),
    ("wrong_divisor_d_out", "multi-head", "wrong_divisor"),
    ("scaled_after_softmax", "causal", "scaled_after_softmax"),
    ("sum_wrong_dim", "causal", "sum_wrong_dim"),
    ("mask_filled_with_zero", "causal", "mask_filled_with_zero"),
    ("mask_filled_with_zero", "multi-head", "mask_filled_with_zero"),
    ("mask_after_softmax", "causal", "mask_after_softmax"),
    ("mask_after_softmax", "dropout", "mask_after_softmax"),
    ("cat_wrong_dim", "multi-head", "cat_wrong_dim"),
    ("cat_wrong_dim_tokens", "multi-head", "cat_wrong_dim"),
    ("wrong_seed", "causal", "wrong_seed"),
    ("bias_left_on", "causal", "bias_left_on"),
    # Issue 33's second round: layers declared in another order (W_key first gives the numbers
    # of queries = W_key(x): both are named), other transposed operands, softmax over a
    # leading dimension, dropout in the wrong place.
    ("layers_declared_kqv", "causal", "layers_declared_out_of_order"),
    ("layers_declared_vqk", "multi-head", "layers_declared_out_of_order"),
    ("queries_transposed_in_scores", "causal", "queries_transposed_in_scores"),
    ("attn_weights_transposed", "multi-head", "attn_weights_transposed"),
    ("attn_weights_transposed", "dropout", "attn_weights_transposed"),
    ("softmax_dim0", "multi-head", "softmax_wrong_dim"),
    ("softmax_dim0", "dropout", "softmax_wrong_dim"),
    ("softmax_dim1_heads", "multi-head", "softmax_wrong_dim"),
    ("dropout_on_scores", "dropout", "dropout_misplaced"),
    ("dropout_on_scores", "multi-head", "dropout_misplaced"),
    ("dropout_on_unmasked_weights", "dropout", "dropout_misplaced"),
    ("dropout_before_renormalising", "dropout", "dropout_misplaced"),
    # The inputs typed wrong, seen in the queries and keys (read back from them) or the batch.
    ("input_typed_wrong", "causal", "input_inferred"),
    ("input_typed_wrong", "trainable", "input_inferred"),
    ("input_typed_wrong", "multi-head", "input_typed_wrong"),
    # Issue 40: the seam's first new diagnosis, only check/ and lang/ changed to add it.
    ("input_row_picked_wrong", "trainable", "input_row_picked_wrong"),
    # Issue 42: torch.triu(torch.ones(T, T), diagonal=0) as the -inf method's mask (or the
    # modules' buffer) alone, mask_simple the book's: the first query sees nothing (nan).
    ("mask_hides_diagonal", "causal", "mask_wrong_triangle"),
    ("mask_hides_diagonal", "dropout", "mask_wrong_triangle"),
    ("mask_hides_diagonal", "multi-head", "mask_wrong_triangle"),
    # Issue 42: a mistake in a class goes wherever the class goes: SelfAttention_v2 with W_key
    # declared first, or nn.Linear's default bias, changes exercise 3.1's v2 as well as sa_v2.
    ("layers_declared_kqv", "trainable", "layers_declared_out_of_order"),
    ("bias_left_on", "trainable", "bias_left_on"),
]


ONLY_ITS_OWN_TENSOR_SHOWS = {"input_typed_wrong"}


def run_learner(cfg, stage, m):
    """The learner's tensors of `stage` with mistake m (None: the chapter's code), in order."""
    steps = {}

    def rec(name, t):
        steps[name] = t.detach().clone() if hasattr(t, "detach") else t
        return t

    with torch.no_grad():
        LEARNERS[stage](cfg, m, rec)
    return steps


def walk_order(cfg, stage):
    """The stage's step names in attn-walk's order (torch_walk mirrors src/stages/)."""
    return [s["name"] for s in torch_walk.run_stage(stage, cfg)]


def first_difference(stage_order, correct, mine):
    for name in stage_order:
        if name not in mine:
            continue
        a, b = mine[name], correct[name]
        if a.shape != b.shape or not torch.allclose(a, b, rtol=RTOL, atol=ATOL, equal_nan=True):
            return name
    return None


def with_noise(steps, gen):
    """The correct tensors with last-bit noise: a random third of the values one ulp away."""
    out = {}
    for name, t in steps.items():
        t = t.clone()
        if t.is_floating_point() and t.numel():
            pick = torch.rand(t.shape, generator=gen) < 0.33
            up = torch.rand(t.shape, generator=gen) < 0.5
            toward = torch.where(up, torch.full_like(t, float("inf")), torch.full_like(t, -float("inf")))
            t = torch.where(pick & torch.isfinite(t), torch.nextafter(t, toward), t)
        out[name] = t
    return out


def configurations():
    j_tok, j_emb = JOURNEY["tokens"], JOURNEY["embeddings"]
    yield "book", {}, j_tok, j_emb
    yield "d4_t5_dout4_h2_bias", dict(seed=42, d_out=4, heads=2, dropout=0.3, qkv_bias=True,
                                      attn_dropout=0.1), *rnd(11, 5, 4)
    yield "d6_t7_dout6_h3_randn", dict(seed=7, d_out=6, heads=3, init="randn", dropout=0.2, batch=1,
                                       query=4), *rnd(12, 7, 6)
    yield "d5_t6_dout8_h4", dict(seed=2024, d_out=8, heads=4, dropout=0.75, attn_dropout=0.25, batch=1), *rnd(13, 6, 5)


def rnd(data_seed, T, d_in):
    return [f"x{i + 1}" for i in range(T)], random_embeddings(data_seed, T, d_in)


def cases_of(name, opts, tokens, emb):
    """Every (dump name, stage, mistake, tensors) for one configuration."""
    cfg = to_cfg(opts, emb)
    gen = torch.Generator().manual_seed(zlib.crc32(name.encode()))
    for stage in LEARNERS:
        correct = run_learner(cfg, stage, None)
        yield f"{stage}_correct_noisy", stage, None, with_noise(correct, gen), correct
    for m, stage, _ in MISTAKES:
        correct = run_learner(to_cfg(opts, emb), stage, None)
        try:
            mine = run_learner(to_cfg(opts, emb), stage, m)
        except (RuntimeError, IndexError):  # the mistake stops the notebook here (shapes, rows)
            continue
        yield f"{stage}_{m}", stage, m, mine, correct
        # The same learner who dumped only what follows their first wrong step. (Only the
        # inputs themselves show which value was typed wrong.)
        if m in ONLY_ITS_OWN_TENSOR_SHOWS:
            continue
        first = first_difference(walk_order(cfg, stage), correct, mine)
        later = {k: v for k, v in mine.items() if k != first}
        if first is not None and first_difference(walk_order(cfg, stage), correct, later) is not None:
            yield f"{stage}_{m}_without_{first}", stage, m, later, correct




def write_goldens():
    torch_env.require_bit_exact("make_check_goldens.py")
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    manifest = []
    ids = {(m, stage): ident for m, stage, ident in MISTAKES}
    for name, opts, tokens, emb in configurations():
        entry = {"name": name, "options": dict(OPTION_DEFAULTS, **opts), "tokens": tokens, "embeddings": emb,
                 "cases": []}
        os.makedirs(os.path.join(OUT, name))
        for case, stage, m, mine, correct in cases_of(name, opts, tokens, emb):
            first = first_difference(walk_order(to_cfg(opts, emb), stage), correct, mine)
            path = os.path.join(OUT, name, case + ".json")
            dump(path, mine)
            entry["cases"].append({"dump": f"{name}/{case}.json", "stage": stage, "mistake": m,
                                   "first_difference": first, "diagnosis": ids[(m, stage)] if m and first else None})
        manifest.append(entry)
        print(f"{name}: {len(entry['cases'])} dumps")
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")


def cli_args(opts, emb_path):
    args = ["--input", emb_path]
    o = dict(OPTION_DEFAULTS, **opts)
    for key in ("query", "d_out", "heads", "dropout", "attn_dropout", "batch", "init"):
        args += ["--" + key.replace("_", "-"), str(o[key])]
    if o["seed"] is not None:
        args += ["--seed", str(o["seed"])]
    if o["qkv_bias"]:
        args.append("--qkv-bias")
    return args


def random_trial(binary, count, seed):
    """Random configurations and mistakes through the binary: the first step and the id."""
    rng = random.Random(seed)
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for trial in range(count):
            T, d_in, heads = rng.randint(3, 9), rng.randint(2, 8), rng.choice([1, 2, 3])
            d_out = heads * rng.randint(1, 3)
            if rng.random() < 0.25:
                d_in = d_out
            opts = dict(seed=rng.randint(0, 2**31), d_out=d_out, heads=heads, init=rng.choice(["rand", "randn"]),
                        dropout=rng.choice([0.1, 0.25, 0.4, 0.6, 0.8]), attn_dropout=rng.choice([0.0, 0.0, 0.2]),
                        batch=rng.randint(1, 3), qkv_bias=rng.random() < 0.4, query=rng.randint(1, T))
            tokens, emb = rnd(rng.randint(0, 10**6), T, d_in)
            m, stage, ident = rng.choice(MISTAKES + [(None, s, None) for s in LEARNERS])
            correct = run_learner(to_cfg(opts, emb), stage, None)
            try:
                mine = run_learner(to_cfg(opts, emb), stage, m)
            except (RuntimeError, IndexError):  # the notebook stops with an error: nothing to dump
                continue
            if m is None:
                mine = with_noise(mine, torch.Generator().manual_seed(trial))
            if rng.random() < 0.5:  # a learner dumps only some of their tensors
                keep = rng.sample(list(mine), max(1, len(mine) // 2))
                mine = {k: v for k, v in mine.items() if k in keep}
            first = first_difference(walk_order(to_cfg(opts, emb), stage), correct, mine)
            emb_path, dump_path = os.path.join(tmp, "emb.json"), os.path.join(tmp, "mine.json")
            with open(emb_path, "w") as f:
                json.dump({"tokens": tokens, "embeddings": emb}, f)
            dump(dump_path, mine)
            r = subprocess.run([binary, "check", dump_path, "--stage", stage, "--format", "json"]
                               + cli_args(opts, emb_path), capture_output=True, text=True)
            ok = r.returncode in (0, 3)
            report = json.loads(r.stdout) if ok else {}
            got_first = (report.get("first_difference") or {}).get("name")
            got_ids = [d["id"] for d in report.get("diagnoses", [])]
            ok = ok and got_first == first and (first is None or ident is None or ident in got_ids)
            if not ok:
                failures += 1
                print(f"trial {trial}: {stage} {m} {opts} T={T} d_in={d_in}: expected first {first}, "
                      f"{ident}; got exit {r.returncode}, first {got_first}, {got_ids} {r.stderr.strip()}")
    print(f"{count - failures} of {count} random trials agree")
    return failures == 0


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--random", type=int, default=0, help="run N random trials through --binary instead")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--binary", default=os.path.join(HERE, "..", "..", "build", "attn-walk"))
    a = p.parse_args()
    if a.random:
        sys.exit(0 if random_trial(a.binary, a.random, a.seed) else 1)
    write_goldens()


if __name__ == "__main__":
    main()
