"""Goldens of `attn-walk --stage gpt`: the book's GPTModel run by PyTorch on every test model.

    /usr/bin/python3 tests/golden/make_gpt_goldens.py   (or: make goldens)

For each model file of tests/data/gpt/ (make_gpt_models.py), loaded as the book loads it
(load_state_dict for the book's files, torch.load(weights_only=True) for .pth, float16 into
the float32 model; the book's load_weights_into_gpt for Hugging Face's, bfloat16 widened
first), model.eval() runs on the ids of TEXT with LAYER's attention opened, and
tests/golden/gpt/<file>.json records, step by step in the walk's order and names:
  - every module's output by its path in model.named_modules() (forward hooks), the sums no
    module outputs (emb_sum, the input of trf_blocks.0; trf_blocks.N.shortcut1, the input of
    norm2), and LAYER's attention intermediates (its forward's lines, run on its own weights);
  - per step its shape, the FNV-1a 64 digest of its float32 bytes, and, up to 4096 elements,
    every value's bits as hex;
  - the next token: softmax of the last position's logits, torch.topk(probas, 5)'s ids and
    probabilities; generate_text_simple(model, ids, MAX_NEW, context_length)'s ids.
The book's code itself comes from tests/golden/book_gpt.py, the loading from make_gpt_models.py.
"""
import collections
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import torch_env  # noqa: E402  (before torch: OpenBLAS's reference kernel)
from golden_files import write_goldens  # noqa: E402

torch_env.require_bit_exact("make_gpt_goldens.py")

import torch  # noqa: E402

from book_gpt import GPTModel, generate_text_simple  # noqa: E402
import make_gpt_models as models  # noqa: E402

TEXT = "Every effort moves you"
IDS = [6109, 3626, 6100, 345]  # tokenizer.encode(TEXT), as chapter 4 prints them
LAYER = 1
MAX_NEW = 14                   # 4 + 14 > context_length 16: the last calls crop the context
OUT = os.path.join(HERE, "gpt")
DATA = os.path.join(HERE, "..", "data", "gpt")
MAX_VALUES = 4096


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def step(name, t, int64=False):
    t = t.detach()
    floats = t.to(torch.float32).contiguous().reshape(-1)
    data = floats.numpy().astype("<f4").tobytes()
    out = collections.OrderedDict(name=name, shape=list(t.shape), digest=fnv1a64(data))
    if floats.numel() <= MAX_VALUES:
        out["bits"] = [f"{b & 0xFFFFFFFF:08x}" for b in floats.view(torch.int32).tolist()]
    if int64:
        out["int64"] = True
    return out


def traced_attention(att, x, record, prefix):
    """MultiHeadAttention.forward (book_gpt.py) line by line, recording its intermediates."""
    b, num_tokens, d_in = x.shape
    keys = att.W_key(x)
    queries = att.W_query(x)
    values = att.W_value(x)
    record(prefix + "keys", keys)
    record(prefix + "queries", queries)
    record(prefix + "values", values)
    keys = keys.view(b, num_tokens, att.num_heads, att.head_dim).transpose(1, 2)
    values = values.view(b, num_tokens, att.num_heads, att.head_dim).transpose(1, 2)
    queries = queries.view(b, num_tokens, att.num_heads, att.head_dim).transpose(1, 2)
    attn_scores = queries @ keys.transpose(2, 3)
    record(prefix + "attn_scores", attn_scores.clone())
    mask_bool = att.mask.bool()[:num_tokens, :num_tokens]
    attn_scores.masked_fill_(mask_bool, -torch.inf)
    record(prefix + "attn_scores_masked", attn_scores)
    attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
    attn_weights = att.dropout(attn_weights)
    record(prefix + "attn_weights", attn_weights)
    context_vec = (attn_weights @ values).transpose(1, 2)
    record(prefix + "context_vec", context_vec)
    context_vec = context_vec.contiguous().view(b, num_tokens, att.d_out)
    return att.out_proj(context_vec)


def walk(model):
    model.eval()
    steps = []
    record = lambda name, t: steps.append(step(name, t))  # noqa: E731
    hooks = []
    names = {m: n for n, m in model.named_modules()}

    def after(module, inputs, output):
        name = names[module]
        if name.endswith(".norm2"):
            record(name[:-len("norm2")] + "shortcut1", inputs[0])  # x = x + shortcut
        record(name, output)

    def before_block0(module, inputs):
        record("emb_sum", inputs[0])  # x = tok_embeds + pos_embeds (drop_emb: eval, unchanged)

    for name, m in model.named_modules():
        if name in ("", "trf_blocks", "drop_emb") or name.endswith(("dropout", "drop_shortcut")):
            continue
        if name.endswith(".att") and name == f"trf_blocks.{LAYER}.att":
            continue  # walked by traced_attention below, its output recorded there
        hooks.append(m.register_forward_hook(after))
    hooks.append(model.trf_blocks[0].register_forward_pre_hook(before_block0))

    att = model.trf_blocks[LAYER].att
    prefix = f"trf_blocks.{LAYER}.att."

    def traced(x):
        out = traced_attention(att, x, record, prefix)
        record(f"trf_blocks.{LAYER}.att", out)
        return out

    att.forward = traced
    idx = torch.tensor([IDS])
    with torch.no_grad():
        logits = model(idx)
    for h in hooks:
        h.remove()
    del att.forward
    return steps, logits


