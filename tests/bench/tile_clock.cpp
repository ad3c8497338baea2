// Is the register tile slower than the FMA probe because the core clocks down under it, or
// because of the tile's own loads? A stand-alone check for AVX-512 x86 hosts (docs/performance.md):
//
//     g++ -O2 -mavx512f -mfma tests/bench/tile_clock.cpp -o /tmp/tile_clock && /tmp/tile_clock
//
// Two loops of 16 multiply-adds per step on 16 accumulators, as the products' 8 x 32 tile does:
//   - "FMA only": the operands are registers (what the probe runs);
//   - "FMA + loads": per step 2 vector loads of B and 8 broadcasts of A from memory, all in L1
//     (the tile's own k loop).
// Each runs twice. Once with a chain of 4 dependent integer multiplies per step (3 cycles
// each, on a port the vector work does not use): 12 cycles per step, so its time gives the
// clock while that work runs. And once without the chain: FLOP per cycle at that clock.
// If both loops show the same clock, the tile's gap to the probe is its loads, not the clock.
#include <immintrin.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// Steps of the tile's loop; with Clocked, each step also waits on 4 dependent imuls.
template <bool Loads, bool Clocked>
__attribute__((noinline)) uint64_t steps(long n, const float* A, const float* B, float* C, uint64_t x) {
  __m512 acc[8][2];
  for (auto& row : acc) row[0] = row[1] = _mm512_setzero_ps();
  __m512 a_reg[8];
  for (int r = 0; r < 8; ++r) a_reg[r] = _mm512_set1_ps(1e-3f * static_cast<float>(r));
  const __m512 b_reg0 = _mm512_set1_ps(0.5f), b_reg1 = _mm512_set1_ps(0.25f);
  for (long s = 0; s < n; ++s) {
    const int k = static_cast<int>(s & 255);  // 256 steps: B is 32 KiB, A 8 KiB
    const __m512 b0 = Loads ? _mm512_load_ps(B + k * 32) : b_reg0;
    const __m512 b1 = Loads ? _mm512_load_ps(B + k * 32 + 16) : b_reg1;
#pragma GCC unroll 8
    for (int r = 0; r < 8; ++r) {
      const __m512 a = Loads ? _mm512_set1_ps(A[r * 256 + k]) : a_reg[r];
      acc[r][0] = _mm512_fmadd_ps(a, b0, acc[r][0]);
      acc[r][1] = _mm512_fmadd_ps(a, b1, acc[r][1]);
    }
    if (Clocked) asm volatile("imul $3,%0,%0\n imul $3,%0,%0\n imul $3,%0,%0\n imul $3,%0,%0" : "+r"(x));
  }
  for (int r = 0; r < 8; ++r) {
    _mm512_store_ps(C + r * 32, acc[r][0]);
    _mm512_store_ps(C + r * 32 + 16, acc[r][1]);
  }
  return x;
}

template <bool Loads, bool Clocked>
double seconds(long n, const float* A, const float* B, float* C, uint64_t& x) {
  const double t0 = now();
  x = steps<Loads, Clocked>(n, A, B, C, x);
  return now() - t0;
}

}  // namespace

int main() {
  auto* A = static_cast<float*>(std::aligned_alloc(64, 8 * 256 * sizeof(float)));
  auto* B = static_cast<float*>(std::aligned_alloc(64, 256 * 32 * sizeof(float)));
  auto* C = static_cast<float*>(std::aligned_alloc(64, 8 * 32 * sizeof(float)));
  for (int i = 0; i < 8 * 256; ++i) A[i] = 1e-3f;
  for (int i = 0; i < 256 * 32; ++i) B[i] = 0.5f;
  const long n = 20'000'000;  // about 40 ms per loop
  const double flop = n * 16.0 * 32.0;
  uint64_t x = 1;
  std::printf("clock GHz (12 cycles per step)  |  FLOP per cycle at that clock (64 is the peak)\n");
  for (int round = 0; round < 4; ++round) {
    const double ghz_fma = n * 12.0 / seconds<false, true>(n, A, B, C, x) / 1e9;
    const double ghz_loads = n * 12.0 / seconds<true, true>(n, A, B, C, x) / 1e9;
    const double fpc_fma = flop / seconds<false, false>(n, A, B, C, x) / 1e9 / ghz_fma;
    const double fpc_loads = flop / seconds<true, false>(n, A, B, C, x) / 1e9 / ghz_loads;
    std::printf("FMA only %.2f GHz, FMA + loads %.2f GHz  |  FMA only %.1f, FMA + loads %.1f (%.0f%%)\n", ghz_fma,
                ghz_loads, fpc_fma, fpc_loads, 100.0 * fpc_loads / 64.0);
  }
  std::printf("(%llu)\n", static_cast<unsigned long long>(x & 1));
  std::free(A);
  std::free(B);
  std::free(C);
}
