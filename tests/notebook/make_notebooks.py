#!/usr/bin/env python3
"""Write the notebooks that tests/notebook/run_notebooks.py executes with a real kernel.

Each notebook types the chapter's cells as a learner would (rasbt/LLMs-from-scratch,
ch03/01_main-chapter-code/ch03.ipynb), up to the end of one stage's section, then asks
attn_walk. The mistaken ones change one line of the chapter's (each a mistake
docs/check.md lists). What each must show is in its metadata ("attn_walk_expect"): ok, the
first step, and the cause as check's own diagnosis id; run_notebooks.py compares the executed
outputs with it. The last cell prints the report's fields as JSON for that comparison.

    python3 tests/notebook/make_notebooks.py     # rewrites tests/notebook/*.ipynb
"""
import os
import sys

import nbformat

# The cells below `import torch` in a kernel that run_notebook.py starts after importing
# torch_env (OpenBLAS's kernel reaches the kernel through the environment); this script runs
# none of them, but keeps the rule that a script naming `import torch` has torch_env first.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "golden"))
import torch_env  # noqa: E402,F401

HERE = os.path.dirname(os.path.abspath(__file__))

# ---- the chapter's cells, section by section --------------------------------------------

SETUP = """import torch
import torch.nn as nn
import attn_walk"""

DOT_PRODUCT = ["""inputs = torch.tensor(
  [[0.43, 0.15, 0.89], # Your     (x^1)
   [0.55, 0.87, 0.66], # journey  (x^2)
   [0.57, 0.85, 0.64], # starts   (x^3)
   [0.22, 0.58, 0.33], # with     (x^4)
   [0.77, 0.25, 0.10], # one      (x^5)
   [0.05, 0.80, 0.55]] # step     (x^6)
)""", """query = inputs[1]  # 2nd input token is the query

attn_scores_2 = torch.empty(inputs.shape[0])
for i, x_i in enumerate(inputs):
    attn_scores_2[i] = torch.dot(x_i, query) # dot product (transpose not necessary here since they are 1-dim vectors)""",
"""res = 0.

for idx, element in enumerate(inputs[0]):
    res += inputs[0][idx] * query[idx]""",
"""attn_weights_2 = torch.softmax(attn_scores_2, dim=0)""",
"""context_vec_2 = torch.zeros(query.shape)
for i,x_i in enumerate(inputs):
    context_vec_2 += attn_weights_2[i]*x_i""",
"""attn_scores = inputs @ inputs.T
attn_weights = torch.softmax(attn_scores, dim=-1)
row_2_sum = sum([0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581])
all_context_vecs = attn_weights @ inputs"""]

TRAINABLE = ["""x_2 = inputs[1] # second input element
d_in = inputs.shape[1] # the input embedding size, d=3
d_out = 2 # the output embedding size, d=2""",
"""torch.manual_seed(123)

W_query = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)
W_key   = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)
W_value = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)""",
"""query_2 = x_2 @ W_query # _2 because it's with respect to the 2nd input element
key_2 = x_2 @ W_key
value_2 = x_2 @ W_value
keys = inputs @ W_key
values = inputs @ W_value""",
"""keys_2 = keys[1] # Python starts index at 0
attn_score_22 = query_2.dot(keys_2)
attn_scores_2 = query_2 @ keys.T # All attention scores for given query
d_k = keys.shape[1]
attn_weights_2 = torch.softmax(attn_scores_2 / d_k**0.5, dim=-1)
context_vec_2 = attn_weights_2 @ values""",
"""class SelfAttention_v2(nn.Module):

    def __init__(self, d_in, d_out, qkv_bias=False):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key   = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)

    def forward(self, x):
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)

        attn_scores = queries @ keys.T
        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)

        context_vec = attn_weights @ values
        return context_vec

torch.manual_seed(789)
sa_v2 = SelfAttention_v2(d_in, d_out)"""]

# Section 3.5.1, the unmasked weights (a learner checks here, before the mask).
CAUSAL_WEIGHTS = ["""queries = sa_v2.W_query(inputs)
keys = sa_v2.W_key(inputs)
attn_scores = queries @ keys.T

attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)"""]

CAUSAL_MASK = ["""context_length = attn_scores.shape[0]
mask_simple = torch.tril(torch.ones(context_length, context_length))
masked_simple = attn_weights*mask_simple
row_sums = masked_simple.sum(dim=-1, keepdim=True)
masked_simple_norm = masked_simple / row_sums""",
"""mask = torch.triu(torch.ones(context_length, context_length), diagonal=1)
masked = attn_scores.masked_fill(mask.bool(), -torch.inf)""",
"""attn_weights = torch.softmax(masked / keys.shape[-1]**0.5, dim=-1)"""]

