"""Oracle of the efficient stage: the bonus notebook's MultiHeadAttentionCombinedQKV, MHAEinsum
and MHAPyTorchClass (nn.MultiheadAttention with a causal attn_mask), from
ch03/02_bonus_efficient-multihead-attention/mha-implementations.ipynb, each built right after
the seed, against the chapter's MultiHeadAttention built after the same seed, then with that
module's weights copied in; under torch.no_grad().

The notebook runs its modules with d_in == d_out (embed_dim for both). MHAEinsum's projection
"bnd,di->bni" contracts x's last dimension with W_query's first (d_out), and
nn.MultiheadAttention(embed_dim=d_out) projects inputs of width d_out, so with d_in != d_out
the notebook's code raises. There MHAEinsum contracts with W's second dimension instead
("bnd,id->bni", what nn.Linear does with the same (d_out, d_in) weight), and
nn.MultiheadAttention is left out (src/stages/efficient.cpp says so in a note)."""
import math

import torch_env  # noqa: F401  (before torch: it chooses OpenBLAS's kernel)
import torch
import torch.nn as nn
import torch.nn.functional as F

from _common import MultiHeadAttention, Recorder

STAGE = "efficient"


class MultiHeadAttentionCombinedQKV(nn.Module):
    def __init__(self, d_in, d_out, num_heads, context_length, dropout=0.0, qkv_bias=False):
        super().__init__()
        assert d_out % num_heads == 0
        self.num_heads, self.head_dim, self.d_out = num_heads, d_out // num_heads, d_out
        self.qkv = nn.Linear(d_in, 3 * d_out, bias=qkv_bias)
        self.proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))

    def forward(self, x, rec):
        batch_size, num_tokens, _ = x.shape
        qkv = rec("qkv", self.qkv(x))
        qkv = rec("qkv_viewed", qkv.view(batch_size, num_tokens, 3, self.num_heads, self.head_dim))
        qkv = rec("qkv_permuted", qkv.permute(2, 0, 3, 1, 4))
        queries, keys, values = qkv.unbind(0)
        rec("queries", queries); rec("keys", keys); rec("values", values)
        attn_scores = queries @ keys.transpose(-2, -1)
        attn_scores = attn_scores.masked_fill(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
        rec("attn_scores", attn_scores)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)
        attn_weights = rec("attn_weights", self.dropout(attn_weights))
        context_vec = (attn_weights @ values).transpose(1, 2)
        # The notebook views as (.., embed_dim), its d_in == d_out; d_out is what it means.
        context_vec = context_vec.contiguous().view(batch_size, num_tokens, self.d_out)
        return self.proj(context_vec)


class MHAEinsum(nn.Module):
    """The notebook's MHAEinsum; `proj_eq` is its "bnd,di->bni" when d_in == d_out."""

    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"
        self.d_out, self.num_heads, self.head_dim = d_out, num_heads, d_out // num_heads
        self.W_query = nn.Parameter(torch.randn(d_out, d_in))
        self.W_key = nn.Parameter(torch.randn(d_out, d_in))
        self.W_value = nn.Parameter(torch.randn(d_out, d_in))
        if qkv_bias:
            self.bias_q = nn.Parameter(torch.zeros(d_out))
            self.bias_k = nn.Parameter(torch.zeros(d_out))
            self.bias_v = nn.Parameter(torch.zeros(d_out))
        else:
            self.register_parameter("bias_q", None)
            self.register_parameter("bias_k", None)
            self.register_parameter("bias_v", None)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))
        self.proj_eq = "bnd,di->bni" if d_in == d_out else "bnd,id->bni"
        self.reset_parameters()

    def reset_parameters(self):
        nn.init.kaiming_uniform_(self.W_query, a=math.sqrt(5))
        nn.init.kaiming_uniform_(self.W_key, a=math.sqrt(5))
        nn.init.kaiming_uniform_(self.W_value, a=math.sqrt(5))
        if self.bias_q is not None:
            fan_in, _ = nn.init._calculate_fan_in_and_fan_out(self.W_query)
            bound = 1 / math.sqrt(fan_in)
            nn.init.uniform_(self.bias_q, -bound, bound)
            nn.init.uniform_(self.bias_k, -bound, bound)
            nn.init.uniform_(self.bias_v, -bound, bound)

    def forward(self, x, rec):
        b, n, _ = x.shape
        Q = torch.einsum(self.proj_eq, x, self.W_query)
        K = torch.einsum(self.proj_eq, x, self.W_key)
        V = torch.einsum(self.proj_eq, x, self.W_value)
        if self.bias_q is not None:
            Q += self.bias_q
            K += self.bias_k
            V += self.bias_v
        rec("einsum_Q", Q)
        Q = Q.view(b, n, self.num_heads, self.head_dim).transpose(1, 2)
        K = K.view(b, n, self.num_heads, self.head_dim).transpose(1, 2)
        V = V.view(b, n, self.num_heads, self.head_dim).transpose(1, 2)
        scores = rec("einsum_scores", torch.einsum("bhnd,bhmd->bhnm", Q, K)) / (self.head_dim ** 0.5)
        mask = self.mask[:n, :n]
        scores = scores.masked_fill(mask.bool(), -torch.inf)
        attn_weights = torch.softmax(scores, dim=-1)
        attn_weights = rec("einsum_attn_weights", self.dropout(attn_weights))
        context_vec = torch.einsum("bhnm,bhmd->bhnd", attn_weights, V)
        context_vec = context_vec.transpose(1, 2).reshape(b, n, self.d_out)
        return self.out_proj(context_vec)


