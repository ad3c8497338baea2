"""Why the book's exercise 3.2 solution prints other numbers than the chapter's code.

    /usr/bin/python3 tests/golden/exercise_3_2_solution.py

ch03/01_main-chapter-code/exercise-solutions.ipynb (rasbt/LLMs-from-scratch) shows, for
MultiHeadAttentionWrapper(d_in, 1, context_length, 0.0, num_heads=2) after
torch.manual_seed(123), context vectors starting [[-9.1476e-02, 3.4164e-02], ...]. That output
is Markdown, copied from the first version of ch03.ipynb, whose CausalAttention normalised
with torch.softmax(attn_scores / self.d_out**0.5, dim=1): over the queries (dim 1 of
(b, num_tokens, num_tokens)) instead of over the keys (dim=-1), as the chapter does today.
This script runs both with Debian's PyTorch on the chapter's inputs and seed and checks that
the old softmax reproduces the solution's text exactly and today's gives attn-walk's numbers.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_env  # noqa: E402,F401  (before torch: it chooses OpenBLAS's kernel)
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

import torch_walk  # noqa: E402

# The solution notebook's printed tensor, verbatim.
SOLUTION = """tensor([[[-9.1476e-02,  3.4164e-02],
         [-2.6796e-01, -1.3427e-03],
         [-4.8421e-01, -4.8909e-02],
         [-6.4808e-01, -1.0625e-01],
         [-8.8380e-01, -1.7140e-01],
         [-1.4744e+00, -3.4327e-01]],

        [[-9.1476e-02,  3.4164e-02],
         [-2.6796e-01, -1.3427e-03],
         [-4.8421e-01, -4.8909e-02],
         [-6.4808e-01, -1.0625e-01],
         [-8.8380e-01, -1.7140e-01],
         [-1.4744e+00, -3.4327e-01]]], grad_fn=<CatBackward0>)"""


class EarlyCausalAttention(torch_walk.CausalAttention):
    """CausalAttention as ch03.ipynb first had it: softmax over dim=1."""

    def forward(self, x):
        b, num_tokens, d_in = x.shape
        keys, queries, values = self.W_key(x), self.W_query(x), self.W_value(x)
        attn_scores = queries @ keys.transpose(1, 2)
        attn_scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
        attn_weights = torch.softmax(attn_scores / self.d_out ** 0.5, dim=1)
        return self.dropout(attn_weights) @ values


def wrapper(head_class, d_in, context_length):
    heads = nn.ModuleList([head_class(d_in, 1, context_length, 0.0) for _ in range(2)])
    return lambda x: torch.cat([h(x) for h in heads], dim=-1)


def main():
    inputs = torch.tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                           [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]])
    batch = torch.stack((inputs, inputs), dim=0)
    torch.manual_seed(123)
    early = str(wrapper(EarlyCausalAttention, 3, 6)(batch))
    torch.manual_seed(123)
    today = str(wrapper(torch_walk.CausalAttention, 3, 6)(batch))
    print("softmax(dim=1), the solution's version:\n" + early)
    print("softmax(dim=-1), the chapter's code today and attn-walk:\n" + today)
    if early != SOLUTION:
        sys.exit("softmax(dim=1) does not reproduce the solution's output")
    print("OK: softmax(dim=1) reproduces the solution notebook's output verbatim")


if __name__ == "__main__":
    main()
