"""GPT-2-shaped test models for the weights readers (src/weights/), made by PyTorch.

    /usr/bin/python3 tests/golden/make_gpt_models.py   (or: make goldens)

Chapter 4's GPTModel (tests/golden/book_gpt.py) at a tiny width but GPT-2's vocabulary:
vocab 50257, context_length 16, emb_dim 8, n_heads 2, n_layers 2, drop_rate 0, qkv_bias True,
after torch.manual_seed(123). Every LayerNorm's scale and shift is then moved off 1 and 0
(1 + 0.1 * randn, 0.1 * randn), so a reader that drops or swaps them is caught. Written under
tests/data/gpt/:

  book.safetensors        the book's state dict (buffers included), float32, laid out as
                          safetensors.torch.save_file lays it out (written here: Debian has no
                          python3-safetensors; the format is an 8-byte little-endian header
                          length, a JSON header {name: {dtype, shape, data_offsets}} padded with
                          spaces to 8 bytes, then the data, tensors sorted by dtype then name)
  book.pth                torch.save(model.state_dict(), ...): PyTorch's zip format
  book-f16.safetensors    the same state dict in float16
  hf/model.safetensors    Hugging Face's GPT-2 keys without prefix (wte, wpe, h.N.ln_1, attn.bias
                          (the causal mask buffer, as openai-community/gpt2's model.safetensors
                          has it), attn.c_attn (Conv1D: (in, 3*out), the three projections side
                          by side), attn.c_proj, ln_2, mlp.c_fc, mlp.c_proj, ln_f; no lm_head: it
                          is tied to wte), made from the book model's parameters
  hf/config.json          n_head, n_embd, n_layer, n_ctx, n_positions, vocab_size
  hf-prefixed-bf16.safetensors  the same Hugging Face keys with `transformer.`, in bfloat16, no
                          config.json beside it (the head count comes from --heads)
  fuzz/corpus/{safetensors,zip,unpickle}/  tiny seeds for the weights fuzzers (fuzz/): a GPTModel
                          of width 2, one block, vocabulary 3, as safetensors (book's and Hugging
                          Face's keys), as torch.save's zip repacked without its 64-byte padding
                          (libFuzzer's inputs stay under 4096 bytes), and its data.pkl alone
  params.json             what the book's own loading code holds in PyTorch for each file: for
                          every parameter of the loaded GPTModel, its shape, strides, whether it
                          is contiguous, and the FNV-1a 64-bit hash of its float32 values in
                          logical row-major order (tests/test_weights.cpp compares them)

How PyTorch loads each file, as the book does: the book's files by
model.load_state_dict(state) (into a fresh GPTModel: contiguous float32 copies; torch.load(...,
weights_only=True) for .pth); Hugging Face's by the book's load_weights_into_gpt, which keeps
views (the Conv1D weights as transposes); bfloat16 is widened with .float() first (the book's
code would otherwise leave bfloat16 parameters; attn-walk widens every float16/bfloat16 file
to float32, exactly).

The binary files are committed once; rerunning this rewrites identical bytes.
"""
import collections
import json
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import torch_env  # noqa: E402,F401  (before torch; no BLAS result is written here, so any kernel will do)
import torch  # noqa: E402

from book_gpt import GPTModel, load_weights_into_gpt  # noqa: E402

OUT = os.path.join(HERE, "..", "data", "gpt")

GPT_CONFIG_TEST = {
    "vocab_size": 50257,     # GPT-2's vocabulary
    "context_length": 16,
    "emb_dim": 8,
    "n_heads": 2,
    "n_layers": 2,
    "drop_rate": 0.0,
    "qkv_bias": True,
}

# ---- safetensors, as the safetensors package writes and reads it -----------------------------
ST_DTYPES = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16",
             torch.float64: "F64", torch.int64: "I64"}
ST_TORCH = {v: k for k, v in ST_DTYPES.items()}
# safetensors orders tensors by dtype, largest enum first (F64 > F32 > BF16 > F16), then name.
ST_ORDER = ["I64", "F64", "F32", "BF16", "F16"]


def tensor_bytes(t):
    t = t.detach().contiguous()
    if t.dtype == torch.bfloat16:  # numpy has no bfloat16: go through int16's bits
        return t.view(torch.int16).numpy().astype("<i2").tobytes()
    return t.numpy().tobytes()


def save_safetensors(tensors, path, metadata=None):
    items = sorted(tensors.items(), key=lambda kv: (ST_ORDER.index(ST_DTYPES[kv[1].dtype]), kv[0]))
    header = collections.OrderedDict()
    if metadata is not None:
        header["__metadata__"] = metadata
    blobs, offset = [], 0
    for name, t in items:
        data = tensor_bytes(t)
        header[name] = {"dtype": ST_DTYPES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)


