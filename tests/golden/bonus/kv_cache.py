"""Oracle of the kv-cache stage: ch04/03_kv-cache/gpt_with_kv_cache.py's MultiHeadAttention
(the chapter's module plus cache_k/cache_v), fed one token at a time as
generate_text_simple_cached does, under model.eval() and torch.no_grad()."""
import torch_env  # noqa: F401  (before torch: it chooses OpenBLAS's kernel)
import torch

from _common import MultiHeadAttention, Recorder

STAGE = "kv-cache"


class MultiHeadAttentionWithCache(MultiHeadAttention):
    """The chapter's parameters (same draws); forward(x, use_cache) as the reference."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.cache_k = self.cache_v = None

    def forward(self, x, use_cache=False, rec=None):
        rec = rec or (lambda *a: None)
        b, num_tokens, d_in = x.shape
        keys_new = self.W_key(x)
        values_new = self.W_value(x)
        queries = self.W_query(x)
        rec("keys_new", keys_new); rec("values_new", values_new); rec("queries", queries)
        keys_new = keys_new.view(b, num_tokens, self.num_heads, self.head_dim)
        values_new = values_new.view(b, num_tokens, self.num_heads, self.head_dim)
        queries = queries.view(b, num_tokens, self.num_heads, self.head_dim)
        if use_cache:
            if self.cache_k is None:
                self.cache_k, self.cache_v = keys_new, values_new
            else:
                self.cache_k = torch.cat([self.cache_k, keys_new], dim=1)
                self.cache_v = torch.cat([self.cache_v, values_new], dim=1)
            keys, values = self.cache_k, self.cache_v
        else:
            keys, values = keys_new, values_new
        keys = keys.transpose(1, 2)
        queries = queries.transpose(1, 2)
        values = values.transpose(1, 2)
        rec("keys", keys); rec("values", values)
        attn_scores = queries @ keys.transpose(2, 3)
        mask_bool = self.mask.bool()[:num_tokens, :num_tokens]
        attn_scores.masked_fill_(mask_bool, -torch.inf)
        rec("attn_scores", attn_scores)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)
        attn_weights = self.dropout(attn_weights)
        rec("attn_weights", attn_weights)
        context_vec = (attn_weights @ values).transpose(1, 2)
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        return self.out_proj(context_vec)

    def reset_cache(self):
        self.cache_k, self.cache_v = None, None


def cost(B, T, d_in, d_out, H, cached):
    """FLOPs (a multiply-add is 2), floats kept between tokens, floats of the last scores."""
    hd = d_out // H
    flops = 0
    for t in range(1, T + 1):
        rows = 1 if cached else t
        flops += 2 * 3 * rows * d_in * d_out + 2 * 2 * H * rows * t * hd + 2 * rows * d_out * d_out
    return [float(flops * B), float(2 * B * T * d_out if cached else 0), float(B * H * (1 if cached else T) * T)]


def run(cfg):
    rec = Recorder()
    batch = cfg.batch_input()
    B, T = batch.shape[0], batch.shape[1]
    torch.manual_seed(cfg.seed1)
    mha = MultiHeadAttentionWithCache(cfg.d_in, cfg.d_out, T, 0.0, cfg.heads, cfg.qkv_bias)
    mha.eval()
    with torch.no_grad():
        mha.reset_cache()
        outputs = []
        attn_weights_cached = torch.zeros(B, cfg.heads, T, T)
        for t in range(T):
            def rec_token(name, obj):
                if name == "attn_weights":
                    attn_weights_cached[:, :, t:t + 1, :t + 1] = obj
                rec(name, obj)

            out = mha(batch[:, t:t + 1, :], use_cache=True, rec=rec_token)
            rec("context_vec", out)
            outputs.append(out)
        rec("attn_weights_cached", attn_weights_cached)
        rec("context_vecs_cached", torch.cat(outputs, dim=1))
        mha.reset_cache()
        rec("context_vecs_full", mha(batch, use_cache=False))
    rec("cost", torch.tensor([cost(B, T, cfg.d_in, cfg.d_out, cfg.heads, False),
                              cost(B, T, cfg.d_in, cfg.d_out, cfg.heads, True)]))
    return rec.steps