DROPOUT = ["""torch.manual_seed(123)
dropout = torch.nn.Dropout(0.5) # dropout rate of 50%
example = torch.ones(6, 6) # create a matrix of ones
dropout_ones = dropout(example)""",
"""torch.manual_seed(123)
dropout_attn_weights = dropout(attn_weights)""",
"""batch = torch.stack((inputs, inputs), dim=0)""",
"""class CausalAttention(nn.Module):

    def __init__(self, d_in, d_out, context_length,
                 dropout, qkv_bias=False):
        super().__init__()
        self.d_out = d_out
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key   = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.dropout = nn.Dropout(dropout) # New
        self.register_buffer('mask', torch.triu(torch.ones(context_length, context_length), diagonal=1)) # New

    def forward(self, x):
        b, num_tokens, d_in = x.shape # New batch dimension b
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)

        attn_scores = queries @ keys.transpose(1, 2) # Changed transpose
        attn_scores.masked_fill_(  # New, _ ops are in-place
            self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
        attn_weights = torch.softmax(
            attn_scores / keys.shape[-1]**0.5, dim=-1
        )
        attn_weights = self.dropout(attn_weights) # New

        context_vec = attn_weights @ values
        return context_vec

torch.manual_seed(123)

context_length = batch.shape[1]
ca = CausalAttention(d_in, d_out, context_length, 0.0)

context_vecs = ca(batch)"""]

MHA_CLASS = """class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        assert (d_out % num_heads == 0), \\
            "d_out must be divisible by num_heads"

        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads # Reduce the projection dim to match desired output dim

        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)  # Linear layer to combine head outputs
        self.dropout = nn.Dropout(dropout)
        self.register_buffer(
            "mask",
            torch.triu(torch.ones(context_length, context_length),
                       diagonal=1)
        )

    def forward(self, x):
        b, num_tokens, d_in = x.shape

        keys = self.W_key(x) # Shape: (b, num_tokens, d_out)
        queries = self.W_query(x)
        values = self.W_value(x)

        keys = keys.view(b, num_tokens, self.num_heads, self.head_dim)
        values = values.view(b, num_tokens, self.num_heads, self.head_dim)
        queries = queries.view(b, num_tokens, self.num_heads, self.head_dim)

        keys = keys.transpose(1, 2)
        queries = queries.transpose(1, 2)
        values = values.transpose(1, 2)

        attn_scores = queries @ keys.transpose(2, 3)  # Dot product for each head
        mask_bool = self.mask.bool()[:num_tokens, :num_tokens]
        attn_scores.masked_fill_(mask_bool, -torch.inf)

        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        attn_weights = self.dropout(attn_weights)

        # Shape: (b, num_tokens, num_heads, head_dim)
        context_vec = (attn_weights @ values).transpose(1, 2)

        # Combine heads, where self.d_out = self.num_heads * self.head_dim
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        context_vec = self.out_proj(context_vec) # optional projection

        return context_vec"""

MULTI_HEAD = [MHA_CLASS,
"""torch.manual_seed(123)

batch_size, context_length, d_in = batch.shape
d_out = 2
mha = MultiHeadAttention(d_in, d_out, context_length, 0.0, num_heads=2)

context_vecs = mha(batch)""",
"""a = torch.tensor([[[[0.2745, 0.6584, 0.2775, 0.8573],
                    [0.8993, 0.0390, 0.9268, 0.7388],
                    [0.7179, 0.7058, 0.9156, 0.4340]],

                   [[0.0772, 0.3565, 0.1479, 0.5331],
                    [0.4066, 0.2318, 0.4545, 0.9737],
                    [0.4606, 0.5159, 0.4220, 0.5786]]]])
first_head = a[0, 0, :, :]
first_res = first_head @ first_head.T
second_head = a[0, 1, :, :]
second_res = second_head @ second_head.T"""]

# Section 3.6.1: the wrapper of CausalAttention heads, bound to `mha` and `context_vecs`.
WRAPPER = ["""class MultiHeadAttentionWrapper(nn.Module):

    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        self.heads = nn.ModuleList(
            [CausalAttention(d_in, d_out, context_length, dropout, qkv_bias)
             for _ in range(num_heads)]
        )

    def forward(self, x):
        return torch.cat([head(x) for head in self.heads], dim=-1)


torch.manual_seed(123)

context_length = batch.shape[1] # This is the number of tokens
d_in, d_out = 3, 2
mha = MultiHeadAttentionWrapper(
    d_in, d_out, context_length, 0.0, num_heads=2
)

context_vecs = mha(batch)"""]