def load_safetensors(path):
    """safetensors.torch.load_file: one contiguous tensor per key."""
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    data = raw[8 + n:]
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        dtype = ST_TORCH[info["dtype"]]
        buf = bytearray(data[begin:end])
        t = torch.frombuffer(buf, dtype=dtype) if buf else torch.empty(0, dtype=dtype)
        out[name] = t.reshape(info["shape"]).clone()
    return out


# ---- the models -------------------------------------------------------------------------------
def book_model():
    torch.manual_seed(123)
    model = GPTModel(GPT_CONFIG_TEST)
    model.eval()
    emb = GPT_CONFIG_TEST["emb_dim"]
    with torch.no_grad():  # LayerNorms off their initial ones and zeros
        norms = [m for m in model.modules() if m.__class__.__name__ == "LayerNorm"]
        for norm in norms:
            norm.scale.copy_(1 + 0.1 * torch.randn(emb))
            norm.shift.copy_(0.1 * torch.randn(emb))
    return model


def hf_state_dict(model):
    """Hugging Face's GPT-2 keys for the book model's parameters (the inverse of the book's
    load_weights_into_gpt; HF's lm_head is wte, so the book's out_head is not written)."""
    ctx = GPT_CONFIG_TEST["context_length"]
    sd = {"wte.weight": model.tok_emb.weight, "wpe.weight": model.pos_emb.weight}
    for b, blk in enumerate(model.trf_blocks):
        att = blk.att
        sd[f"h.{b}.ln_1.weight"] = blk.norm1.scale
        sd[f"h.{b}.ln_1.bias"] = blk.norm1.shift
        sd[f"h.{b}.attn.bias"] = torch.tril(torch.ones(ctx, ctx)).view(1, 1, ctx, ctx)
        sd[f"h.{b}.attn.c_attn.weight"] = torch.cat(
            [att.W_query.weight.T, att.W_key.weight.T, att.W_value.weight.T], dim=1)
        sd[f"h.{b}.attn.c_attn.bias"] = torch.cat([att.W_query.bias, att.W_key.bias, att.W_value.bias])
        sd[f"h.{b}.attn.c_proj.weight"] = att.out_proj.weight.T
        sd[f"h.{b}.attn.c_proj.bias"] = att.out_proj.bias
        sd[f"h.{b}.ln_2.weight"] = blk.norm2.scale
        sd[f"h.{b}.ln_2.bias"] = blk.norm2.shift
        sd[f"h.{b}.mlp.c_fc.weight"] = blk.ff.layers[0].weight.T
        sd[f"h.{b}.mlp.c_fc.bias"] = blk.ff.layers[0].bias
        sd[f"h.{b}.mlp.c_proj.weight"] = blk.ff.layers[2].weight.T
        sd[f"h.{b}.mlp.c_proj.bias"] = blk.ff.layers[2].bias
    sd["ln_f.weight"] = model.final_norm.scale
    sd["ln_f.bias"] = model.final_norm.shift
    return {k: v.detach().contiguous().clone() for k, v in sd.items()}


def hf_config():
    c = GPT_CONFIG_TEST
    return {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2",
            "n_ctx": c["context_length"], "n_positions": c["context_length"],
            "n_embd": c["emb_dim"], "n_head": c["n_heads"], "n_layer": c["n_layers"],
            "vocab_size": c["vocab_size"], "layer_norm_epsilon": 1e-05}


# ---- the golden: what the book's loading code holds -------------------------------------------
def fnv1a64(data):
    h = 0xcbf29ce484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


_hash_cache = {}


def describe(model):
    params = collections.OrderedDict()
    for name, p in model.named_parameters():
        assert p.dtype == torch.float32, name
        data = p.detach().contiguous().numpy().astype("<f4").tobytes()
        if data not in _hash_cache:
            _hash_cache[data] = fnv1a64(data)
        params[name] = {"shape": list(p.shape), "stride": list(p.stride()),
                        "contiguous": p.is_contiguous(), "fnv1a64": _hash_cache[data],
                        "first": [float(x) for x in p.detach().reshape(-1)[:2]]}
    return params


def loaded_book(state):
    model = GPTModel(GPT_CONFIG_TEST)
    model.load_state_dict(state)
    return model


def loaded_hf(state):
    model = GPTModel(GPT_CONFIG_TEST)
    load_weights_into_gpt(model, state)
    return model


