// The page's expf (src/kernels/softmax_simd128.cpp's exp_shifted_simd128, SIMD128 with its
// multiply-adds emulated in double) against sleef_expf, the definition, for every float32
// input: all 2^32 bit patterns, NaNs included (a NaN must come back as a NaN). Built
// with Debian's emscripten and run in Node (docs/performance.md; about 2.5 minutes):
//
//   NODE_PATH=/usr/share/nodejs emcc -std=c++17 -O2 -msimd128 -sSINGLE_FILE -Isrc \
//     tests/bench/exp_simd128_all.cpp src/kernels/softmax_simd128.cpp src/torch/torch_kernels.cpp \
//     src/torch/fma32.cpp src/torch/libc_math.cpp -o /tmp/exp_all.js && node /tmp/exp_all.js
//
// `node /tmp/exp_all.js 97` tries every 97th input instead (44 million, a few seconds): the
// test suite's run (tests/CMakeLists.txt, page_expf_simd128).
//
// Prints how many inputs give other bits than sleef_expf(x - 0) (and the first few), and exits 1
// if any; a NaN returned as a NaN with another payload is counted apart, not as a difference.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "kernels/softmax_detail.h"
#include "torch/torch_kernels.h"

static unsigned bits_of(float x) {
  uint32_t b;
  std::memcpy(&b, &x, 4);
  return b;
}

int main(int argc, char** argv) {
  // Every input, or (with an argument) every stride-th: the test suite's quicker sample.
  const uint64_t stride = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1;
  if (stride == 0) return 2;
  constexpr uint64_t kChunk = 1 << 20;
  std::vector<float> in(kChunk), out(kChunk);
  volatile float zero = 0.0f;  // exp_shifted computes x - shift first, as the softmax does
  const float shift = zero;
  uint64_t differ = 0, nan_payloads = 0, tried = 0;
  for (uint64_t next = 0; next < (uint64_t{1} << 32);) {
    uint64_t count = 0;
    for (; count < kChunk && next < (uint64_t{1} << 32); ++count, next += stride) {
      const uint32_t bits = static_cast<uint32_t>(next);
      std::memcpy(&in[count], &bits, 4);
    }
    tried += count;
    attn::kernels::detail::exp_shifted_simd128(in.data(), out.data(), static_cast<int64_t>(count), shift);
    for (uint64_t i = 0; i < count; ++i) {
      const float want = attn::kernels::sleef_expf(in[i] - shift);
      uint32_t a, b;
      std::memcpy(&a, &out[i], 4);
      std::memcpy(&b, &want, 4);
      if (a == b) continue;
      // A NaN must stay a NaN; which NaN, WebAssembly leaves to the engine (counted apart).
      if (out[i] != out[i] && want != want) {
        ++nan_payloads;
        continue;
      }
      if (++differ <= 5) std::printf("x = %a (0x%08x): got 0x%08x, sleef_expf 0x%08x\n", in[i], bits_of(in[i]), a, b);
    }
  }
  std::printf("%llu of %llu inputs give other bits than sleef_expf (NaNs with another payload: %llu)\n",
              static_cast<unsigned long long>(differ), static_cast<unsigned long long>(tried),
              static_cast<unsigned long long>(nan_payloads));
  return differ == 0 ? 0 : 1;
}
