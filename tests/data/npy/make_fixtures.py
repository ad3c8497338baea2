"""Writes the .npy fixtures of tests/test_npy.cpp (run with /usr/bin/python3; needs numpy).

    /usr/bin/python3 tests/data/npy/make_fixtures.py

Good files come from np.save; bad ones are np.save output edited byte by byte, so each
has exactly one thing wrong.
"""
import io
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def saved(a, version=None):
    buf = io.BytesIO()
    if version is None:
        np.save(buf, a)
    else:
        np.lib.format.write_array(buf, a, version=version)
    return buf.getvalue()


def write(name, data):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)


def header_swap(data, old, new):
    """Replace text in the header, keeping its length (pad with spaces)."""
    assert len(new) <= len(old)
    i = data.index(old)
    return data[:i] + new + b" " * (len(old) - len(new)) + data[i + len(old):]


a32 = np.array([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64]], dtype=np.float32)
a64 = np.array([[0.1, -2.5], [1e-3, 3.0], [1e30, -1e-30]], dtype=np.float64)

# good
write("f32.npy", saved(a32))
write("f64.npy", saved(a64))
write("f32_v2.npy", saved(a32, version=(2, 0)))
write("f32_v3.npy", saved(a32, version=(3, 0)))
write("f32.bin", saved(a32))  # found by its magic bytes, whatever the name
write("one_row.npy", saved(np.arange(5, dtype=np.float32).reshape(1, 5)))

# bad
write("not_npy.npy", b'{"embeddings": [[1, 2]]}\n')
write("empty.npy", b"")
write("int64.npy", saved(np.arange(6, dtype=np.int64).reshape(2, 3)))
write("float16.npy", saved(a32.astype(np.float16)))
write("big_endian.npy", saved(a32.astype(">f4")))
write("fortran.npy", saved(np.asfortranarray(a32)))
write("one_d.npy", saved(np.arange(4, dtype=np.float32)))
write("three_d.npy", saved(np.zeros((2, 3, 4), dtype=np.float32)))
write("scalar.npy", saved(np.float32(1.5)))
write("no_rows.npy", saved(np.zeros((0, 3), dtype=np.float32)))
write("no_cols.npy", saved(np.zeros((3, 0), dtype=np.float32)))
write("truncated_data.npy", saved(a32)[:-5])
write("trailing_bytes.npy", saved(a32) + b"\0\0\0\0")
write("truncated_header.npy", saved(a32)[:40])
write("version9.npy", saved(a32)[:6] + b"\x09\x00" + saved(a32)[8:])
write("nan.npy", saved(np.array([[1.0, 2.0], [np.nan, 4.0]], dtype=np.float32)))
write("inf.npy", saved(np.array([[1.0, np.inf]], dtype=np.float64)))
write("f64_overflow.npy", saved(np.array([[1.0, 2.0, 1e300]], dtype=np.float64)))
write("bad_header.npy", header_swap(saved(a32), b"'shape': (3, 3)", b"'shape': [3, 3]"))
write("missing_key.npy", header_swap(saved(a32), b"'fortran_order': False, ", b""))
write("extra_key.npy", header_swap(saved(a32), b"'fortran_order': False", b"'order': False"))
