"""The oracle: every stage of attn-walk, written with real PyTorch as the chapter writes it.

Each stage returns a list of steps {name, shape, data, printed}, where `printed` is
str() of the very object the notebook would print (Parameter, grad_fn suffix and all).
Step names and order mirror src/stages/*.cpp; make_goldens.py and difftest.py compare.

Run with Debian's PyTorch: /usr/bin/python3 (apt-get install python3-torch libopenblas0-pthread).
"""
import math

import torch_env  # noqa: F401  (before torch: it chooses OpenBLAS's kernel)
import torch
import torch.nn as nn


# ---- the chapter's classes, verbatim in substance ----------------------------------------

class SelfAttention_v1(nn.Module):
    def __init__(self, d_in, d_out, init="rand"):
        super().__init__()
        draw = torch.rand if init == "rand" else torch.randn
        self.W_query = nn.Parameter(draw(d_in, d_out))
        self.W_key = nn.Parameter(draw(d_in, d_out))
        self.W_value = nn.Parameter(draw(d_in, d_out))

    def forward(self, x):
        keys = x @ self.W_key
        queries = x @ self.W_query
        values = x @ self.W_value
        attn_scores = queries @ keys.T
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)
        return attn_weights @ values


class SelfAttention_v2(nn.Module):
    def __init__(self, d_in, d_out, qkv_bias=False):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)

    def forward(self, x):
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)
        attn_scores = queries @ keys.T
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)
        return attn_weights @ values


class CausalAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False, softmax_dim=-1):
        super().__init__()
        self.d_out = d_out
        self.softmax_dim = softmax_dim  # 1: the first ch03.ipynb (exercise 3.2's solution)
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))

    def forward(self, x):
        b, num_tokens, d_in = x.shape
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)
        attn_scores = queries @ keys.transpose(1, 2)
        attn_scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=self.softmax_dim)
        attn_weights = self.dropout(attn_weights)
        return attn_weights @ values


class MultiHeadAttentionWrapper(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False, softmax_dim=-1):
        super().__init__()
        self.heads = nn.ModuleList(
            [CausalAttention(d_in, d_out, context_length, dropout, qkv_bias, softmax_dim)
             for _ in range(num_heads)])

    def forward(self, x):
        return torch.cat([head(x) for head in self.heads], dim=-1)


class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"
        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))

    def forward(self, x, rec=None):
        rec = rec or (lambda *a: None)
        b, num_tokens, d_in = x.shape
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)
        rec("keys", keys); rec("queries", queries); rec("values", values)
        keys = keys.view(b, num_tokens, self.num_heads, self.head_dim)
        values = values.view(b, num_tokens, self.num_heads, self.head_dim)
        queries = queries.view(b, num_tokens, self.num_heads, self.head_dim)
        rec("keys_viewed", keys); rec("queries_viewed", queries); rec("values_viewed", values)
        keys = keys.transpose(1, 2)
        queries = queries.transpose(1, 2)
        values = values.transpose(1, 2)
        rec("keys_transposed", keys); rec("queries_transposed", queries); rec("values_transposed", values)
        attn_scores = queries @ keys.transpose(2, 3)
        rec("attn_scores", attn_scores)
        mask_bool = self.mask.bool()[:num_tokens, :num_tokens]
        attn_scores.masked_fill_(mask_bool, -torch.inf)
        rec("attn_scores_masked", attn_scores)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)
        attn_weights = self.dropout(attn_weights)
        rec("attn_weights", attn_weights)
        context_vec = (attn_weights @ values).transpose(1, 2)
        rec("context_vec", context_vec)
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        rec("context_vec_merged", context_vec)
        rec("out_proj.weight", self.out_proj.weight)
        rec("out_proj.bias", self.out_proj.bias)
        context_vec = self.out_proj(context_vec)
        return context_vec


def softmax_naive(x):
    return torch.exp(x) / torch.exp(x).sum(dim=0)


