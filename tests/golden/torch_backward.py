"""The oracle of `--stage backward`: chapter 5's loss and training loop around chapter 3's
MultiHeadAttention, in real PyTorch, every gradient recorded as print(t.grad) shows it.

    torch.manual_seed(seed)
    mha = MultiHeadAttention(d_in, d_out, context_length=T, dropout=attn_dropout, num_heads=H, qkv_bias=...)
    out_head = nn.Linear(d_out, V, bias=False)      # drawn right after mha
    loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten())   # calc_loss_batch
    for step in range(steps): zero_grad(); loss; backward(); step()    # train_model_simple

Step names and order mirror src/stages/backward.cpp; make_backward_goldens.py writes them and
difftest.py compares them. Run with Debian's PyTorch (/usr/bin/python3).
"""
import torch_env  # noqa: F401  (before torch: it chooses OpenBLAS's kernel)
import torch
import torch.nn as nn
import torch.nn.functional as F

from torch_walk import MultiHeadAttention, Recorder


class TrainCfg:
    """The walk's inputs (labels and embeddings, or GPT-2 ids and drawn tables) and the training knobs."""

    def __init__(self, tokens, embeddings, seed=123, d_out=2, heads=2, attn_dropout=0.0, batch=2,
                 qkv_bias=False, steps=30, lr=0.05, weight_decay=0.1, optimizer="adamw", choices=None,
                 grad_step=1):
        self.tokens, self.embeddings = tokens, embeddings
        self.seed, self.d_out, self.heads, self.attn_dropout = seed, d_out, heads, attn_dropout
        self.batch, self.qkv_bias = batch, qkv_bias
        self.steps, self.lr, self.weight_decay, self.optimizer = steps, lr, weight_decay, optimizer
        # --grad-step: the step (from 1) whose forward pass and .grad tensors are recorded.
        self.grad_step = grad_step
        # How the learner wrote chapter 5's loop (src/modules/train.h, TrainChoices): the
        # chapter's loop by default; each other value is a mistake. With any choice given,
        # run() also records every parameter's .grad after the last backward ("final.<name>.grad").
        self.choices = dict(CHAPTER_LOOP, **(choices or {}))
        self.record_final_grads = choices is not None


# The chapter's loop, as TrainChoices' defaults.
CHAPTER_LOOP = dict(zero_grad=True, softmax_before_cross_entropy=False, shift_targets=True,
                    decoupled_weight_decay=True, loss_reduction_sum=False)


def vocabulary(labels):
    """The distinct labels in order of first appearance, and each label's id."""
    vocab = {}
    for label in labels:
        vocab.setdefault(label, len(vocab))
    return vocab, [vocab[label] for label in labels]


# The order in which autograd reaches the named tensors, and their names: a hook on each
# tensor appends its name when its gradient is computed.
GRAD_TENSORS = ["logits", "context_vecs", "context_vec_merged", "attn_weights", "attn_scores",
                "queries", "keys", "values"]


def forward(mha, out_head, batch, rec=None):
    """The book's MultiHeadAttention.forward itself (torch_walk's copy, with its in-place
    attn_scores.masked_fill_), then out_head: its recorder hook hands over each tensor the walk
    names. attn_scores is masked in place, so after the forward it is the masked tensor, and
    its .grad is the gradient of the masked scores: softmax's backward gives the masked entries
    w * (g - sum) = +0 * (g - sum), -0.0 where g - sum < 0 (MaskedFillBackward0 then hands
    +0 on to queries and keys)."""
    named = {}

    def keep(name, t):
        if name.endswith((".weight", ".bias")):
            return t  # the forward also shows out_proj's parameters; the walk does not
        named[name] = t
        if rec:
            rec(name, t)
        return t

    context_vecs = keep("context_vecs", mha(batch, rec=keep))
    logits = keep("logits", out_head(context_vecs))
    return logits, named


def parameters(mha, out_head, embeddings):
    """(name, parameter) in the optimizer's order: model.parameters() of the chapter's modules."""
    named = [(n, p) for n, p in mha.named_parameters()] + [("out_head.weight", out_head.weight)]
    if embeddings is not None:
        named = [("tok_emb.weight", embeddings[0].weight), ("pos_emb.weight", embeddings[1].weight)] + named
    return named


class KeepingRecorder(Recorder):
    """A Recorder that also keeps each step's tensor (None for a number), for digests."""

    def __init__(self):
        super().__init__()
        self.tensors = []

    def __call__(self, name, obj, label=None, details=None):
        self.tensors.append(None if isinstance(obj, (int, float)) else obj.detach().clone())
        return super().__call__(name, obj, label, details)


