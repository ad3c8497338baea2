"""Oracle of the mla stage: MultiHeadLatentAttention of ch04/05_mla/gpt_with_kv_mla.py, built
right after the seed with latent_dim = --latent-dim; the full causal pass, then the same module
fed one token at a time with its latent cache (use_cache=True); under torch.no_grad()."""
import torch_env  # noqa: F401  (before torch: it chooses OpenBLAS's kernel)
import torch
import torch.nn as nn

from _common import Recorder

STAGE = "mla"


class MultiHeadLatentAttention(nn.Module):
    """The reference's module, with `rec` seeing its intermediates."""

    def __init__(self, d_in, d_out, dropout, num_heads, qkv_bias=False, latent_dim=None):
        super().__init__()
        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"
        self.d_out, self.num_heads, self.head_dim = d_out, num_heads, d_out // num_heads
        self.latent_dim = latent_dim if latent_dim is not None else max(16, d_out // 8)
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_DKV = nn.Linear(d_in, self.latent_dim, bias=qkv_bias)
        self.W_UK = nn.Linear(self.latent_dim, d_out, bias=qkv_bias)
        self.W_UV = nn.Linear(self.latent_dim, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("cache_c_kv", None, persistent=False)
        self.ptr_current_pos = 0

    def reset_cache(self):
        self.cache_c_kv = None
        self.ptr_current_pos = 0

    @staticmethod
    def _reshape_to_heads(x, num_heads, head_dim):
        bsz, num_tokens, _ = x.shape
        return x.view(bsz, num_tokens, num_heads, head_dim).transpose(1, 2).contiguous()

    def forward(self, x, use_cache=False, rec=lambda name, obj: obj):
        b, num_tokens, _ = x.shape
        queries_all = rec("queries_all", self.W_query(x))
        latent_new = rec("latent", self.W_DKV(x))
        if use_cache:
            latent_total = latent_new if self.cache_c_kv is None else torch.cat([self.cache_c_kv, latent_new], dim=1)
            self.cache_c_kv = latent_total
        else:
            latent_total = latent_new
        keys_all = rec("keys_all", self.W_UK(latent_total))
        values_all = rec("values_all", self.W_UV(latent_total))
        queries = self._reshape_to_heads(queries_all, self.num_heads, self.head_dim)
        keys = self._reshape_to_heads(keys_all, self.num_heads, self.head_dim)
        values = self._reshape_to_heads(values_all, self.num_heads, self.head_dim)
        attn_scores = torch.matmul(queries, keys.transpose(-2, -1))
        num_tokens_Q, num_tokens_K = queries.shape[-2], keys.shape[-2]
        if use_cache:
            q_positions = torch.arange(self.ptr_current_pos, self.ptr_current_pos + num_tokens_Q, dtype=torch.long)
            self.ptr_current_pos += num_tokens_Q
        else:
            q_positions = torch.arange(num_tokens_Q, dtype=torch.long)
            self.ptr_current_pos = 0
        k_positions = torch.arange(num_tokens_K, dtype=torch.long)
        mask_bool = q_positions.unsqueeze(-1) < k_positions.unsqueeze(0)
        attn_scores.masked_fill_(mask_bool, -torch.inf)
        rec("attn_scores", attn_scores)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        attn_weights = rec("attn_weights", self.dropout(attn_weights))
        context_vec = (attn_weights @ values).transpose(1, 2)
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        return self.out_proj(context_vec)


def run(cfg):
    rec = Recorder()
    batch = cfg.batch_input()
    torch.manual_seed(cfg.seed1)
    mla = MultiHeadLatentAttention(cfg.d_in, cfg.d_out, 0.0, cfg.heads, cfg.qkv_bias, cfg.latent_dim)
    for name in ("W_query", "W_DKV", "W_UK", "W_UV"):
        layer = getattr(mla, name)
        rec(f"{name}.weight", layer.weight)
        if layer.bias is not None:
            rec(f"{name}.bias", layer.bias)
    with torch.no_grad():
        rec("context_vec", mla(batch, rec=rec))
        # One token at a time, as generation feeds it: only the latent is cached.
        mla.reset_cache()
        outs = [mla(batch[:, t:t + 1], use_cache=True) for t in range(batch.shape[1])]
        rec("cache_c_kv", mla.cache_c_kv)
        rec("context_vec_cached", torch.cat(outs, dim=1))
    # What a cache holds for these tokens: keys and values (MultiHeadAttention), or the latent.
    B, T = batch.shape[0], batch.shape[1]
    rec("kv_cache_size", torch.tensor([2.0 * B * T * cfg.d_out, 1.0 * B * T * cfg.latent_dim]))
    return rec.steps
