"""The multi-head walk at scale against PyTorch, bit for bit.

    /usr/bin/python3 tests/bench/walk_bits.py --binary build/attn-walk --tokens 1024 --d-model 768 --heads 12
    /usr/bin/python3 tests/bench/walk_bits.py --binary build/attn-walk --tokens 256 --batch 2 --wrapper --qkv-bias

The golden tests and tests/golden/difftest.py cover small inputs; this covers the shapes
where OpenBLAS switches to its blocked kernel (M*N*K > 100^3, K cut into blocks of 320).
It runs `attn-walk --stage multi-head --random-input TxD --format json --only <steps>` and the
same steps in PyTorch (tests/golden/torch_walk.py, after torch.manual_seed(123) and
torch.randn(T, D), as --random-input draws them), and counts the float32 values whose bits
differ. Big steps make big JSON: pick them with --steps.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "golden"))
import torch_env  # noqa: E402,F401  (before torch: OpenBLAS's Cooperlake kernel)

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch_walk  # noqa: E402

DEFAULT_STEPS = "keys,queries,values,context_vec,mha_context_vecs"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default="build/attn-walk")
    ap.add_argument("--tokens", type=int, default=1024)
    ap.add_argument("--d-model", type=int, default=768)
    ap.add_argument("--heads", type=int, default=12)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--qkv-bias", action="store_true")
    ap.add_argument("--wrapper", action="store_true", help="also compare wrapper_context_vecs")
    ap.add_argument("--steps", default=DEFAULT_STEPS, help=f"comma-separated (default {DEFAULT_STEPS}; "
                    "also batch, *_viewed, *_transposed, attn_scores, attn_scores_masked, attn_weights)")
    args = ap.parse_args()
    T, D, H, B = args.tokens, args.d_model, args.heads, args.batch
    names = args.steps.split(",") + (["wrapper_context_vecs"] if args.wrapper else [])

    # PyTorch, in the walk's order: inputs, then the wrapper and the module from seed 123.
    torch.manual_seed(123)
    batch = torch.stack((torch.randn(T, D),) * B)
    steps = {"batch": batch}
    rec = lambda name, t: steps.__setitem__(name, t.detach().clone())  # noqa: E731
    with torch.no_grad():
        if args.wrapper:
            torch.manual_seed(123)
            steps["wrapper_context_vecs"] = torch_walk.MultiHeadAttentionWrapper(D, D, T, 0.0, H, args.qkv_bias)(batch)
        torch.manual_seed(123)
        steps["mha_context_vecs"] = torch_walk.MultiHeadAttention(D, D, T, 0.0, H, args.qkv_bias)(batch, rec)

    cmd = [args.binary, "--stage", "multi-head", "--random-input", f"{T}x{D}", "--d-out", str(D), "--heads",
           str(H), "--batch", str(B), "--format", "json", "--only", ",".join(names)]
    if args.qkv_bias:
        cmd.append("--qkv-bias")
    got = {s["name"]: s for s in json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)["steps"]}

    failed = False
    for name in names:
        want = steps[name].numpy().astype(np.float32)
        have = np.array([float(v) for v in np.ravel(np.array(got[name]["data"], dtype=object))],
                        dtype=np.float32).reshape(want.shape)
        differ = int(np.sum(want.view(np.uint32) != have.view(np.uint32)))
        finite = np.isfinite(want) & np.isfinite(have)
        worst = float(np.max(np.abs(want[finite] - have[finite]), initial=0.0))
        failed |= differ > 0
        print(f"{name:22s} {str(tuple(want.shape)):22s} {differ:9d} of {want.size} values differ in their bits"
              f" (max |difference| {worst:.3g})")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