# A later cell that binds `context_vecs` again: section 3.5.3's, run once more.
CONTEXT_VECS_AGAIN = ["""context_vecs = ca(batch)  # section 3.5.3's cell, run again"""]

# Chapter 4's GPTModel, as the book types it: tests/golden/book_gpt.py's copy of ch04's gpt.py,
# from MultiHeadAttention to GPTModel, one cell per class; then a small GPT-2-shaped model
# loaded from tests/data/gpt/book.pth (make_gpt_models.py) as chapter 5 loads a state dict.
def _book_gpt_classes():
    with open(os.path.join(os.path.dirname(HERE), "golden", "book_gpt.py"), encoding="utf-8") as f:
        source = f.read()
    body = source[source.index("class MultiHeadAttention"):source.index("def generate_text_simple")]
    cells = ["class " + c.strip() for c in body.split("\nclass ") if c.strip()]
    cells[0] = cells[0][len("class "):]
    return [c.split("\n\n\n####")[0].strip() for c in cells]


GPT_CLASSES = _book_gpt_classes()
GPT_LOAD = ["""import os
# The test model beside attn_walk's package: GPT-2's vocabulary, emb_dim 8, 2 heads, 2 blocks.
WEIGHTS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(attn_walk.__file__))),
                       "tests", "data", "gpt", "book.pth")
GPT_CONFIG_TEST = {"vocab_size": 50257, "context_length": 16, "emb_dim": 8, "n_heads": 2,
                   "n_layers": 2, "drop_rate": 0.0, "qkv_bias": True}
model = GPTModel(GPT_CONFIG_TEST)
model.load_state_dict(torch.load(WEIGHTS, weights_only=True))
model.eval()
idx = torch.tensor([[6109, 3626, 6100, 345]])  # tokenizer.encode("Every effort moves you")
idx"""]
GPT_ASK = "report = attn_walk.check_module(model, idx, weights=WEIGHTS, heads=2)\nreport"

CHAPTER = {
    "dot-product": DOT_PRODUCT,
    "trainable": DOT_PRODUCT + TRAINABLE,
    "causal": DOT_PRODUCT + TRAINABLE + CAUSAL_WEIGHTS + CAUSAL_MASK,
    "dropout": DOT_PRODUCT + TRAINABLE + CAUSAL_WEIGHTS + CAUSAL_MASK + DROPOUT,
    "multi-head": DOT_PRODUCT + TRAINABLE + CAUSAL_WEIGHTS + CAUSAL_MASK + DROPOUT + MULTI_HEAD,
}

# The cell that hands the report's fields to run_notebooks.py.
FIELDS = """import json
print("ATTN_WALK_FIELDS " + json.dumps({"ok": report.ok, "first_step": report.first_step, "causes": report.causes,
      "stage": report.stage, "steps": [[s.name, s.status] for s in report.steps],
      "stages": report.stages, "stages_ok": {s: r.ok for s, r in report.reports.items()}}))"""


def replaced(cells, old, new):
    """The cells with one line of the chapter's changed (the mistake); `old` must be there once."""
    hits = [i for i, c in enumerate(cells) if old in c]
    assert len(hits) == 1 and cells[hits[0]].count(old) == 1, f"{old!r} is not in the cells exactly once"
    out = list(cells)
    out[hits[0]] = out[hits[0]].replace(old, new)
    return out


def notebook(cells, ask, expect, extra=()):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["attn_walk_expect"] = expect
    nb.cells = [nbformat.v4.new_code_cell(SETUP)] + [nbformat.v4.new_code_cell(c) for c in cells]
    nb.cells += [nbformat.v4.new_code_cell(ask), nbformat.v4.new_code_cell(FIELDS)]
    nb.cells += [nbformat.v4.new_code_cell(c) for c in extra]
    for i, cell in enumerate(nb.cells):
        cell.id = f"cell-{i}"  # not random: regenerating rewrites nothing that did not change
    return nb


