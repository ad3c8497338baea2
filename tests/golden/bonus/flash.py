"""Oracle of the flash stage, written for attn-walk (the book's repository has no online-softmax
code): the chapter's MultiHeadAttention with its attention computed one block of keys at a
time, FlashAttention's online softmax, under model.eval() and torch.no_grad()."""
import torch_env  # noqa: F401  (before torch: it chooses OpenBLAS's kernel)
import torch

from _common import MultiHeadAttention, Recorder

STAGE = "flash"


def flash_attention(queries, keys, values, block, rec):
    """Causal softmax(queries @ keys.T / sqrt(hd)) @ values, one block of keys at a time.

    queries, keys, values: (b, H, T, hd), as MultiHeadAttention has them after transpose(1, 2).
    Per query row it keeps the running maximum m, the running sum l of exp(score - m) and
    the accumulator acc = sum of exp(score - m) * value; when m grows, l and acc are rescaled
    by alpha = exp(m_old - m_new). Only a (T, block) tile of scores exists at any time.
    """
    b, H, T, hd = queries.shape
    mask = torch.triu(torch.ones(T, T), diagonal=1).bool()
    m = torch.full((b, H, T, 1), -torch.inf)
    l = torch.zeros(b, H, T, 1)
    acc = torch.zeros(b, H, T, hd)
    for start in range(0, T, block):
        end = min(start + block, T)
        k_blk, v_blk = keys[:, :, start:end], values[:, :, start:end]
        s = queries @ k_blk.transpose(2, 3)                     # (b, H, T, end - start)
        s = s.masked_fill(mask[:, start:end], -torch.inf) / hd ** 0.5
        rec("scores", s)
        m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))  # (b, H, T, 1)
        p = torch.exp(s - m_new)
        alpha = torch.exp(m - m_new)
        l = alpha * l + p.sum(dim=-1, keepdim=True)
        acc = alpha * acc + p @ v_blk                           # (b, H, T, hd)
        m = m_new
        rec("m", m)
        rec("l", l)
        rec("acc", acc)
    return acc / l


def run(cfg):
    rec = Recorder()
    x = cfg.batch_input()
    b, T, _ = x.shape
    torch.manual_seed(cfg.seed1)
    mha = MultiHeadAttention(cfg.d_in, cfg.d_out, T, 0.0, cfg.heads, cfg.qkv_bias)
    mha.eval()
    with torch.no_grad():
        def heads(layer):
            return layer(x).view(b, T, mha.num_heads, mha.head_dim).transpose(1, 2)

        keys, queries, values = heads(mha.W_key), heads(mha.W_query), heads(mha.W_value)
        out = rec("flash_context_vec", flash_attention(queries, keys, values, cfg.block, rec))
        context_vec = out.transpose(1, 2).contiguous().view(b, T, cfg.d_out)
        rec("context_vecs", mha.out_proj(context_vec))
    return rec.steps
