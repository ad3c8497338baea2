#!/usr/bin/env python3
"""Build-time generator of the page's fused product tiles (run by CMake for the WebAssembly build).

    make_relaxed_wasm.py OUT.h [--wasm OUT.wasm]

writes a C++ header holding a small WebAssembly module, byte by byte, each instruction named in a
comment beside its bytes. The module imports the engine's memory (env.memory) and exports one
function, `tiles`, the inner loop of src/kernels/gemm_simd128.cpp's products with
`f32x4.relaxed_madd` (the relaxed SIMD proposal's final opcode 0xfd 0x105). Debian's emscripten
3.1.6 cannot emit that opcode (its clang 14 knows only the proposal's early numbering), so the
module is assembled here; it is a separate module because a module holding a relaxed opcode
fails to validate where relaxed SIMD is off. src/kernels/gemm_relaxed_wasm.cpp instantiates it,
checks once that relaxed_madd fuses, and only then uses it.

tiles(kc, a, a_row, a_k, b, b_stride, panels, c, ldc, mode, start): `panels` tiles of MR rows x
8 columns, side by side. All arguments are i32, addresses and strides in bytes.
  a         the tile's rows of A: a(r, k) at a + r a_row + k a_k (rows of A in place, or packed)
  b         the first panel of B (8 columns, kc rows of 8 floats); panel p at b + p b_stride
  c         the first tile's corner in C; tile p at c + 32 p, row r at + r ldc
  mode      0: C = acc; 1: C = acc + C; 2: C = acc + start (8 floats per tile, the same for
            every row; tile p's at start + 32 p)
Each element's accumulator is acc = relaxed_madd(a(r, k), b(k, j), acc) for k = 0 .. kc - 1
from 0.0, in that order: where relaxed_madd fuses, the chain of gemm_tile.h's kernels, and the
sum with C or start one f32x4.add, as there.
"""
import os
import sys

# Rows per tile: 8 accumulators, 2 vectors of B and a broadcast of A, 11 of the 16 vector
# registers of x86-64. In Node 20 on a Sapphire Rapids-class Xeon, 768 steps x 32 tiles, under
# load: 4 rows 34 to 41 GFLOP/s; 3, 5 and 6 rows no better (8 to 46, noisy); unrolling k by 2
# or 4 did not help. (kTileRowsRelaxed in gemm_relaxed_wasm.h must be the same.)
MR = 4
NR = 8  # columns per tile: the packed panel's width (kPanelSimd128 in gemm_detail.h)

I32, V128 = 0x7F, 0x7B