def run(c, text_ids=None, embed_dim=None, text_seed=None, rec=None):
    """The steps of the backward stage. With text_ids, the inputs are GPT-2 ids through
    trainable tok_emb/pos_emb tables drawn as --text draws them (seeded with text_seed).
    `rec` may be a KeepingRecorder, to have each step's tensor too."""
    rec = rec if rec is not None else Recorder()
    if text_ids is None:
        vocab, ids = vocabulary(c.tokens)
        V = len(vocab)
        emb = torch.tensor(c.embeddings, dtype=torch.float32)
        inputs = emb[:-1]
        embeddings = None
    else:
        ids, V = text_ids, 50257
        torch.manual_seed(text_seed)
        tok_emb = nn.Embedding(V, embed_dim)
        pos_emb = nn.Embedding(len(ids), embed_dim)
        embeddings = (tok_emb, pos_emb)
    T = len(ids) - 1
    # Chapter 5's shift, or (targets_not_shifted) the inputs themselves.
    targets = torch.tensor([ids[1:] if c.choices["shift_targets"] else ids[:-1]] * c.batch)

    torch.manual_seed(c.seed)
    d_in = embed_dim if text_ids is not None else inputs.shape[1]
    mha = MultiHeadAttention(d_in, c.d_out, T, c.attn_dropout, c.heads, c.qkv_bias)
    out_head = nn.Linear(c.d_out, V, bias=False)
    named_params = parameters(mha, out_head, embeddings)
    params = [p for _, p in named_params]
    if c.optimizer == "adamw" and not c.choices["decoupled_weight_decay"]:
        optimizer = torch.optim.Adam(params, lr=c.lr, weight_decay=c.weight_decay)  # adam_instead_of_adamw
    elif c.optimizer == "adamw":
        optimizer = torch.optim.AdamW(params, lr=c.lr, weight_decay=c.weight_decay)
    else:
        optimizer = torch.optim.SGD(params, lr=c.lr, weight_decay=c.weight_decay)

    def make_batch():
        if embeddings is None:
            return torch.stack((inputs,) * c.batch, dim=0)
        in_ids = torch.tensor([ids[:-1]] * c.batch)
        return embeddings[0](in_ids) + embeddings[1](torch.arange(T))

    def eval_attn_weights():
        """The attention weights of the first sequence in eval mode (no dropout), no grad."""
        mha.eval()
        with torch.no_grad():
            _, named = forward(mha, out_head, make_batch())
        mha.train()
        return named["attn_weights"][0]

    untrained = eval_attn_weights()

    losses = []
    first_update = []  # step 1's update, recorded after the gradients shown
    for step in range(c.steps):
        if c.choices["zero_grad"]:  # grad_not_zeroed leaves it out
            optimizer.zero_grad()
        batch = make_batch()
        first = step == 0
        shown = step == c.grad_step - 1
        if shown:
            rec("batch", batch)
            rec("targets", targets)
        logits, named = forward(mha, out_head, batch, rec if shown else None)
        if c.choices["softmax_before_cross_entropy"]:
            logits_in = torch.softmax(logits, dim=-1).flatten(0, 1)
        else:
            logits_in = logits.flatten(0, 1)
        reduction = "sum" if c.choices["loss_reduction_sum"] else "mean"
        loss = F.cross_entropy(logits_in, targets.flatten(), reduction=reduction)
        order = []
        if shown:
            rec("loss", loss)
            for name in GRAD_TENSORS:
                named[name].retain_grad()
                named[name].register_hook(lambda g, name=name: order.append(name))
        losses.append(loss.item())
        loss.backward()
        if shown:
            _record_grads(rec, order, named, named_params, ids[:-1])
        if first:
            before = {n: p.detach().clone() for n, p in named_params}
        optimizer.step()
        if first:
            _record_first_update(first_update.append, c, optimizer, named_params, before)
        if step >= c.grad_step - 1:
            for name, t in first_update:
                rec(name, t)
            first_update.clear()
    rec("losses", torch.tensor(losses))
    for name, p in named_params:
        rec(name, p)
    rec("attn_weights_untrained", untrained)
    rec("attn_weights_trained", eval_attn_weights())
    if c.record_final_grads:
        for name, p in named_params:
            rec(f"final.{name}.grad", p.grad)
    return rec.steps


def _record_grads(rec, order, named, named_params, input_ids=()):
    """Every .grad in the order autograd computed it: the named activations as their hooks
    fired, each Linear's weight (and bias) right after the activation it comes out of."""
    after = {"logits": ["out_head.weight"], "context_vecs": ["out_proj.weight", "out_proj.bias"],
             "queries": ["W_query.weight", "W_query.bias"], "keys": ["W_key.weight", "W_key.bias"],
             "values": ["W_value.weight", "W_value.bias"]}
    params = dict(named_params)
    for name in order:
        rec(name + ".grad", named[name].grad)
        for p in after.get(name, []):
            if p in params:
                rec(p + ".grad", params[p].grad)
    # The input's AddBackward0 reaches pos_emb(arange(T)) first (made later, so higher in
    # autograd's sequence), then tok_emb(ids): found with hooks on the two weights.
    for p in ("pos_emb.weight", "tok_emb.weight"):
        if p in params:
            rec(p + ".grad", params[p].grad)
    # attn-walk prints tok_emb.weight.grad's rows of the input ids (in order of first
    # appearance), the only ones that can be nonzero: print(f"...[{ids}]:", grad[ids]).
    if "tok_emb.weight" in params:
        ids = list(dict.fromkeys(input_ids))
        rec.steps[-1]["printed"] = f"tok_emb.weight.grad[{ids}]: {params['tok_emb.weight'].grad[ids]}"


def _record_first_update(keep, c, optimizer, named_params, before):
    """The first step on W_query.weight: AdamW's moments and the parameter after the update,
    as (name, copy) handed to keep (recorded after the gradients of --grad-step)."""
    name, p = next((n, p) for n, p in named_params if n == "W_query.weight")
    if c.optimizer == "adamw":
        state = optimizer.state[p]
        keep(("step1.exp_avg", state["exp_avg"].clone()))
        keep(("step1.exp_avg_sq", state["exp_avg_sq"].clone()))
    keep(("step1.update", p.detach() - before[name]))
    keep(("step1.W_query.weight", p.detach().clone()))
