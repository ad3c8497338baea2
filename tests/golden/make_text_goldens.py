"""Generate the --text goldens from the reference tokenizers and real PyTorch.

    /usr/bin/python3 tests/golden/make_text_goldens.py     (or: make text-goldens)

Needs node and tests/node/node_modules (`npm ci --ignore-scripts --prefix tests/node`).

1. tests/golden/text/reference_ids.json: the token ids of every file of tests/data/text/
   from tiktoken (its Rust core, @dqbd/tiktoken) and from gpt-3-encoder, as
   tests/node/reference_ids.cjs gives them.
2. tests/golden/text/<name>.json, one per learner text below: its tiktoken ids, then
   chapter 2's embeddings computed by PyTorch itself,
       torch.manual_seed(seed); tok = nn.Embedding(50257, D); pos = nn.Embedding(T, D)
       tok(ids), pos(torch.arange(T)), and their sum,
   and every chapter 3 stage walked on that sum, as for a JSON input (torch_walk.py).
tests/test_text_goldens.cpp replays them; no PyTorch or node is needed to test.
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, HERE)
import torch_env  # noqa: E402,F401  (before torch: chooses OpenBLAS's kernel)
from golden_files import write_goldens, write_json  # noqa: E402
import torch  # noqa: E402
import torch_walk  # noqa: E402
from make_goldens import OPTION_DEFAULTS, to_cfg  # noqa: E402

OUT = os.path.join(HERE, "text")
NODE_SCRIPT = os.path.join(ROOT, "tests", "node", "reference_ids.cjs")
CORPUS = os.path.join(ROOT, "tests", "data", "text")

# name, text, options (as attn-walk's flags; embed_dim is --embed-dim), stages
TEXTS = [
    ("journey", "Your journey starts with one step", {}, None),
    ("chinese_d4_h2", "你的旅程从一步开始！", {"embed_dim": 4, "d_out": 4, "heads": 2},
     ["causal", "multi-head"]),
    ("emoji_seed42_d6", "I ❤️ attention 👩‍💻 don't stop", {"embed_dim": 6, "seed": 42, "d_out": 3, "heads": 3},
     ["dot-product", "dropout", "multi-head"]),
    ("eot_spaces_d16", "Hello, do you like tea? <|endoftext|> In the sunlit\n\n  terraces", {
        "embed_dim": 16, "seed": 7, "d_out": 8, "heads": 4, "qkv_bias": True}, ["trainable", "multi-head"]),
    ("one_word_d2", "Attention", {"embed_dim": 2, "query": 1, "d_out": 1, "heads": 1}, ["dot-product", "causal"]),
]


def reference_ids(paths):
    out = subprocess.run(["node", NODE_SCRIPT] + paths, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def recorded(name, t):
    rec = torch_walk.Recorder()
    rec(name, t)
    return rec.steps[0]


def text_golden(name, text, opts, stages, ids):
    o = dict(OPTION_DEFAULTS, **dict({"embed_dim": 3}, **opts))
    seed = 123 if o["seed"] is None else o["seed"]
    D, T = o["embed_dim"], len(ids)
    torch.manual_seed(seed)
    token_embedding_layer = torch.nn.Embedding(50257, D)
    pos_embedding_layer = torch.nn.Embedding(T, D)
    token_ids = torch.tensor(ids)
    token_embeddings = token_embedding_layer(token_ids)
    pos_embeddings = pos_embedding_layer(torch.arange(T))
    input_embeddings = token_embeddings + pos_embeddings
    embeddings = input_embeddings.detach().tolist()
    cfg = to_cfg({k: v for k, v in o.items() if k != "embed_dim"}, embeddings)
    stages = stages or list(torch_walk.STAGES)
    return {
        "name": name,
        "torch_version": torch.__version__,
        "text": text,
        "options": o,
        "token_ids": ids,
        "text_steps": [recorded("token_ids", token_ids), recorded("token_embeddings", token_embeddings),
                       recorded("pos_embeddings", pos_embeddings), recorded("input_embeddings", input_embeddings)],
        "stages": {s: torch_walk.run_stage(s, cfg) for s in stages},
    }


def tokens_stage(integers):
    """Chapter 2's cells as the notebook runs them (--stage tokens)."""
    torch.manual_seed(123)
    embedding_layer = torch.nn.Embedding(6, 3)
    steps = [recorded("embedding_layer.weight", embedding_layer.weight),
             recorded("embedding_of_3", embedding_layer(torch.tensor([3]))),
             recorded("embedding_of_input_ids", embedding_layer(torch.tensor([2, 3, 5, 1])))]
    steps.append({"name": "integers", "shape": [len(integers)], "data": integers, "printed": str(integers)})
    return {"torch_version": torch.__version__, "text": BOOK_SENTENCE, "steps": steps}


BOOK_SENTENCE = "Hello, do you like tea? <|endoftext|> In the sunlit terracesof someunknownPlace."


def main():
    torch_env.require_bit_exact("make_text_goldens.py")
    os.makedirs(OUT, exist_ok=True)
    corpus = sorted(os.path.join(CORPUS, f) for f in os.listdir(CORPUS) if f.endswith(".txt"))
    write_json(os.path.join(OUT, "reference_ids.json"), reference_ids(corpus), sort_keys=True)
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for name, text, _, _ in TEXTS + [("book_sentence", BOOK_SENTENCE, None, None)]:
            paths.append(os.path.join(tmp, name))
            with open(paths[-1], "w", encoding="utf-8", newline="") as f:
                f.write(text)
        ids = reference_ids(paths)
    write_json(os.path.join(OUT, "tokens_stage.json"), tokens_stage(ids["book_sentence"]["tiktoken"]))

    def goldens():
        for name, text, opts, stages in TEXTS:
            if ids[name]["tiktoken"] != ids[name]["gpt_3_encoder"]:
                print(f"{name}: gpt-3-encoder differs from tiktoken; using tiktoken's ids")
            yield name + ".json", text_golden(name, text, opts, stages, ids[name]["tiktoken"])
    write_goldens(OUT, goldens(),
                  lambda path, doc: f"{len(doc['token_ids'])} tokens, "
                                    f"{sum(len(s) for s in doc['stages'].values())} steps",
                  replace=None, ensure_ascii=False)


if __name__ == "__main__":
    main()
