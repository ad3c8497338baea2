"""Oracle of the efficient stage: the bonus notebook's MultiHeadAttentionCombinedQKV
(ch03/02_bonus_efficient-multihead-attention/mha-implementations.ipynb), built right after
the seed, against the chapter's MultiHeadAttention built after the same seed, then with that
module's weights copied in; under torch.no_grad()."""
import math

import torch_env  # noqa: F401  (before torch: it chooses OpenBLAS's kernel)
import torch
import torch.nn as nn

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
    return rec.steps
