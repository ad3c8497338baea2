"""Choose OpenBLAS's sgemm kernel before PyTorch loads it. Import this before `import torch`.

OpenBLAS 0.3.21 (Debian's libopenblas0-pthread, under Debian's python3-torch) picks its kernel
from the CPU, and the environment variable OPENBLAS_CORETYPE overrides that choice. The kernels
sum large products in different orders, so their last bits differ. attn-walk reproduces the
Cooperlake kernel, which Zen 4 and Zen 5 autodetect; these machines export
OPENBLAS_CORETYPE=Haswell, so every PyTorch-driven script sets the kernel itself.

On a CPU without avx512_bf16 the Cooperlake kernel cannot run. There OpenBLAS keeps its own
choice, and `bit_exact` is False: golden generators refuse to write (their goldens would not be
Cooperlake's), and comparisons report last-bit differences instead of failing on them.

A script that compares kernels on purpose (tests/bench/blas_kernels.py) names the one it wants
in ATTN_WALK_KERNEL; torch_env then sets that instead, and bit_exact says whether it is the
reference. A golden generator for another kernel's order (make_sgemm_goldens.py) calls
use_kernel() before importing torch, and loaded_kernel() afterwards to check what OpenBLAS loaded.
"""
import os

REFERENCE_KERNEL = "Cooperlake"


def _cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


bit_exact = "avx512_bf16" in _cpu_flags()
if os.environ.get("ATTN_WALK_KERNEL"):
    os.environ["OPENBLAS_CORETYPE"] = os.environ["ATTN_WALK_KERNEL"]
    bit_exact = bit_exact and os.environ["ATTN_WALK_KERNEL"] == REFERENCE_KERNEL
elif bit_exact:
    os.environ["OPENBLAS_CORETYPE"] = REFERENCE_KERNEL
else:
    os.environ.pop("OPENBLAS_CORETYPE", None)


KERNELS = ("Cooperlake", "SkylakeX", "Haswell")
# What each kernel needs of the CPU (OpenBLAS falls back to another kernel without it).
_KERNEL_FLAGS = {"Cooperlake": "avx512_bf16", "SkylakeX": "avx512f", "Haswell": "avx2"}


def use_kernel(kernel, threads=None):
    """Ask OpenBLAS for `kernel` (and `threads` threads, if given); call before `import torch`.
    Exits with a message if this CPU cannot run it."""
    if kernel not in KERNELS:
        raise SystemExit(f"torch_env: unknown kernel {kernel!r} (one of {', '.join(KERNELS)})")
    if _KERNEL_FLAGS[kernel] not in _cpu_flags():
        raise SystemExit(f"torch_env: this CPU has no {_KERNEL_FLAGS[kernel]}, so OpenBLAS cannot run "
                         f"its {kernel} kernel")
    os.environ["OPENBLAS_CORETYPE"] = kernel
    if threads is not None:
        os.environ["OPENBLAS_NUM_THREADS"] = str(threads)


def loaded_kernel():
    """(kernel name, thread count) of the OpenBLAS this process loaded (after `import torch`)."""
    import ctypes
    lib = ctypes.CDLL("libopenblas.so.0")
    lib.openblas_get_corename.restype = ctypes.c_char_p
    return lib.openblas_get_corename().decode(), lib.openblas_get_num_threads()


def require_bit_exact(what):
    """Exit with a message unless the reference kernel is in use (for golden generators)."""
    if not bit_exact:
        raise SystemExit(f"{what}: this CPU has no avx512_bf16, so OpenBLAS cannot run its "
                         f"{REFERENCE_KERNEL} kernel, and goldens made here would not be the ones "
                         "attn-walk reproduces. Generate them on a CPU with avx512_bf16.")
