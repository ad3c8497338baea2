"""Oracle of the rope stage: compute_rope_params and apply_rope of
pkg/llms_from_scratch/llama3.py (no Llama 3 frequency scaling), applied to the queries and
keys of the chapter's MultiHeadAttention after its heads are split, under model.eval() and
torch.no_grad(). Then the same with every position shifted by T."""
import torch_env  # noqa: F401  (before torch: it chooses OpenBLAS's kernel)
import torch

from _common import MultiHeadAttention, Recorder

STAGE = "rope"


def compute_rope_params(head_dim, theta_base=10_000, context_length=4096, dtype=torch.float32, rec=None):
    """The reference's function (freq_config=None), recording its tensors when rec is given."""
    rec = rec or (lambda *a: None)
    assert head_dim % 2 == 0, "Embedding dimension must be even"
    inv_freq = 1.0 / (theta_base ** (torch.arange(0, head_dim, 2, dtype=dtype)[: (head_dim // 2)].float() / head_dim))
    rec("inv_freq", inv_freq)
    positions = torch.arange(context_length, dtype=dtype)
    rec("positions", positions)
    angles = positions[:, None] * inv_freq[None, :]
    angles = torch.cat([angles, angles], dim=1)
    rec("angles", angles)
    cos = torch.cos(angles)
    sin = torch.sin(angles)
    rec("cos", cos)
    rec("sin", sin)
    return cos, sin


def apply_rope(x, cos, sin):
    """The reference's function."""
    batch_size, num_heads, seq_len, head_dim = x.shape
    assert head_dim % 2 == 0, "Head dimension must be even"
    x1 = x[..., : head_dim // 2]
    x2 = x[..., head_dim // 2:]
    cos = cos[:seq_len, :].unsqueeze(0).unsqueeze(0)
    sin = sin[:seq_len, :].unsqueeze(0).unsqueeze(0)
    rotated = torch.cat((-x2, x1), dim=-1)
    x_rotated = (x * cos) + (rotated * sin)
    return x_rotated.to(dtype=x.dtype)


def valid(cfg):
    return cfg.head_dim % 2 == 0


def split_heads(mha, x, layer):
    """layer(x) viewed as heads and transposed, as MultiHeadAttention.forward does: (b, H, T, hd)."""
    b, num_tokens, _ = x.shape
    return layer(x).view(b, num_tokens, mha.num_heads, mha.head_dim).transpose(1, 2)


def run(cfg):
    rec = Recorder()
    T = cfg.num_tokens
    x = cfg.batch_input()
    b = x.shape[0]
    torch.manual_seed(cfg.seed1)
    mha = MultiHeadAttention(cfg.d_in, cfg.d_out, T, 0.0, cfg.heads, cfg.qkv_bias)
    mha.eval()
    with torch.no_grad():
        cos, sin = compute_rope_params(cfg.head_dim, cfg.rope_base, T, rec=rec)
        keys = rec("keys_transposed", split_heads(mha, x, mha.W_key))
        queries = rec("queries_transposed", split_heads(mha, x, mha.W_query))
        values = split_heads(mha, x, mha.W_value)
        keys = rec("keys_rotated", apply_rope(keys, cos, sin))
        queries = rec("queries_rotated", apply_rope(queries, cos, sin))

        def attend(queries, keys):
            attn_scores = queries @ keys.transpose(2, 3)
            attn_scores.masked_fill_(mha.mask.bool()[:T, :T], -torch.inf)
            return attn_scores

        attn_scores = rec("attn_scores_masked", attend(queries, keys))
        attn_weights = rec("attn_weights", torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1))
        context_vec = (attn_weights @ values).transpose(1, 2).contiguous().view(b, T, cfg.d_out)
        rec("context_vecs", mha.out_proj(context_vec))

        # The same tokens T positions later: positions T .. 2T-1.
        cos_all, sin_all = compute_rope_params(cfg.head_dim, cfg.rope_base, 2 * T)
        cos_s, sin_s = cos_all[T:], sin_all[T:]
        keys_s = apply_rope(split_heads(mha, x, mha.W_key), cos_s, sin_s)
        queries_s = apply_rope(split_heads(mha, x, mha.W_query), cos_s, sin_s)
        rec("attn_scores_shifted", attend(queries_s, keys_s))
    return rec.steps