class MHAPyTorchClass(nn.Module):
    """The notebook's wrapper of nn.MultiheadAttention (then its own proj), need_weights=True."""

    def __init__(self, d_in, d_out, num_heads, context_length, dropout=0.0, qkv_bias=False, need_weights=True):
        super().__init__()
        self.context_length = context_length
        self.multihead_attn = nn.MultiheadAttention(
            embed_dim=d_out, num_heads=num_heads, dropout=dropout, bias=qkv_bias,
            add_bias_kv=qkv_bias, batch_first=True)
        self.need_weights = need_weights
        self.proj = nn.Linear(d_out, d_out)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1).bool())

    def forward(self, x, rec):
        batch_size, num_tokens, _ = x.shape
        if self.context_length >= num_tokens:
            attn_mask = self.mask[:num_tokens, :num_tokens]
        else:
            attn_mask = self.mask[:self.context_length, :self.context_length]
        attn_output, weights = self.multihead_attn(x, x, x, attn_mask=attn_mask, need_weights=self.need_weights)
        rec("torch_mha_attn_output", attn_output)
        rec("torch_mha_avg_weights", weights)
        return self.proj(attn_output)


def torch_mha_internals(m, x, rec):
    """F.multi_head_attention_forward's slow path (attn_mask given, so no fast path), step by
    step as PyTorch 1.13 writes it, for the walk to show what the call does inside."""
    mha = m.multihead_attn
    b, T, E = x.shape
    H = mha.num_heads
    query = x.transpose(1, 0)  # batch_first: (T, b, E)
    q, k, v = F.linear(query, mha.in_proj_weight, mha.in_proj_bias).chunk(3, dim=-1)
    attn_mask = m.mask[:T, :T].unsqueeze(0)
    if mha.bias_k is not None:
        k = torch.cat([k, mha.bias_k.repeat(1, b, 1)])
        v = torch.cat([v, mha.bias_v.repeat(1, b, 1)])
        attn_mask = F.pad(attn_mask, (0, 1))
    q = q.contiguous().view(T, b * H, E // H).transpose(0, 1)
    k = k.contiguous().view(k.shape[0], b * H, E // H).transpose(0, 1)
    new_attn_mask = torch.zeros_like(attn_mask, dtype=q.dtype)
    new_attn_mask.masked_fill_(attn_mask, float("-inf"))
    rec("torch_mha_attn_mask", new_attn_mask)
    q_scaled = rec("torch_mha_q_scaled", q / math.sqrt(E // H))
    scores = rec("torch_mha_scores", torch.baddbmm(new_attn_mask, q_scaled, k.transpose(-2, -1)))
    rec("torch_mha_attn_weights", torch.softmax(scores, dim=-1))


def run_more_modules(cfg, batch, mha_out, mha):
    """MHAEinsum and (for d_in == d_out) MHAPyTorchClass: after the seed, then with the chapter
    module's weights copied in."""
    rec = Recorder()
    T = batch.shape[1]
    torch.manual_seed(cfg.seed1)
    einsum = MHAEinsum(cfg.d_in, cfg.d_out, T, 0.0, cfg.heads, cfg.qkv_bias)
    rec("einsum.W_query", einsum.W_query)
    with torch.no_grad():
        rec("einsum_context_vec", einsum(batch, rec))
        # "bnd,di->bni" multiplies by W itself, nn.Linear by W.T.
        same = einsum.proj_eq == "bnd,di->bni"
        einsum.W_query.copy_(mha.W_query.weight.T if same else mha.W_query.weight)
        einsum.W_key.copy_(mha.W_key.weight.T if same else mha.W_key.weight)
        einsum.W_value.copy_(mha.W_value.weight.T if same else mha.W_value.weight)
        if cfg.qkv_bias:
            einsum.bias_q.copy_(mha.W_query.bias)
            einsum.bias_k.copy_(mha.W_key.bias)
            einsum.bias_v.copy_(mha.W_value.bias)
        einsum.out_proj.load_state_dict(mha.out_proj.state_dict())
    rec("einsum.W_query_copied", einsum.W_query)
    with torch.no_grad():
        rec("einsum_context_vec_copied", einsum(batch, lambda name, obj: obj))
    if cfg.d_in != cfg.d_out:
        return rec.steps
    torch.manual_seed(cfg.seed1)
    pt = MHAPyTorchClass(cfg.d_in, cfg.d_out, cfg.heads, T, 0.0, cfg.qkv_bias)
    rec("torch_mha.in_proj_weight", pt.multihead_attn.in_proj_weight)
    rec("torch_mha.out_proj.weight", pt.multihead_attn.out_proj.weight)
    if cfg.qkv_bias:
        rec("torch_mha.bias_k", pt.multihead_attn.bias_k)
    with torch.no_grad():
        torch_mha_internals(pt, batch, rec)
        rec("torch_mha_context_vec", pt(batch, rec))
        E = cfg.d_out
        pt.multihead_attn.in_proj_weight.copy_(
            torch.cat([mha.W_query.weight, mha.W_key.weight, mha.W_value.weight]))
        if cfg.qkv_bias:
            pt.multihead_attn.in_proj_bias.copy_(torch.cat([mha.W_query.bias, mha.W_key.bias, mha.W_value.bias]))
            pt.multihead_attn.out_proj.bias.zero_()
            # The chapter's module has no extra key and value: remove them.
            pt.multihead_attn.bias_k = None
            pt.multihead_attn.bias_v = None
        # The chapter has one output projection, the notebook's wrapper two: out_proj
        # becomes the identity, proj the chapter's out_proj.
        pt.multihead_attn.out_proj.weight.copy_(torch.eye(E))
        pt.proj.load_state_dict(mha.out_proj.state_dict())
        rec("torch_mha_context_vec_copied", pt(batch, lambda name, obj: obj))
    return rec.steps


def run(cfg):
    rec = Recorder()
    batch = cfg.batch_input()
    T = batch.shape[1]
    torch.manual_seed(cfg.seed1)
    combined = MultiHeadAttentionCombinedQKV(cfg.d_in, cfg.d_out, cfg.heads, T, 0.0, cfg.qkv_bias)
    rec("qkv.weight", combined.qkv.weight)
    with torch.no_grad():
        rec("context_vec", combined(batch, rec))
    torch.manual_seed(cfg.seed1)
    mha = MultiHeadAttention(cfg.d_in, cfg.d_out, T, 0.0, cfg.heads, cfg.qkv_bias)
    with torch.no_grad():
        rec("mha_context_vecs", mha(batch))
        combined.qkv.weight.copy_(torch.cat([mha.W_query.weight, mha.W_key.weight, mha.W_value.weight]))
        if cfg.qkv_bias:
            combined.qkv.bias.copy_(torch.cat([mha.W_query.bias, mha.W_key.bias, mha.W_value.bias]))
        combined.proj.load_state_dict(mha.out_proj.state_dict())
    rec("qkv.weight_copied", combined.qkv.weight)
    with torch.no_grad():
        rec("context_vec_copied", combined(batch, lambda name, obj: obj))
    # F.scaled_dot_product_attention(queries, keys, values, is_causal=True) arrived after
    # PyTorch 1.13: its documented math, on the first module's queries, keys and values.
    with torch.no_grad():
        torch.manual_seed(cfg.seed1)
        first = MultiHeadAttentionCombinedQKV(cfg.d_in, cfg.d_out, cfg.heads, T, 0.0, cfg.qkv_bias)
        seen = {}
        first(batch, lambda name, obj: seen.setdefault(name, obj))
        queries, keys, values = seen["queries"], seen["keys"], seen["values"]
        L, S = queries.size(-2), keys.size(-2)
        scale_factor = 1 / math.sqrt(queries.size(-1))
        attn_bias = torch.zeros(L, S, dtype=queries.dtype)
        temp_mask = torch.ones(L, S, dtype=torch.bool).tril(diagonal=0)
        attn_bias.masked_fill_(temp_mask.logical_not(), float("-inf"))
        rec("sdpa_attn_bias", attn_bias)
        attn_weight = rec("sdpa_scores", queries @ keys.transpose(-2, -1) * scale_factor)
        attn_weight = rec("sdpa_attn_weight", torch.softmax(attn_weight + attn_bias, dim=-1))
        rec("sdpa_output", attn_weight @ values)
    return rec.steps + run_more_modules(cfg, batch, None, mha)
