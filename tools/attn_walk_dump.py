"""Kept for notebooks and scripts that import it: the dump helper now lives in the attn_walk
package (python/attn_walk/), which also grades in the notebook itself (docs/notebook.md):

    import attn_walk
    attn_walk.check(stage="causal")

This shim finds the package next to it in the repository (or installed with
`pip install ./python`) and re-exports dump() and grads() unchanged: dump(path, name=tensor, ...)
writes the same JSON for `attn-walk check path` as before.
"""
import os
import sys

try:
    from attn_walk import dump, grads  # noqa: F401
except ImportError:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
    from attn_walk import dump, grads  # noqa: F401

__all__ = ["dump", "grads"]