def module_steps_only(steps):
    """The projections inside the attention modules (W_query ...) are not the walk's steps."""
    skip = (".W_query", ".W_key", ".W_value", ".out_proj")
    return [s for s in steps if not s["name"].endswith(skip)]


def golden_of(model):
    steps, logits = walk(model)
    steps = module_steps_only(steps)
    with torch.no_grad():
        probas = torch.softmax(logits[:, -1, :], dim=-1)
        top = torch.topk(probas, 5, dim=-1)
        generated = generate_text_simple(model, torch.tensor([IDS]), MAX_NEW, model.pos_emb.weight.shape[0])
    steps.append(step("probas", probas))
    steps.append(step("top5_probas", top.values[0]))
    g = collections.OrderedDict()
    g["text"] = TEXT
    g["ids"] = IDS
    g["layer"] = LAYER
    g["max_new_tokens"] = MAX_NEW
    g["steps"] = steps
    g["top5_ids"] = top.indices[0].tolist()
    g["generated_ids"] = generated[0].tolist()
    return g


def loaded(name):
    path = os.path.join(DATA, name)
    if name == "book.pth":
        return models.loaded_book(torch.load(path, weights_only=True))
    if name.startswith("book"):
        return models.loaded_book(models.load_safetensors(path))
    state = models.load_safetensors(path)
    state = {k[len("transformer."):] if k.startswith("transformer.") else k: v.float() for k, v in state.items()}
    return models.loaded_hf(state)


def hexbits(t):
    return [f"{b & 0xFFFFFFFF:08x}" for b in t.contiguous().view(torch.int32).reshape(-1).tolist()]


def ops_golden():
    """The ops alone on inputs the test models' walks do not reach: torch.tanh and the book's
    GELU over many magnitudes (and the edges of tanh's range), and LayerNorm's mean and
    var(unbiased=False) on GPT-2-wide rows."""
    from book_gpt import GELU, LayerNorm
    g = torch.Generator().manual_seed(41)
    parts = [torch.randn(256, generator=g) * s for s in (1e-3, 0.1, 1.0, 3.0, 10.0)]
    parts.append(torch.tensor([0.0, -0.0, 8.664339742, -8.664339742, 8.6643, 9.0, -20.0, 1e-30, 88.0, -88.0]))
    x = torch.cat(parts).float()
    rows = (torch.randn(8, 768, generator=g) * torch.rand(8, 1, generator=g) * 4 + torch.randn(8, 1, generator=g))
    norm = LayerNorm(768)
    with torch.no_grad():
        norm.scale.copy_(1 + 0.1 * torch.randn(768, generator=g))
        norm.shift.copy_(0.1 * torch.randn(768, generator=g))
        out = collections.OrderedDict()
        out["x"] = hexbits(x)
        out["tanh"] = hexbits(torch.tanh(x))
        out["gelu"] = hexbits(GELU()(x))
        out["rows"] = hexbits(rows)
        out["mean"] = hexbits(rows.mean(dim=-1, keepdim=True))
        out["var"] = hexbits(rows.var(dim=-1, keepdim=True, unbiased=False))
        out["scale"] = hexbits(norm.scale)
        out["shift"] = hexbits(norm.shift)
        out["layer_norm_digest"] = fnv1a64(norm(rows).numpy().astype("<f4").tobytes())
    return out


FILES = ["book.safetensors", "book.pth", "book-f16.safetensors", "hf/model.safetensors",
         "hf-prefixed-bf16.safetensors"]


def main():
    write_goldens(OUT, [("ops.json", ops_golden())], lambda path, doc: f"{os.path.getsize(path)} bytes",
                  replace=None, indent=0)
    write_goldens(OUT, ((name.replace("/", "-").replace(".safetensors", "").replace(".pth", "-pth") + ".json",
                         dict(golden_of(loaded(name)), file=name)) for name in FILES),
                  lambda path, doc: f"{os.path.getsize(path)} bytes, {len(doc['steps'])} steps",
                  replace=None, indent=0)


if __name__ == "__main__":
    main()
