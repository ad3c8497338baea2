// Which sgemm kernel and how many threads OpenBLAS 0.3.21 runs with here (driver/others/
// dynamic.c picks the kernel, driver/others/init.c and blas_server.c the thread count), and
// the order in use (sgemm_order.h).
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <string>

#include "torch/sgemm_order.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#endif

namespace attn::kernels {

namespace {

std::string lowercase(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The CPU's own kernel, as dynamic.c's get_coretype decides it for the CPUs that run one of
// the three: avx512_bf16 (cpuid 7.1 EAX bit 5) with AVX-512, AVX-512 alone, AVX2.
BlasKernel cpu_blas_kernel() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    const bool bf16 = __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) && (eax & (1u << 5)) != 0;
    return bf16 ? BlasKernel::Cooperlake : BlasKernel::SkylakeX;
  }
  return BlasKernel::Haswell;  // AVX2 and FMA; older CPUs run kernels attn-walk does not reproduce
#else
  return BlasKernel::Cooperlake;  // no x86 OpenBLAS to follow (the page): the reference's order
#endif
}

int positive_env(const char* name) {
  const char* v = std::getenv(name);
  if (!v) return 0;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  return end != v && n > 0 && n < 1 << 16 ? static_cast<int>(n) : 0;
}

int cpus_available() {
#if defined(__linux__)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
#endif
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

BlasOrder initial_order() { return BlasOrder{detected_blas_kernel(), detected_blas_threads()}; }

std::atomic<int>& active_kernel() {
  static std::atomic<int> k{static_cast<int>(initial_order().kernel)};
  return k;
}
std::atomic<int>& active_threads() {
  static std::atomic<int> t{initial_order().threads};
  return t;
}

}  // namespace

const char* blas_kernel_name(BlasKernel kernel) {
  switch (kernel) {
    case BlasKernel::SkylakeX: return "skylakex";
    case BlasKernel::Haswell: return "haswell";
    default: return "cooperlake";
  }
}

bool parse_blas_kernel(const std::string& name, BlasKernel* kernel) {
  const std::string n = lowercase(name);
  for (BlasKernel k : {BlasKernel::Cooperlake, BlasKernel::SkylakeX, BlasKernel::Haswell})
    if (n == blas_kernel_name(k)) {
      *kernel = k;
      return true;
    }
  return false;
}

BlasKernel detected_blas_kernel() {
  BlasKernel k;
  if (const char* fixed = std::getenv("ATTN_WALK_BLAS_KERNEL"); fixed && parse_blas_kernel(fixed, &k)) return k;
  // force_coretype: the first 20 characters, any case, of the names it lists.
  if (const char* env = std::getenv("OPENBLAS_CORETYPE")) {
    const std::string name = lowercase(std::string(env).substr(0, 20));
    if (name == "haswell" || name == "zen") return BlasKernel::Haswell;
    if (name == "skylakex") return BlasKernel::SkylakeX;
  }
  return cpu_blas_kernel();
}

int detected_blas_threads() {
  if (const int fixed = positive_env("ATTN_WALK_BLAS_THREADS")) return fixed;
#if !defined(__x86_64__)
  return 2;  // no x86 OpenBLAS to follow (the page): the goldens' threaded driver
#endif
  const int cpus = cpus_available();
  for (const char* name : {"OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS"})
    if (const int n = positive_env(name)) return std::min(n, cpus);
  return cpus;
}

BlasOrder blas_order() {
  return BlasOrder{static_cast<BlasKernel>(active_kernel().load(std::memory_order_relaxed)),
                   active_threads().load(std::memory_order_relaxed)};
}

void set_blas_order(BlasOrder order) {
  active_kernel().store(static_cast<int>(order.kernel), std::memory_order_relaxed);
  active_threads().store(std::max(1, order.threads), std::memory_order_relaxed);
}

}  // namespace attn::kernels
