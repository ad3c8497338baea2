"""Oracle of the swa stage: ch04/06_swa/gpt_with_kv_swa.py's MultiHeadAttentionWithSWA on the
whole sequence (use_cache=False), under model.eval() and torch.no_grad(); its parameters are
drawn as the chapter's MultiHeadAttention draws them (W_query, W_key, W_value, out_proj)."""
import torch_env  # noqa: F401  (before torch: it chooses OpenBLAS's kernel)
import torch
import torch.nn as nn

from _common import Recorder

STAGE = "swa"


class MultiHeadAttentionWithSWA(nn.Module):
    """The reference's __init__ and its forward without the KV cache, recording steps."""

    def __init__(self, d_in, d_out, dropout, num_heads, qkv_bias=False, sliding_window_size=None):
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
        self.sliding_window_size = sliding_window_size

    def forward(self, x, rec):
        b, num_tokens, d_in = x.shape
        keys = self.W_key(x).view(b, num_tokens, self.num_heads, self.head_dim)
        values = self.W_value(x).view(b, num_tokens, self.num_heads, self.head_dim)
        queries = self.W_query(x).view(b, num_tokens, self.num_heads, self.head_dim)
        keys = keys.transpose(1, 2)
        queries = queries.transpose(1, 2)
        values = values.transpose(1, 2)
        attn_scores = queries @ keys.transpose(2, 3)
        # causal + sliding-window mask, from absolute positions
        q_positions = torch.arange(0, queries.shape[-2], dtype=torch.long)
        k_positions = torch.arange(0, keys.shape[-2], dtype=torch.long)
        W = keys.shape[-2] + 1 if self.sliding_window_size is None else int(self.sliding_window_size)
        diff = q_positions.unsqueeze(-1) - k_positions.unsqueeze(0)
        mask_bool = (diff < 0) | (diff >= W)
        rec("mask", mask_bool.float())  # shown as 0/1 floats, as the chapter's mask
        attn_scores.masked_fill_(mask_bool, -torch.inf)
        rec("attn_scores_masked", attn_scores)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)
        attn_weights = self.dropout(attn_weights)
        rec("attn_weights", attn_weights)
        context_vec = (attn_weights @ values).transpose(1, 2)
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        return self.out_proj(context_vec)


def run(cfg):
    rec = Recorder()
    torch.manual_seed(cfg.seed1)
    swa = MultiHeadAttentionWithSWA(cfg.d_in, cfg.d_out, 0.0, cfg.heads, cfg.qkv_bias,
                                    sliding_window_size=cfg.window)
    swa.eval()
    with torch.no_grad():
        rec("context_vecs", swa(cfg.batch_input(), rec))
    return rec.steps