def write_fuzz_seeds():
    import io
    import zipfile
    corpus = os.path.join(HERE, "..", "..", "fuzz", "corpus")
    tiny_cfg = dict(GPT_CONFIG_TEST, vocab_size=3, context_length=2, emb_dim=2, n_heads=1, n_layers=1,
                    qkv_bias=False)
    torch.manual_seed(123)
    tiny = GPTModel(tiny_cfg)
    for name in ["safetensors", "zip", "unpickle"]:
        os.makedirs(os.path.join(corpus, name), exist_ok=True)
    save_safetensors(tiny.state_dict(), os.path.join(corpus, "safetensors", "tiny-book.safetensors"))
    sd = {"wte.weight": tiny.tok_emb.weight, "wpe.weight": tiny.pos_emb.weight,
          "h.0.attn.c_attn.weight": torch.zeros(2, 6), "h.0.attn.c_attn.bias": torch.zeros(6),
          "h.0.attn.c_proj.weight": torch.ones(2, 2), "h.0.attn.c_proj.bias": torch.zeros(2),
          "h.0.mlp.c_fc.weight": torch.ones(2, 8), "h.0.mlp.c_fc.bias": torch.zeros(8),
          "h.0.mlp.c_proj.weight": torch.ones(8, 2), "h.0.mlp.c_proj.bias": torch.zeros(2),
          "h.0.ln_1.weight": torch.ones(2), "h.0.ln_1.bias": torch.zeros(2),
          "h.0.ln_2.weight": torch.ones(2), "h.0.ln_2.bias": torch.zeros(2),
          "ln_f.weight": torch.ones(2), "ln_f.bias": torch.zeros(2),
          "h.0.attn.bias": torch.tril(torch.ones(2, 2)).view(1, 1, 2, 2)}
    save_safetensors({k: v.detach().bfloat16() for k, v in sd.items()},
                     os.path.join(corpus, "safetensors", "tiny-hf-bf16.safetensors"), metadata={"format": "pt"})
    def records_of(state):
        buf = io.BytesIO()
        torch.save(state, buf)
        buf.seek(0)
        with zipfile.ZipFile(buf) as z:
            return {info.filename.split("/", 1)[1]: z.read(info) for info in z.infolist()}

    with open(os.path.join(corpus, "unpickle", "tiny-book.pkl"), "wb") as f:
        f.write(records_of(tiny.state_dict())["data.pkl"])
    # The zip seeds: three of the state dict's tensors (the whole one is over 4096 bytes), plain
    # and with every entry's sizes in Zip64 extra fields.
    part = collections.OrderedDict((k, v) for k, v in tiny.state_dict().items()
                                   if k in ("pos_emb.weight", "trf_blocks.0.norm1.scale", "final_norm.shift"))
    records = records_of(part)
    for name, zip64 in [("tiny-part.pth", False), ("tiny-part-zip64.pth", True)]:
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
            for rec, data in records.items():
                info = zipfile.ZipInfo("t/" + rec, date_time=(1980, 1, 1, 0, 0, 0))
                with z.open(info, "w", force_zip64=zip64) as w:
                    w.write(data)
        with open(os.path.join(corpus, "zip", name), "wb") as f:
            f.write(out.getvalue())


def main():
    write_fuzz_seeds()
    os.makedirs(os.path.join(OUT, "hf"), exist_ok=True)
    model = book_model()
    state = model.state_dict()

    paths = {name: os.path.join(OUT, name) for name in
             ["book.safetensors", "book.pth", "book-f16.safetensors", "hf/model.safetensors",
              "hf-prefixed-bf16.safetensors"]}
    save_safetensors(state, paths["book.safetensors"])
    torch.save(state, paths["book.pth"])
    save_safetensors({k: v.half() for k, v in state.items()}, paths["book-f16.safetensors"])
    hf = hf_state_dict(model)
    save_safetensors(hf, paths["hf/model.safetensors"], metadata={"format": "pt"})
    with open(os.path.join(OUT, "hf", "config.json"), "w") as f:
        json.dump(hf_config(), f, indent=2)
        f.write("\n")
    save_safetensors({"transformer." + k: v.bfloat16() for k, v in hf.items()},
                     paths["hf-prefixed-bf16.safetensors"], metadata={"format": "pt"})

    # Load each file back as the book does, and describe what PyTorch holds.
    golden = collections.OrderedDict()
    golden["config"] = GPT_CONFIG_TEST
    golden["files"] = collections.OrderedDict()
    golden["files"]["book.safetensors"] = describe(loaded_book(load_safetensors(paths["book.safetensors"])))
    golden["files"]["book.pth"] = describe(loaded_book(torch.load(paths["book.pth"], weights_only=True)))
    golden["files"]["book-f16.safetensors"] = describe(
        loaded_book(load_safetensors(paths["book-f16.safetensors"])))
    golden["files"]["hf/model.safetensors"] = describe(loaded_hf(load_safetensors(paths["hf/model.safetensors"])))
    bf16 = load_safetensors(paths["hf-prefixed-bf16.safetensors"])
    golden["files"]["hf-prefixed-bf16.safetensors"] = describe(
        loaded_hf({k[len("transformer."):]: v.float() for k, v in bf16.items()}))
    with open(os.path.join(OUT, "params.json"), "w") as f:
        json.dump(golden, f, indent=1)
        f.write("\n")
    for name, path in paths.items():
        print(f"{path}: {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    main()
