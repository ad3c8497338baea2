"""Generate the bonus stages' goldens from real PyTorch: tests/golden/bonus_walks/*.json.

    /usr/bin/python3 tests/golden/make_bonus_goldens.py [STAGE ...]   (or: make goldens)

Every module tests/golden/bonus/<stage>.py (not starting with "_") is an oracle for one
bonus stage (see bonus/_common.py). For each stage and each configuration below this
writes bonus_walks/<stage>--<config>.json, laid out as tests/golden/walks/*.json (options
named as attn-walk's flags, tokens, embeddings, and {stage: steps}), which
tests/test_bonus_goldens.cpp replays. Naming stages regenerates only theirs.
"""
import glob
import importlib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "bonus"))
import torch_env  # noqa: E402  (before torch)
from golden_files import write_goldens  # noqa: E402
import torch  # noqa: E402

import make_goldens  # noqa: E402
from _common import BONUS_DEFAULTS, BonusCfg  # noqa: E402

OUT = os.path.join(HERE, "bonus_walks")
# The chapter's options that shape the bonus stages; the rest keep their defaults.
BONUS_CHAPTER_OPTIONS = ("seed", "batch", "qkv_bias")


def oracles():
    """{stage name: module} for every tests/golden/bonus/<stage>.py."""
    found = {}
    for path in sorted(glob.glob(os.path.join(HERE, "bonus", "*.py"))):
        name = os.path.splitext(os.path.basename(path))[0]
        if name.startswith("_"):
            continue
        module = importlib.import_module(name)
        found[module.STAGE] = module
    return found


def options(opts):
    """Every option of a golden, named as the CLI flags, bonus sizes always explicit."""
    unknown = set(opts) - set(BONUS_DEFAULTS) - set(BONUS_CHAPTER_OPTIONS)
    if unknown:
        raise ValueError(f"not a bonus option: {sorted(unknown)}")
    o = dict(make_goldens.OPTION_DEFAULTS)
    o.update(BONUS_DEFAULTS)
    o.update(opts)
    return o


def to_cfg(o, embeddings):
    return BonusCfg(embeddings, seed=o["seed"], batch=o["batch"], qkv_bias=o["qkv_bias"],
                    **{k: o[k] for k in BONUS_DEFAULTS})


def golden(name, stage, module, opts, tokens, embeddings):
    """The golden document of one stage on one configuration, or None if the stage refuses it."""
    o = options(opts)
    cfg = to_cfg(o, embeddings)
    if cfg.d_out % cfg.heads != 0 or (hasattr(module, "valid") and not module.valid(cfg)):
        return None
    return {
        "name": name,
        "torch_version": torch.__version__,
        "options": o,
        "tokens": tokens,
        "embeddings": embeddings,
        "stages": {stage: module.run(cfg)},
    }


def configurations():
    """(name, options, tokens, embeddings): the defaults on the chapter's six tokens, then
    other sizes, seeds, bias, batch, window, block and rope base on other inputs."""
    j_tok, j_emb = make_goldens.JOURNEY["tokens"], make_goldens.JOURNEY["embeddings"]
    yield "book", {}, j_tok, j_emb
    yield "book_seed42_bias_b1", dict(seed=42, qkv_bias=True, batch=1, d_out=12, heads=6, kv_groups=3,
                                      window=2, block=4, rope_base=500000.0, latent_dim=6), j_tok, j_emb

    def rnd(name, data_seed, T, d_in, **opts):
        emb = make_goldens.random_embeddings(data_seed, T, d_in)
        return name, opts, [f"x{i + 1}" for i in range(T)], emb

    yield rnd("d16_t11_dout16_h4_g1", 21, 11, 16, seed=7, batch=3, d_out=16, heads=4, kv_groups=1,
              window=5, block=3, latent_dim=16)
    yield rnd("d5_t7_dout4_h2_g2_bias", 22, 7, 5, seed=2024, batch=2, qkv_bias=True, d_out=4, heads=2,
              kv_groups=2, window=1, block=7, rope_base=100.0)
    yield rnd("d4_t1_one_token", 23, 1, 4, seed=0, batch=1, d_out=6, heads=3, kv_groups=3, window=4,
              block=1, latent_dim=1)
    # d_in == d_out, as the notebook runs its modules: efficient's nn.MultiheadAttention needs it;
    # with biases (add_bias_kv) below and from 16 features (torch.normal_'s vectorised path) up.
    yield rnd("d8_t5_dout8_h2_bias", 25, 5, 8, seed=5, batch=2, qkv_bias=True, d_out=8, heads=2,
              kv_groups=1, window=2, block=2)
    yield rnd("d16_t6_dout16_h4_bias", 26, 6, 16, seed=99, batch=1, qkv_bias=True, d_out=16, heads=4,
              kv_groups=2, window=3, block=4, rope_base=500000.0)
    yield rnd("d6_t40_long", 24, 40, 6, seed=11, batch=1, d_out=8, heads=2, kv_groups=1, window=9,
              block=16)
    # Heads of one dimension: MHAEinsum's context.transpose(1, 2).reshape(b, n, d_out) is then a
    # view that is not contiguous, and out_proj runs bmm per batch item (a plain loop below 400
    # multiply-adds, sgemm with both operands transposed above) or, with a batch of one, one
    # folded mm; six heads also take nn.MultiheadAttention's average down SumKernel's lanes.
    yield rnd("d3_t6_dout3_h3_b3_headdim1", 27, 6, 3, seed=123, batch=3, d_out=3, heads=3, kv_groups=3,
              window=2, block=3)
    yield rnd("d6_t24_dout6_h6_b2_headdim1", 28, 24, 6, seed=0, batch=2, d_out=6, heads=6, kv_groups=6,
              window=4, block=5)
    yield rnd("d6_t16_dout6_h6_b1_headdim1_bias", 29, 16, 6, seed=789, batch=1, qkv_bias=True, d_out=6,
              heads=6, kv_groups=2, window=3, block=4)


def main():
    found = oracles()
    wanted = sys.argv[1:] or list(found)
    for stage in wanted:
        if stage not in found:
            raise SystemExit(f"no oracle for stage {stage!r}; have {sorted(found)}")
    torch_env.require_bit_exact("make_bonus_goldens.py")
    for stage in wanted:
        write_goldens(OUT, ((f"{stage}--{name}.json", golden(name, stage, found[stage], opts, tokens, emb))
                            for name, opts, tokens, emb in configurations()),
                      lambda path, doc: f"{len(doc['stages'][stage])} steps", replace=f"{stage}--*.json")


if __name__ == "__main__":
    main()
