"""What the bonus oracles (tests/golden/bonus/<stage>.py) share: their configuration and
the chapter's MultiHeadAttention, from torch_walk.py.

A bonus oracle is a module with
    STAGE = "kv-cache"          # the --stage name
    def run(cfg): -> steps      # a list of torch_walk.Recorder steps, named as src/stages/<stage>.cpp
and optionally
    def valid(cfg): -> bool     # False for configurations the stage refuses (a usage error)
make_bonus_goldens.py discovers every such module; difftest.py runs them too.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import torch_env  # noqa: E402,F401  (before torch: OpenBLAS's Cooperlake kernel)
import torch  # noqa: E402

from torch_walk import MultiHeadAttention, Recorder  # noqa: E402,F401

# The bonus options, named as attn-walk's flags (--d-out, --heads, --kv-groups, --window,
# --rope-base, --block, --latent-dim), with the bonus stages' defaults (src/core/config.h: BonusConfig).
BONUS_DEFAULTS = dict(d_out=8, heads=4, kv_groups=2, window=3, rope_base=10000.0, block=2, latent_dim=4)


class BonusCfg:
    """A bonus stage's configuration: inputs, seed (S1), batch, qkv_bias and the bonus knobs."""

    def __init__(self, inputs, seed=None, batch=2, qkv_bias=False, d_out=8, heads=4, kv_groups=2,
                 window=3, rope_base=10000.0, block=2, latent_dim=4):
        self.inputs = torch.tensor(inputs, dtype=torch.float32)
        self.seed1 = 123 if seed is None else seed
        self.batch, self.qkv_bias = batch, qkv_bias
        self.d_out, self.heads, self.kv_groups = d_out, heads, kv_groups
        self.window, self.rope_base, self.block = window, rope_base, block
        self.latent_dim = latent_dim
        self.head_dim = d_out // heads

    @property
    def num_tokens(self):
        return self.inputs.shape[0]

    @property
    def d_in(self):
        return self.inputs.shape[1]

    def batch_input(self):
        """torch.stack((inputs,) * batch): (B, T, d_in), as the chapter builds its batch."""
        return torch.stack((self.inputs,) * self.batch, dim=0)