# ---- recording ---------------------------------------------------------------------------

def _encode(v):
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


class Recorder:
    def __init__(self):
        self.steps = []

    def __call__(self, name, obj, label=None, details=None):
        """Record obj; `label` is what the notebook's print() puts before it ("Sum:"),
        `details` the lines shown under it (strides, state_dict keys)."""
        if isinstance(obj, (int, float)):  # a Python number, printed as Python prints it
            shape, data = [], _encode(float(obj))
        else:
            t = obj.detach()
            shape, data = list(t.shape), t.tolist()

            def enc(x):
                return [enc(y) for y in x] if isinstance(x, list) else _encode(x)

            data = enc(data)
        # print(label, obj) joins str() of each with a space (f"{obj}" would format a 0-dim
        # tensor as a Python float).
        printed = str(obj) if label is None else label + " " + str(obj)
        step = {"name": name, "shape": shape, "data": data, "printed": printed}
        if details is not None:
            step["details"] = details
        self.steps.append(step)
        return obj


class Cfg:
    def __init__(self, inputs, query=2, seed1=123, seed2=789, d_out=2, heads=2, dropout=0.5,
                 attn_dropout=0.0, batch=2, qkv_bias=False, init="rand", dropout_rng="default",
                 softmax_dim=-1, torch_threads=2):
        self.inputs = torch.tensor(inputs, dtype=torch.float32)
        self.query, self.seed1, self.seed2 = query, seed1, seed2
        self.d_out, self.heads, self.dropout, self.attn_dropout = d_out, heads, dropout, attn_dropout
        self.batch, self.qkv_bias, self.init, self.dropout_rng = batch, qkv_bias, init, dropout_rng
        # CausalAttention's softmax dim; its kernel for dim=1 depends on the thread count.
        self.softmax_dim, self.torch_threads = softmax_dim, torch_threads


# ---- the stages --------------------------------------------------------------------------

def stage_dot_product(c):
    rec = Recorder()
    inputs = rec("inputs", c.inputs)
    query = rec("query", inputs[c.query - 1])
    attn_scores_2 = torch.empty(inputs.shape[0])
    for i, x_i in enumerate(inputs):
        attn_scores_2[i] = torch.dot(x_i, query)
    rec("attn_scores_2", attn_scores_2)
    res = 0.
    for idx, element in enumerate(inputs[0]):
        res += inputs[0][idx] * query[idx]
    rec("res", res)
    attn_weights_2 = rec("attn_weights_2", torch.softmax(attn_scores_2, dim=0))
    context_vec_2 = torch.zeros(query.shape)
    for i, x_i in enumerate(inputs):
        context_vec_2 += attn_weights_2[i] * x_i
    rec("context_vec_2", context_vec_2)
    attn_scores = rec("attn_scores", inputs @ inputs.T)
    attn_weights = rec("attn_weights", torch.softmax(attn_scores, dim=-1))
    # The notebook types the printed weights of one row into sum(): 4 decimals each.
    row = attn_weights[c.query - 1].tolist()
    rec("row_2_sum", sum([float(f"{v:.4f}") for v in row]), label=f"Row {c.query} sum:")
    rec("attn_weights_row_sums", attn_weights.sum(dim=-1), label="All row sums:")
    rec("all_context_vecs", attn_weights @ inputs)
    rec("context_vec_2_previous", context_vec_2, label="Previous 2nd context vector:")
    return rec.steps


def _overflow_scale(scores):
    for k in range(1, 39):
        scale = 10.0 ** k
        scaled = scores * scale
        if not torch.isfinite(scaled).all():
            break
        if not torch.isfinite(softmax_naive(scaled)).all():
            return scale
    return 100.0


