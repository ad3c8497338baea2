// Checksums of the C library's results on the inputs attn-walk's walks give it, one line per
// block of inputs; compare.sh builds this natively (glibc) and with emscripten (musl) and diffs.
//   expf      expf on every float, in blocks of 2^22 (std::exp)
//   replica   glibc_expf_fma on every float, the same blocks (src/torch/libc_math.cpp)
//   powf      powf(base, y) for every float y in [0, 1), four bases, in blocks of 2^23
//   pow10     pow(10.0, k) for k = 1 to 38
//   normal    Box-Muller in double (log1p, sqrt, sin, cos) on 40M random pairs: the doubles'
//             checksum and that of the results rounded to float
//   normal-parts  log1p, cos and sin of the first million of those pairs, one line each
//   printf    the printer's snprintf ("%.*f", "%.*e") on decimal ties and random floats
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <string>

#include "core/float_bits.h"
#include "torch/libc_math.h"

namespace {

constexpr uint64_t kFnvStart = 1469598103934665603ull, kFnvPrime = 1099511628211ull;
uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * kFnvPrime; }
uint32_t bits(float f) {
  return f != f ? 0x7fc00000u : attn::float_to_bits(f);  // one NaN: payloads are not compared
}
uint64_t bits(double d) {
  uint64_t u;
  std::memcpy(&u, &d, sizeof u);
  return u;
}

template <class F>
void every_float(F f) {
  for (uint64_t b = 0; b < 1024; ++b) {
    uint64_t h = kFnvStart;
    for (uint64_t i = b << 22; i < (b + 1) << 22; ++i) {
      volatile float x = attn::bits_to_float(static_cast<uint32_t>(i));  // no folding into constants
      h = mix(h, bits(f(x)));
    }
    std::printf("block %llu %016llx\n", static_cast<unsigned long long>(b), static_cast<unsigned long long>(h));
  }
}

uint64_t splitmix_state = 12345;
double uniform53() {
  uint64_t z = (splitmix_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return static_cast<double>((z ^ (z >> 31)) >> 11) * (1.0 / 9007199254740992.0);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "expf") {
    every_float([](float x) { return std::exp(x); });
  } else if (mode == "replica") {
    every_float([](float x) { return attn::kernels::glibc_expf_fma(x); });
  } else if (mode == "powf") {
    for (float base : {10000.0f, 500000.0f, 2.0f, 0.5f}) {
      for (uint32_t b = 0; b < (0x3f800000u >> 23); ++b) {  // [0, 1) in blocks of 2^23
        uint64_t h = kFnvStart;
        for (uint32_t u = b << 23; u < (b + 1) << 23; ++u) {
          volatile float vb = base;
          h = mix(h, bits(std::pow(static_cast<float>(vb), attn::bits_to_float(u))));
        }
        std::printf("powf %g block %u %016llx\n", base, b, static_cast<unsigned long long>(h));
      }
    }
  } else if (mode == "pow10") {
    for (int k = 1; k <= 38; ++k) {
      volatile double ten = 10.0;
      std::printf("pow10 %d %a\n", k, std::pow(static_cast<double>(ten), k));
    }
  } else if (mode == "normal") {
    uint64_t hd = kFnvStart, hf = kFnvStart;
    for (long i = 1; i <= 40000000; ++i) {
      const double u1 = uniform53(), u2 = uniform53();
      const double r = std::sqrt(-2.0 * std::log1p(-u2)), theta = 2.0 * M_PI * u1;
      const double a = r * std::cos(theta), b = r * std::sin(theta);
      hd = mix(mix(hd, bits(a)), bits(b));
      hf = mix(mix(hf, bits(static_cast<float>(a))), bits(static_cast<float>(b)));
      if (i % 4000000 == 0) {
        std::printf("double %ld %016llx\n", i, static_cast<unsigned long long>(hd));
        std::printf("float %ld %016llx\n", i, static_cast<unsigned long long>(hf));
      }
    }
  } else if (mode == "printf") {
    // The printer's snprintf specs (src/render/torch_print.cpp) on the decimal ties they round
    // (odd multiples of 1/32 at 4 decimals, six-digit integers ending in 5 at 5 significant
    // digits) and on 4 million random finite floats.
    uint64_t h = kFnvStart;
    auto print_all = [&](double v) {
      for (const char* spec : {"%.*f", "%.*e"})
        for (int precision : {0, 4, 8}) {
          char buf[512];
          std::snprintf(buf, sizeof buf, spec, precision, v);
          for (const char* p = buf; *p; ++p) h = mix(h, static_cast<unsigned char>(*p));
          h = mix(h, 0xff);
        }
    };
    for (long m = -(1L << 17); m < (1L << 17); ++m) print_all(static_cast<float>(m / 32.0));
    std::printf("printf ties of 4 decimals %016llx\n", static_cast<unsigned long long>(h));
    for (long n = 100005; n < 1000000; n += 10) print_all(static_cast<float>(n));
    std::printf("printf ties of 5 digits %016llx\n", static_cast<unsigned long long>(h));
    for (long i = 1; i <= 4000000; ++i) {
      const float f = attn::bits_to_float(static_cast<uint32_t>(uniform53() * 4294967296.0));
      if (std::isfinite(f)) print_all(f);
      if (i % 1000000 == 0) std::printf("printf random %ld %016llx\n", i, static_cast<unsigned long long>(h));
    }
  } else if (mode == "normal-parts") {
    for (long i = 0; i < 1000000; ++i) {  // the first million draws, part by part
      const double u1 = uniform53(), u2 = uniform53(), theta = 2.0 * M_PI * u1;
      std::printf("%a %a %a\n", std::log1p(-u2), std::cos(theta), std::sin(theta));
    }
  } else {
    std::fprintf(stderr, "usage: %s expf|replica|powf|pow10|normal|normal-parts|printf\n", argv[0]);
    return 2;
  }
  return 0;
}