def uleb(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def sleb(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        done = (n == 0 and not byte & 0x40) or (n == -1 and byte & 0x40)
        out.append(byte if done else byte | 0x80)
        if done:
            return bytes(out)


def vec(items):
    return uleb(len(items)) + b"".join(items)


def name(s):
    return vec([bytes([c]) for c in s.encode()])


class Body:
    """A function body: instructions as (bytes, text) pairs, so the output can name each."""

    def __init__(self):
        self.code = []
        self.depth = 0

    def op(self, raw, text):
        self.code.append((bytes(raw), "  " * self.depth + text))

    # Control (block types: 0x40, no result).
    def block(self):
        self.op(b"\x02\x40", "block")
        self.depth += 1

    def loop(self):
        self.op(b"\x03\x40", "loop")
        self.depth += 1

    def if_(self):
        self.op(b"\x04\x40", "if")
        self.depth += 1

    def else_(self):
        self.depth -= 1
        self.op(b"\x05", "else")
        self.depth += 1

    def end(self):
        self.depth -= 1
        self.op(b"\x0b", "end")

    def br_if(self, label):
        self.op(b"\x0d" + uleb(label), f"br_if {label}")

    # Locals and integers.
    def get(self, i):
        self.op(b"\x20" + uleb(i), f"local.get {LOCAL_NAMES[i]}")

    def set(self, i):
        self.op(b"\x21" + uleb(i), f"local.set {LOCAL_NAMES[i]}")

    def i32_const(self, n):
        self.op(b"\x41" + sleb(n), f"i32.const {n}")

    def i32(self, opcode, text):
        self.op(bytes([opcode]), text)

    def add_to(self, i, n):  # local i += n
        self.get(i)
        self.i32_const(n)
        self.i32(0x6A, "i32.add")
        self.set(i)

    def add_local(self, i, j):  # local i += local j
        self.get(i)
        self.get(j)
        self.i32(0x6A, "i32.add")
        self.set(i)

    # SIMD: prefix 0xfd, then the opcode as a LEB128 u32; memory immediates are align, offset.
    def simd(self, opcode, text, imm=b""):
        self.op(b"\xfd" + uleb(opcode) + imm, text)

    def v128_load(self, offset):
        self.simd(0x00, f"v128.load offset={offset}", uleb(4) + uleb(offset))

    def v128_load32_splat(self, offset):
        self.simd(0x09, f"v128.load32_splat offset={offset}", uleb(2) + uleb(offset))

    def v128_store(self, offset):
        self.simd(0x0B, f"v128.store offset={offset}", uleb(4) + uleb(offset))

    def v128_zero(self):
        self.simd(0x0C, "v128.const 0", bytes(16))

    def f32x4_add(self):
        self.simd(0xE4, "f32x4.add")

    def f32x4_relaxed_madd(self):
        self.simd(0x105, "f32x4.relaxed_madd")


# The function's parameters, then its locals.
PARAMS = ["kc", "a", "a_row", "a_k", "b", "b_stride", "panels", "c", "ldc", "mode", "start"]
I32_LOCALS = ["k", "pb", "row"] + [f"pa{r}" for r in range(MR)]  # pa r: row r's a(r, k)
ACC = [[f"acc{r}_{v}" for v in range(NR // 4)] for r in range(MR)]
V128_LOCALS = [x for row in ACC for x in row] + [f"b{v}" for v in range(NR // 4)] + ["av"]
LOCAL_NAMES = PARAMS + I32_LOCALS + V128_LOCALS
L = {n: i for i, n in enumerate(LOCAL_NAMES)}


def step(f):
    """One step of k: B's 8 values at pb, each row's a(r, k) at pa r broadcast, every
    accumulator one multiply-add."""
    for v in range(NR // 4):
        f.get(L["pb"])
        f.v128_load(v * 16)
        f.set(L[f"b{v}"])
    for r in range(MR):
        f.get(L[f"pa{r}"])
        f.v128_load32_splat(0)
        f.set(L["av"])
        for v in range(NR // 4):
            f.get(L["av"])  # relaxed_madd(a, b, c) = a b + c: the chain's fma(a(r, k), b(k, j), acc)
            f.get(L[f"b{v}"])
            f.get(L[ACC[r][v]])
            f.f32x4_relaxed_madd()
            f.set(L[ACC[r][v]])


def k_loop(f):
    """While k > 0: one step, then the pointers move on and k counts down."""
    f.block()
    f.loop()
    f.get(L["k"])
    f.i32_const(1)
    f.i32(0x48, "i32.lt_s")
    f.br_if(1)  # out of the block: no step left (kc may be 0)
    step(f)
    for r in range(MR):
        f.add_local(L[f"pa{r}"], L["a_k"])
    f.add_to(L["pb"], NR * 4)
    f.add_to(L["k"], -1)
    f.op(b"\x0c" + uleb(0), "br 0")  # the next step
    f.end()
    f.end()


def store_tile(f, mode):
    """C's tile = acc (mode 0), acc + C (mode 1) or acc + start (mode 2), row by row."""
    f.get(L["c"])
    f.set(L["row"])
    for r in range(MR):
        for v in range(NR // 4):
            f.get(L["row"])  # the address, then the value
            f.get(L[ACC[r][v]])
            if mode == 1:
                f.get(L["row"])
                f.v128_load(v * 16)
                f.f32x4_add()
            elif mode == 2:
                f.get(L["start"])
                f.v128_load(v * 16)
                f.f32x4_add()
            f.v128_store(v * 16)
        if r + 1 < MR:
            f.add_local(L["row"], L["ldc"])


def tiles_body():
    f = Body()
    f.block()
    f.get(L["panels"])
    f.i32(0x45, "i32.eqz")
    f.br_if(0)  # no tile
    f.loop()  # one tile per pass
    for row in ACC:
        for name_ in row:
            f.v128_zero()
            f.set(L[name_])
    f.get(L["kc"])
    f.set(L["k"])
    f.get(L["a"])
    f.set(L["pa0"])
    for r in range(1, MR):
        f.get(L[f"pa{r - 1}"])
        f.get(L["a_row"])
        f.i32(0x6A, "i32.add")
        f.set(L[f"pa{r}"])
    f.get(L["b"])
    f.set(L["pb"])
    k_loop(f)
    f.get(L["mode"])
    f.if_()  # mode 1 or 2
    f.get(L["mode"])
    f.i32_const(1)
    f.i32(0x46, "i32.eq")
    f.if_()
    store_tile(f, 1)
    f.else_()
    store_tile(f, 2)
    f.end()
    f.else_()
    store_tile(f, 0)
    f.end()
    f.add_to(L["c"], NR * 4)  # the next tile: 8 columns on in C, start and B's panels
    f.add_to(L["start"], NR * 4)
    f.add_local(L["b"], L["b_stride"])
    f.add_to(L["panels"], -1)
    f.get(L["panels"])
    f.br_if(0)  # loop while tiles remain
    f.end()
    f.end()
    f.end()  # the function's own end
    return f


def module():
    """The module's sections: (id, bytes, comment) in order."""
    f = tiles_body()
    locals_ = vec([uleb(len(I32_LOCALS)) + bytes([I32]), uleb(len(V128_LOCALS)) + bytes([V128])])
    body = locals_ + b"".join(raw for raw, _ in f.code)
    sections = [
        (1, vec([b"\x60" + vec([bytes([I32])] * len(PARAMS)) + vec([])]), f"type: (i32 x {len(PARAMS)}) -> ()"),
        (2, vec([name("env") + name("memory") + b"\x02\x00" + uleb(1)]), "import: env.memory, at least 1 page"),
        (3, vec([uleb(0)]), "function: tiles has type 0"),
        (7, vec([name("tiles") + b"\x00" + uleb(0)]), "export: tiles"),
        (10, vec([uleb(len(body)) + body]), "code: tiles"),
    ]
    return sections, f, locals_, body


def c_bytes(data):
    return ", ".join(f"0x{b:02x}" for b in data)


def main():
    if len(sys.argv) not in (2, 4) or (len(sys.argv) == 4 and sys.argv[2] != "--wasm"):
        sys.exit("usage: make_relaxed_wasm.py OUT.h [--wasm OUT.wasm]")
    sections, f, locals_, body = module()
    header = b"\x00asm" + b"\x01\x00\x00\x00"
    wasm = header + b"".join(bytes([sid]) + uleb(len(data)) + data for sid, data, _ in sections)
    assert len(wasm) < 4096, "Chromium compiles a module synchronously on the main thread up to 4 KB"
    lines = [f"  {c_bytes(header)},  // magic, version 1"]
    for sid, data, comment in sections:
        if sid != 10:
            lines.append(f"  {c_bytes(bytes([sid]) + uleb(len(data)) + data)},  // {comment}")
            continue
        head = data[:len(data) - len(body)]  # one function: the count, then the body's size
        lines.append(f"  {c_bytes(bytes([sid]) + uleb(len(data)) + head)},  // {comment}")
        lines.append(f"  {c_bytes(locals_)},  // locals: {len(I32_LOCALS)} i32, {len(V128_LOCALS)} v128")
        for raw, text in f.code:
            lines.append(f"  {c_bytes(raw)},  // {text}")
    out = [
        "// Generated by tools/make_relaxed_wasm.py: do not edit. The page's product tiles with",
        "// f32x4.relaxed_madd (src/kernels/gemm_relaxed_wasm.cpp instantiates and checks them).",
        "// Locals: " + ", ".join(f"{i} {n}" for i, n in enumerate(LOCAL_NAMES)),
        "#pragma once",
        "",
        "namespace attn::kernels::detail {",
        "",
        f"inline constexpr int kRelaxedTileRows = {MR};",
        f"inline constexpr unsigned char kRelaxedTilesWasm[{len(wasm)}] = {{",
        *lines,
        "};",
        "",
        "}  // namespace attn::kernels::detail",
        "",
    ]
    os.makedirs(os.path.dirname(os.path.abspath(sys.argv[1])), exist_ok=True)
    with open(sys.argv[1], "w") as fh:
        fh.write("\n".join(out))
    if len(sys.argv) == 4:
        with open(sys.argv[3], "wb") as fh:
            fh.write(wasm)


if __name__ == "__main__":
    main()