def stage_softmax(c):
    rec = Recorder()
    inputs = c.inputs
    query = inputs[c.query - 1]
    attn_scores_2 = torch.empty(inputs.shape[0])
    for i, x_i in enumerate(inputs):
        attn_scores_2[i] = torch.dot(x_i, query)
    rec("attn_scores_2", attn_scores_2)
    tmp = rec("attn_weights_2_tmp", attn_scores_2 / attn_scores_2.sum(), label="Attention weights:")
    rec("attn_weights_2_tmp_sum", tmp.sum(), label="Sum:")
    naive = rec("attn_weights_2_naive", softmax_naive(attn_scores_2), label="Attention weights:")
    rec("attn_weights_2_naive_sum", naive.sum(), label="Sum:")
    stable = rec("attn_weights_2", torch.softmax(attn_scores_2, dim=0), label="Attention weights:")
    rec("attn_weights_2_sum", stable.sum(), label="Sum:")
    attn_weights = rec("attn_weights", torch.softmax(inputs @ inputs.T, dim=-1))
    rec("attn_weights_row_sums", attn_weights.sum(dim=-1))
    scale = _overflow_scale(attn_scores_2)
    rec("overflow_scale", torch.tensor(scale, dtype=torch.float32))
    big = rec("big_scores_2", attn_scores_2 * scale)
    rec("big_weights_2_naive", softmax_naive(big))
    rec("big_weights_2", torch.softmax(big, dim=0))
    rec("attn_weights_2_sharp", torch.softmax(attn_scores_2 / 0.5, dim=0))
    rec("attn_weights_2_flat", torch.softmax(attn_scores_2 / 2.0, dim=0))
    return rec.steps


def stage_trainable(c):
    rec = Recorder()
    inputs = c.inputs
    d_in, d_out = inputs.shape[1], c.d_out
    draw = torch.rand if c.init == "rand" else torch.randn
    x_2 = rec("x_2", inputs[c.query - 1])
    torch.manual_seed(c.seed1)
    W_query = rec("W_query", torch.nn.Parameter(draw(d_in, d_out), requires_grad=False))
    W_key = rec("W_key", torch.nn.Parameter(draw(d_in, d_out), requires_grad=False))
    W_value = rec("W_value", torch.nn.Parameter(draw(d_in, d_out), requires_grad=False))
    query_2 = rec("query_2", x_2 @ W_query)
    rec("key_2", x_2 @ W_key)
    rec("value_2", x_2 @ W_value)
    keys = inputs @ W_key
    values = inputs @ W_value
    rec("keys", keys, details=[f"keys.shape: {keys.shape}"])
    rec("values", values, details=[f"values.shape: {values.shape}"])
    keys_2 = keys[c.query - 1]
    rec("attn_score_22", query_2.dot(keys_2))
    attn_scores_2 = rec("attn_scores_2", query_2 @ keys.T)
    d_k = keys.shape[-1]
    attn_weights_2 = rec("attn_weights_2", torch.softmax(attn_scores_2 / d_k ** 0.5, dim=-1))
    rec("context_vec_2", attn_weights_2 @ values)
    torch.manual_seed(c.seed1)
    sa_v1 = SelfAttention_v1(d_in, d_out, c.init)
    rec("sa_v1_output", sa_v1(inputs))
    torch.manual_seed(c.seed2)
    sa_v2 = SelfAttention_v2(d_in, d_out, c.qkv_bias)
    for name in ("W_query", "W_key", "W_value"):
        layer = getattr(sa_v2, name)
        rec(f"sa_v2.{name}.weight", layer.weight)
        if layer.bias is not None:
            rec(f"sa_v2.{name}.bias", layer.bias)
    rec("sa_v2_output", sa_v2(inputs))
    # Exercise 3.1, as the solution notebook does it: seed 123 (seed1) for both classes,
    # v2 without qkv_bias, then v2's weights (transposed) copied into v1.
    torch.manual_seed(c.seed1)
    ex_v1 = SelfAttention_v1(d_in, d_out, c.init)
    torch.manual_seed(c.seed1)
    ex_v2 = SelfAttention_v2(d_in, d_out)
    ex_v1.W_query = torch.nn.Parameter(ex_v2.W_query.weight.T)
    ex_v1.W_key = torch.nn.Parameter(ex_v2.W_key.weight.T)
    ex_v1.W_value = torch.nn.Parameter(ex_v2.W_value.weight.T)
    rec("exercise_3_1_sa_v1_output", ex_v1(inputs))
    rec("exercise_3_1_sa_v2_output", ex_v2(inputs))
    return rec.steps


