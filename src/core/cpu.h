// Which vector instructions the fast kernels (src/kernels/) and the reference's bulk random
// fill (src/torch/random_fill.h) use, chosen once at run time.
//
// Every path computes the same float32 bits: vectors only run independent per-element
// chains side by side, never reassociating a sum. The scalar path is the portable
// fallback (and the reference the others are tested against).
#pragma once

namespace attn::kernels {

// x86's are ordered (an AVX-512 core runs the AVX2 path too); NEON, aarch64's, stands apart.
enum class Isa {
  Scalar,
  Avx2,
  Avx512,
  Neon
};

// The x86 vector paths (the softmax's and the random fill's AVX2 and AVX-512 pieces).
inline bool x86_vectors(Isa isa) { return isa == Isa::Avx2 || isa == Isa::Avx512; }

const char* isa_name(Isa isa);
// The best the CPU supports (AVX-512F, else AVX2 with FMA, else scalar; NEON on aarch64),
// unless ATTN_WALK_ISA=scalar|avx2|avx512 asks for a lower one.
Isa best_isa();
// The path in use; tests switch it to compare every path against the reference.
Isa active_isa();
// Clamped to what the CPU supports (scalar where it runs none of it); returns the path now in use.
Isa set_active_isa(Isa isa);

// The page's engine (WebAssembly): only the scalar path's Isa, whose products and softmax
// run there in SIMD128 (src/kernels/*_simd128.cpp, the same floats) instead of the scalar
// definitions.
#if defined(__EMSCRIPTEN__)
constexpr bool kSimd128 = true;
#else
constexpr bool kSimd128 = false;
#endif

// Whose x86 core this is (cpuid's vendor string), for choices of blocking that suit one
// vendor's caches better than the other's. Never changes a result: only the order in which
// independent tiles are computed.
enum class Vendor {
  Other,
  Intel,
  Amd
};
Vendor cpu_vendor();

}  // namespace attn::kernels