def notebooks():
    out = {}
    # A correct notebook per stage: the chapter's cells, then attn_walk.check() with no
    # argument (the stage is the furthest the notebook's names reach).
    for stage, cells in CHAPTER.items():
        extra = ()
        if stage == "causal":  # the magics, on the same variables
            extra = ("%load_ext attn_walk", "%attn_walk check --stage causal", "%attn_walk walk --stage causal --heatmap")
        out[f"correct_{stage}"] = notebook(cells, "report = attn_walk.check()\nreport",
                                           {"ok": True, "stage": stage,
                                            "stages": list(CHAPTER)[:list(CHAPTER).index(stage) + 1]}, extra)
    causal_before_mask = DOT_PRODUCT + TRAINABLE + CAUSAL_WEIGHTS
    # Mistakes: one line of the chapter's changed; the cause is check's own id for it.
    out["mistake_scale_by_d_k"] = notebook(
        replaced(causal_before_mask, "\nattn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)",
                 "\nattn_weights = torch.softmax(attn_scores / keys.shape[-1], dim=-1)"),
        "report = attn_walk.check(stage=\"causal\")\nreport",
        {"ok": False, "first_step": "attn_weights", "cause": "scale_by_d_k"})
    out["mistake_mask_filled_with_zero"] = notebook(
        replaced(CHAPTER["causal"], "masked_fill(mask.bool(), -torch.inf)", "masked_fill(mask.bool(), 0)"),
        "report = attn_walk.check()\nreport",
        {"ok": False, "first_step": "masked", "cause": "mask_filled_with_zero"})
    out["mistake_softmax_dim_0"] = notebook(
        replaced(causal_before_mask, "\nattn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)",
                 "\nattn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=0)"),
        "report = attn_walk.check(stage=\"causal\")\nreport",
        {"ok": False, "first_step": "attn_weights", "cause": "softmax_wrong_dim"})
    out["mistake_heads_merged_without_transpose"] = notebook(
        replaced(CHAPTER["multi-head"], "context_vec = (attn_weights @ values).transpose(1, 2)",
                 "context_vec = (attn_weights @ values)"),
        "report = attn_walk.check()\nreport",
        {"ok": False, "first_step": "mha_context_vecs", "cause": "context_not_transposed"})
    out["mistake_wrong_seed"] = notebook(
        replaced(causal_before_mask, "torch.manual_seed(789)", "torch.manual_seed(123)"),
        "report = attn_walk.check(stage=\"causal\")\nreport",
        {"ok": False, "first_step": "queries", "cause": "wrong_seed"})
    # The learner's own MultiHeadAttention, one line wrong, run by check_module.
    mha_cells = DOT_PRODUCT[:1] + ["batch = torch.stack((inputs, inputs), dim=0)",
                                   MHA_CLASS.replace("attn_scores / keys.shape[-1]**0.5", "attn_scores / self.d_out**0.5"),
                                   "torch.manual_seed(123)\nmha = MultiHeadAttention(3, 2, 6, 0.0, num_heads=2)"]
    out["module_multi_head_wrong_divisor"] = notebook(
        mha_cells, "report = attn_walk.check_module(mha, batch)\nreport",
        {"ok": False, "first_step": "attn_weights", "cause": "wrong_divisor", "hooks_left": 0},
        ("print('ATTN_WALK_HOOKS', sum(len(m._forward_hooks) for m in mha.modules()))",))
    # Issue 42's families on the whole notebook to section 3.5.3 (every name check() reads): the
    # slip typed into the learner's CausalAttention.
    causal_class_mask = """        attn_scores.masked_fill_(  # New, _ ops are in-place
            self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
        attn_weights = torch.softmax(
            attn_scores / keys.shape[-1]**0.5, dim=-1
        )"""
    mask_after_softmax = """        attn_weights = torch.softmax(
            attn_scores / keys.shape[-1]**0.5, dim=-1
        )
        attn_weights = attn_weights.masked_fill(  # the mask after the softmax, no renormalising
            self.mask.bool()[:num_tokens, :num_tokens], 0)"""
    out["mistake_mask_after_softmax"] = notebook(
        replaced(CHAPTER["dropout"], causal_class_mask, mask_after_softmax),
        "report = attn_walk.check()\nreport",
        {"ok": False, "first_step": "causal_attention_context_vecs", "cause": "mask_after_softmax"})
    out["mistake_attn_weights_transposed"] = notebook(
        replaced(CHAPTER["dropout"], "        attn_weights = self.dropout(attn_weights) # New\n\n        context_vec = attn_weights @ values",
                 "        attn_weights = self.dropout(attn_weights) # New\n\n        context_vec = attn_weights.transpose(1, 2) @ values"),
        "report = attn_walk.check()\nreport",
        {"ok": False, "first_step": "causal_attention_context_vecs", "cause": "attn_weights_transposed"})
    # The whole notebook to section 3.6, with the mask filled with 0 in section 3.5.1 and the rest
    # the book's: check() grades every stage the notebook reaches, though `attn_weights`, `keys`
    # and `context_vecs` hold later sections' values, and names the slip of section 3.5.1.
    whole = ["dot-product", "trainable", "causal", "dropout", "multi-head"]
    out["mistake_mask_filled_with_zero_then_multi_head"] = notebook(
        replaced(CHAPTER["multi-head"], "masked_fill(mask.bool(), -torch.inf)", "masked_fill(mask.bool(), 0)"),
        "report = attn_walk.check()\nreport",
        {"ok": False, "first_step": "masked", "cause": "mask_filled_with_zero", "stage": "causal", "stages": whole,
         "stages_ok": {"dot-product": True, "trainable": True, "causal": False, "dropout": False, "multi-head": True}})
    # The same to section 3.6 with the slip in the learner's CausalAttention class instead (the
    # mask applied after the softmax): `context_vecs` holds MultiHeadAttention's output by then,
    # so check() runs `ca` again on `batch` and names the slip in the dropout stage's report.
    out["mistake_causal_attention_then_multi_head"] = notebook(
        replaced(CHAPTER["multi-head"], causal_class_mask, mask_after_softmax),
        "report = attn_walk.check()\nreport",
        {"ok": False, "first_step": "causal_attention_context_vecs", "cause": "mask_after_softmax", "stage": "dropout",
         "stages": whole,
         "stages_ok": {"dot-product": True, "trainable": True, "causal": True, "dropout": False, "multi-head": True}})
    # `context_vecs` bound again by a later cell, so that it no longer holds the output of the
    # module `mha` is: check() runs `mha` again on `batch` (3.6.1's wrapper, built here without
    # its torch.manual_seed(123); 3.6.2's MultiHeadAttention, with the heads merged before they
    # are transposed back), as it runs `ca`, and names the slip in the multi-head stage's report.
    out["mistake_wrapper_rebound"] = notebook(
        replaced(CHAPTER["dropout"] + WRAPPER, "torch.manual_seed(123)\n\ncontext_length = batch.shape[1] # This",
                 "context_length = batch.shape[1] # This") + CONTEXT_VECS_AGAIN,
        "report = attn_walk.check()\nreport",
        {"ok": False, "first_step": "wrapper_context_vecs", "cause": "seed_not_reset", "stage": "multi-head",
         "stages": whole,
         "stages_ok": {"dot-product": True, "trainable": True, "causal": True, "dropout": True, "multi-head": False}})
    out["mistake_multi_head_rebound"] = notebook(
        replaced(CHAPTER["multi-head"], "context_vec = (attn_weights @ values).transpose(1, 2)",
                 "context_vec = (attn_weights @ values)") + CONTEXT_VECS_AGAIN,
        "report = attn_walk.check()\nreport",
        {"ok": False, "first_step": "mha_context_vecs", "cause": "context_not_transposed", "stage": "multi-head",
         "stages": whole,
         "stages_ok": {"dot-product": True, "trainable": True, "causal": True, "dropout": True, "multi-head": False},
         # One stage's report, displayed and printed: that stage's alone.
         "sub_report": "causal"},
        ('report.reports["causal"]', 'print(report.reports["causal"])'))
    # Chapter 4's GPTModel run by check_module: the book's, and one with var's default unbiased=True.
    out["module_gpt_correct"] = notebook(GPT_CLASSES + GPT_LOAD, GPT_ASK, {"ok": True, "stage": "gpt"})
    out["module_gpt_var_unbiased"] = notebook(
        replaced(GPT_CLASSES + GPT_LOAD, "var = x.var(dim=-1, keepdim=True, unbiased=False)",
                 "var = x.var(dim=-1, keepdim=True)"),
        GPT_ASK, {"ok": False, "first_step": "trf_blocks.0.norm1", "cause": "layer_norm_var_unbiased",
                  "hooks_left": 0},
        ("print('ATTN_WALK_HOOKS', sum(len(m._forward_hooks) for m in model.modules()))",))
    return out


def main():
    for name, nb in notebooks().items():
        with open(os.path.join(HERE, name + ".ipynb"), "w", encoding="utf-8") as f:
            nbformat.write(nb, f)
    print(f"wrote {len(notebooks())} notebooks to {HERE}")


if __name__ == "__main__":
    main()
