// The C library's float functions where PyTorch calls them (no vector kernel takes over): expf
// for the columns of a softmax over dim 1 that are not in a run of 8. PyTorch gets glibc's.
// The native binary calls the same glibc. The page's C library is emscripten's musl, whose expf
// is the same algorithm (Arm's optimized-routines) computed without the fused multiply-adds of
// glibc's x86-64 build (__expf_fma, chosen on every CPU with FMA): compared on all 2^32 floats,
// the two differ for x = -0x1.f8cbb2p+5 and 0x1.04845ep+5. So the page takes glibc's steps.
#pragma once

namespace attn::kernels {

// expf(x) as PyTorch's C library computes it: std::exp natively, glibc_expf_fma in the page.
float libc_expf(float x);

// glibc 2.36's expf on x86-64 with FMA, step for step (sysdeps/ieee754/flt-32/e_expf.c with
// its multiply-adds fused as GCC compiles it there), in portable C++.
float glibc_expf_fma(float x);

}  // namespace attn::kernels
