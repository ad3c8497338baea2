#include "core/cpu.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#endif

namespace attn::kernels {

namespace {

Isa supported_isa() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return Isa::Avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Isa::Avx2;
#elif defined(__aarch64__) && defined(__ARM_NEON)
  return Isa::Neon;  // every aarch64 core has Advanced SIMD
#endif
  return Isa::Scalar;
}

// What of `want` a CPU whose best is `have` runs: the lower of two x86 paths; NEON only on NEON.
Isa lower(Isa want, Isa have) {
  if (want == Isa::Neon || have == Isa::Neon) return want == have ? want : Isa::Scalar;
  return static_cast<int>(want) < static_cast<int>(have) ? want : have;
}

Isa initial_isa() {
  Isa isa = supported_isa();
  if (const char* env = std::getenv("ATTN_WALK_ISA")) {
    if (std::strcmp(env, "scalar") == 0) isa = Isa::Scalar;
    else if (std::strcmp(env, "avx2") == 0) isa = lower(isa, Isa::Avx2);
  }
  return isa;
}

std::atomic<Isa>& active() {
  static std::atomic<Isa> isa{initial_isa()};
  return isa;
}

}  // namespace

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::Avx512: return "avx512";
    case Isa::Avx2: return "avx2";
    case Isa::Neon: return "neon";
    default: return "scalar";
  }
}

Isa best_isa() { return initial_isa(); }

Isa active_isa() { return active().load(std::memory_order_relaxed); }

Vendor cpu_vendor() {
  static const Vendor vendor = [] {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid(0, &eax, &ebx, &ecx, &edx)) {
      char name[13];
      std::memcpy(name, &ebx, 4);
      std::memcpy(name + 4, &edx, 4);
      std::memcpy(name + 8, &ecx, 4);
      name[12] = '\0';
      if (std::strcmp(name, "GenuineIntel") == 0) return Vendor::Intel;
      if (std::strcmp(name, "AuthenticAMD") == 0) return Vendor::Amd;
    }
#endif
    return Vendor::Other;
  }();
  return vendor;
}

Isa set_active_isa(Isa isa) {
  isa = lower(isa, supported_isa());
  active().store(isa);
  return isa;
}

}  // namespace attn::kernels