def _causal_weights(c, rec=None):
    rec = rec or (lambda name, obj: obj)
    inputs = c.inputs
    torch.manual_seed(c.seed2)
    sa_v2 = SelfAttention_v2(inputs.shape[1], c.d_out, c.qkv_bias)
    queries = rec("queries", sa_v2.W_query(inputs))
    keys = rec("keys", sa_v2.W_key(inputs))
    attn_scores = rec("attn_scores", queries @ keys.T)
    attn_weights = rec("attn_weights", torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1))
    context_length = attn_scores.shape[0]
    mask_simple = rec("mask_simple", torch.tril(torch.ones(context_length, context_length)))
    masked_simple = rec("masked_simple", attn_weights * mask_simple)
    row_sums = rec("row_sums", masked_simple.sum(dim=-1, keepdim=True))
    rec("masked_simple_norm", masked_simple / row_sums)
    mask = rec("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))
    masked = rec("masked", attn_scores.masked_fill(mask.bool(), -torch.inf))
    return rec("attn_weights_causal", torch.softmax(masked / keys.shape[-1] ** 0.5, dim=1))


def stage_causal(c):
    rec = Recorder()
    _causal_weights(c, rec)
    return rec.steps


def stage_dropout(c):
    rec = Recorder()
    inputs = c.inputs
    T = inputs.shape[0]
    attn_weights = rec("attn_weights_causal", _causal_weights(c))
    torch.manual_seed(c.seed1)
    dropout = torch.nn.Dropout(c.dropout)
    rec("dropout_ones", dropout(torch.ones(T, T)))
    torch.manual_seed(c.seed1)
    dropped = rec("dropout_attn_weights", dropout(attn_weights))
    rec("dropout_attn_weights_row_sums", dropped.sum(dim=-1))
    batch = torch.stack((inputs,) * c.batch, dim=0)
    rec("batch", batch, details=[str(batch.shape)])  # print(batch.shape)
    torch.manual_seed(c.seed1)
    ca = CausalAttention(inputs.shape[1], c.d_out, T, c.attn_dropout, c.qkv_bias, c.softmax_dim)
    context_vecs = ca(batch)
    rec("causal_attention_context_vecs", context_vecs, details=[f"context_vecs.shape: {context_vecs.shape}"])
    # Beyond the chapter (ch03/03_understanding-buffers): the mask as a buffer, made for a
    # context longer than the input and cut to it; it is in the state_dict only as a buffer.
    torch.manual_seed(c.seed1)
    ca_long = CausalAttention(inputs.shape[1], c.d_out, T + 2, c.attn_dropout, c.qkv_bias)
    plain = CausalAttention(inputs.shape[1], c.d_out, T + 2, c.attn_dropout, c.qkv_bias)
    del plain.mask  # drop the buffer, then keep the mask as a plain attribute
    plain.mask = torch.triu(torch.ones(T + 2, T + 2), diagonal=1)
    rec("buffer_mask", ca_long.mask, details=[
        f"list(ca.state_dict()) = {list(ca_long.state_dict())}",
        f"list(ca_plain.state_dict()) = {list(plain.state_dict())}"])
    rec("buffer_mask_T", ca_long.mask[:T, :T])
    return rec.steps


def _layout(t):
    return [f"stride() = {t.stride()}, is_contiguous() = {t.is_contiguous()}"]


CHAPTER_A = [[[[0.2745, 0.6584, 0.2775, 0.8573],
               [0.8993, 0.0390, 0.9268, 0.7388],
               [0.7179, 0.7058, 0.9156, 0.4340]],
              [[0.0772, 0.3565, 0.1479, 0.5331],
               [0.4066, 0.2318, 0.4545, 0.9737],
               [0.4606, 0.5159, 0.4220, 0.5786]]]]


def stage_multi_head(c):
    rec = Recorder()
    inputs = c.inputs
    T, d_in = inputs.shape
    batch = rec("batch", torch.stack((inputs,) * c.batch, dim=0))
    torch.manual_seed(c.seed1)
    wrapper = MultiHeadAttentionWrapper(d_in, c.d_out, T, c.attn_dropout, c.heads, c.qkv_bias,
                                        c.softmax_dim)
    context_vecs = wrapper(batch)
    rec("wrapper_context_vecs", context_vecs, details=[f"context_vecs.shape: {context_vecs.shape}"])
    a = rec("a", torch.tensor(CHAPTER_A))
    rec("a_at_a_T", a @ a.transpose(2, 3))
    first_head = a[0, 0, :, :]
    rec("first_res", first_head @ first_head.T, label="First head:\n")
    second_head = a[0, 1, :, :]
    rec("second_res", second_head @ second_head.T, label="\nSecond head:\n")
    torch.manual_seed(c.seed1)
    mha = MultiHeadAttention(d_in, c.d_out, T, c.attn_dropout, c.heads, c.qkv_bias)
    out = mha(batch, rec)
    rec("mha_context_vecs", out, details=[f"context_vecs.shape: {out.shape}"])
    # Beyond the chapter: view and transpose with head_dim = 2 (b = 1, 3 tokens, 2 heads),
    # on numbers that say where they come from, with the layout in memory.
    keys = rec("hd2_keys", torch.arange(12.0).view(1, 3, 4), details=_layout(torch.arange(12.0).view(1, 3, 4)))
    split = keys.view(1, 3, 2, 2).transpose(1, 2)
    rec("hd2_keys_split", split, details=_layout(split))
    wrong = keys.view(1, 2, 3, 2)
    rec("hd2_keys_wrong", wrong, details=_layout(wrong))
    fresh = split.contiguous()  # as attn_weights @ values makes a new tensor
    rec("hd2_heads_copy", fresh, details=_layout(fresh))
    back = fresh.transpose(1, 2)
    rec("hd2_back", back, details=_layout(back))
    merged = back.contiguous().view(1, 3, 4)
    rec("hd2_merged", merged, details=_layout(merged))
    # Exercise 3.2: two heads with d_out = 1 each give 2-dimensional context vectors.
    torch.manual_seed(c.seed1)
    wrapper_2d = MultiHeadAttentionWrapper(d_in, 1, T, c.attn_dropout, 2, c.qkv_bias, c.softmax_dim)
    rec("exercise_3_2_context_vecs", wrapper_2d(batch))
    # Exercise 3.3: the parameters of a GPT-2-sized MultiHeadAttention.
    torch.manual_seed(c.seed1)
    gpt2_mha = MultiHeadAttention(768, 768, 1024, 0.0, 12)
    n = sum(p.numel() for p in gpt2_mha.parameters())
    rec("exercise_3_3_num_params", n)  # a Python int, as the solution prints it
    return rec.steps


STAGES = {
    "dot-product": stage_dot_product,
    "softmax": stage_softmax,
    "trainable": stage_trainable,
    "causal": stage_causal,
    "dropout": stage_dropout,
    "multi-head": stage_multi_head,
}


def run_stage(stage, cfg):
    if cfg.dropout_rng != "default":
        raise ValueError("Debian's PyTorch has no MKL: the mkl kernel cannot be run here")
    torch.set_num_threads(cfg.torch_threads)
    return STAGES[stage](cfg)
