"""Oracle of the gqa stage: ch04/04_gqa/gpt_with_kv_gqa.py's GroupedQueryAttention (parameters
drawn as it declares them: W_key, W_value, W_query, out_proj without a bias), forward without
a cache, under model.eval() and torch.no_grad()."""
import torch_env  # noqa: F401  (before torch: it chooses OpenBLAS's kernel)
import torch
import torch.nn as nn

from _common import Recorder

STAGE = "gqa"


def valid(cfg):
    return cfg.heads % cfg.kv_groups == 0


class GroupedQueryAttention(nn.Module):
    def __init__(self, d_in, d_out, dropout, num_heads, num_kv_groups, qkv_bias=False):
        super().__init__()
        assert d_out % num_heads == 0 and num_heads % num_kv_groups == 0
        self.d_out, self.num_heads = d_out, num_heads
        self.head_dim = d_out // num_heads
        self.W_key = nn.Linear(d_in, num_kv_groups * self.head_dim, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, num_kv_groups * self.head_dim, bias=qkv_bias)
        self.num_kv_groups = num_kv_groups
        self.group_size = num_heads // num_kv_groups
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out, bias=False)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, rec):
        b, num_tokens, _ = x.shape
        queries = self.W_query(x)
        keys = self.W_key(x)
        values = self.W_value(x)
        queries = queries.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        keys_new = keys.view(b, num_tokens, self.num_kv_groups, self.head_dim).transpose(1, 2)
        values_new = values.view(b, num_tokens, self.num_kv_groups, self.head_dim).transpose(1, 2)
        rec("queries", queries); rec("keys_new", keys_new); rec("values_new", values_new)
        keys = keys_new.repeat_interleave(self.group_size, dim=1)
        values = values_new.repeat_interleave(self.group_size, dim=1)
        rec("keys", keys); rec("values", values)
        rec("keys_repeat", keys_new.repeat(1, self.group_size, 1, 1))  # the wrong expansion
        attn_scores = queries @ keys.transpose(2, 3)
        q_positions = torch.arange(queries.shape[-2], dtype=torch.long)
        k_positions = torch.arange(keys.shape[-2], dtype=torch.long)
        mask = q_positions.unsqueeze(-1) < k_positions.unsqueeze(0)
        attn_scores = attn_scores.masked_fill(mask, -torch.inf)
        rec("attn_scores", attn_scores)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)
        attn_weights = self.dropout(attn_weights)
        rec("attn_weights", attn_weights)
        context_vec = (attn_weights @ values).transpose(1, 2)
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        return self.out_proj(context_vec)


def run(cfg):
    rec = Recorder()
    batch = cfg.batch_input()
    B, T = batch.shape[0], batch.shape[1]
    torch.manual_seed(cfg.seed1)
    gqa = GroupedQueryAttention(cfg.d_in, cfg.d_out, 0.0, cfg.heads, cfg.kv_groups, cfg.qkv_bias)
    gqa.eval()
    for name in ("W_key", "W_value", "W_query"):
        layer = getattr(gqa, name)
        rec(f"{name}.weight", layer.weight)
        if layer.bias is not None:
            rec(f"{name}.bias", layer.bias)
    with torch.no_grad():
        rec("context_vec", gqa(batch, rec))
    hd = cfg.head_dim
    rec("kv_cache_size", torch.tensor([2.0 * B * T * cfg.heads * hd, 2.0 * B * T * cfg.kv_groups * hd]))
    return rec.steps
