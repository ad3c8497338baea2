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
// Then the same k loop with other register tiles (rows x 16-float vectors), its operands in L1,
// as a fraction of the FMA-only loop's rate: whether another shape would do better.
// Last, in assembly so that the compiler adds nothing, the tile's k loop walking its panel
// (B 32 KiB, A 8 KiB) beside the same 16 multiply-adds on registers no load writes: whether
// the loads cost the FMAs by feeding them (latency, scheduling) or by being there at all.
#include <immintrin.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// Steps of the tile's loop; with Clocked, each step also waits on 4 dependent imuls.
// Not clang-format: it would move each #pragma GCC unroll to column 0, away from its loop.
// clang-format off
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
// clang-format on

template <bool Loads, bool Clocked>
double seconds(long n, const float* A, const float* B, float* C, uint64_t& x) {
  const double t0 = now();
  x = steps<Loads, Clocked>(n, A, B, C, x);
  return now() - t0;
}

// MR rows x NV vectors: per step NV loads of B, MR broadcasts of A, MR * NV multiply-adds;
// 256 steps per tile, then the accumulators are added to C, tile after tile over the same
// operands (A: MR x 256, B: 256 x 16 NV floats, at most 64 KiB). FLOP per second.
// Not clang-format: it would move each #pragma GCC unroll to column 0, away from its loop.
// clang-format off
template <int MR, int NV>
__attribute__((noinline)) double tile_rate(long tiles, const float* A, const float* B, float* C) {
  const double t0 = now();
  for (long t = 0; t < tiles; ++t) {
    __m512 acc[MR][NV];
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r)
#pragma GCC unroll 16
      for (int v = 0; v < NV; ++v) acc[r][v] = _mm512_setzero_ps();
#pragma GCC unroll 4
    for (int k = 0; k < 256; ++k) {
      __m512 b[NV];
#pragma GCC unroll 16
      for (int v = 0; v < NV; ++v) b[v] = _mm512_load_ps(B + (k * NV + v) * 16);
#pragma GCC unroll 16
      for (int r = 0; r < MR; ++r) {
        const __m512 a = _mm512_set1_ps(A[r * 256 + k]);
#pragma GCC unroll 16
        for (int v = 0; v < NV; ++v) acc[r][v] = _mm512_fmadd_ps(a, b[v], acc[r][v]);
      }
    }
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r)
#pragma GCC unroll 16
      for (int v = 0; v < NV; ++v)
        _mm512_store_ps(C + (r * NV + v) * 16, _mm512_add_ps(acc[r][v], _mm512_load_ps(C + (r * NV + v) * 16)));
  }
  return tiles * 256.0 * MR * NV * 32 / (now() - t0);
}
// clang-format on

// One k-step of the 8 x 32 tile in assembly: 2 vector loads of B (zmm0, zmm1) and 8 broadcasts
// of A (into zmm30, zmm31 in turn). Tile: the 16 FMAs use them. Unused: the same loads, the
// FMAs on zmm18 and zmm19, which no load writes. None: the FMAs alone.
// clang-format off
#define TC_LB(o) "vmovaps " #o "*128(%1),%%zmm0\n vmovaps " #o "*128+64(%1),%%zmm1\n"
#define TC_BC(o, r, reg) "vbroadcastss " #o "*32+" #r "*4(%2),%%zmm" #reg "\n"
#define TC_F(x, y, acc) "vfmadd231ps %%zmm" #x ",%%zmm" #y ",%%zmm" #acc "\n"
#define TC_ROWS(o, LOAD, X0, X1, Y0, Y1)                                                                    \
  LOAD(o, 0, 30) TC_F(X0, Y0, 2) TC_F(X1, Y0, 3) LOAD(o, 1, 31) TC_F(X0, Y1, 4) TC_F(X1, Y1, 5)               \
  LOAD(o, 2, 30) TC_F(X0, Y0, 6) TC_F(X1, Y0, 7) LOAD(o, 3, 31) TC_F(X0, Y1, 8) TC_F(X1, Y1, 9)               \
  LOAD(o, 4, 30) TC_F(X0, Y0, 10) TC_F(X1, Y0, 11) LOAD(o, 5, 31) TC_F(X0, Y1, 12) TC_F(X1, Y1, 13)           \
  LOAD(o, 6, 30) TC_F(X0, Y0, 14) TC_F(X1, Y0, 15) LOAD(o, 7, 31) TC_F(X0, Y1, 16) TC_F(X1, Y1, 17)
#define TC_NOLOAD(o, r, reg)
#define TC_TILE(o) TC_LB(o) TC_ROWS(o, TC_BC, 0, 1, 30, 31)
#define TC_UNUSED(o) TC_LB(o) TC_ROWS(o, TC_BC, 18, 18, 19, 19)
#define TC_NONE(o) TC_ROWS(o, TC_NOLOAD, 18, 18, 19, 19)
#define TC_CLOBBER                                                                                          \
  "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", \
      "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", "xmm19", "xmm30", "xmm31"
#define TC_Z(r) "vpxord %%zmm" #r ",%%zmm" #r ",%%zmm" #r "\n"
#define TC_ZERO                                                                                             \
  TC_Z(2) TC_Z(3) TC_Z(4) TC_Z(5) TC_Z(6) TC_Z(7) TC_Z(8) TC_Z(9) TC_Z(10) TC_Z(11) TC_Z(12) TC_Z(13) TC_Z(14) \
      TC_Z(15) TC_Z(16) TC_Z(17) TC_Z(18) TC_Z(19)
// 256 steps (4 per iteration) over B and A, `passes` times, each pass from zeroed registers
// (every value then stays normal: no slow subnormal arithmetic).
#define TC_WALK(name, STEP)                                                                                 \
  __attribute__((noinline)) void name(long passes, const float* B, const float* A) {                       \
    for (long p = 0; p < passes; ++p) {                                                                     \
      long m = 64;                                                                                          \
      const float *b = B, *a = A;                                                                           \
      asm volatile(TC_ZERO "1:\n" STEP(0) STEP(1) STEP(2) STEP(3) "add $512,%1\n add $128,%2\n dec %0\n jnz 1b\n" \
                   : "+r"(m), "+r"(b), "+r"(a)::TC_CLOBBER);                                                \
    }                                                                                                       \
  }
TC_WALK(walk_tile, TC_TILE)
TC_WALK(walk_unused, TC_UNUSED)
TC_WALK(walk_none, TC_NONE)
// clang-format on

double walk_seconds(void (*walk)(long, const float*, const float*), long passes, const float* B, const float* A) {
  const double t0 = now();
  walk(passes, B, A);
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
  // The shapes, against the FMA-only loop's rate (its clock measured above is the tiles' too).
  auto* A2 = static_cast<float*>(std::aligned_alloc(64, 16 * 256 * sizeof(float)));
  auto* B2 = static_cast<float*>(std::aligned_alloc(64, 256 * 64 * sizeof(float)));
  auto* C2 = static_cast<float*>(std::aligned_alloc(64, 16 * 64 * sizeof(float)));
  for (int i = 0; i < 16 * 256; ++i) A2[i] = 1e-3f;
  for (int i = 0; i < 256 * 64; ++i) B2[i] = 0.5f;
  for (int i = 0; i < 16 * 64; ++i) C2[i] = 0.0f;
  std::printf("register tiles (rows x vectors of 16), operands in L1, as %% of the FMA-only loop:\n");
  for (int round = 0; round < 3; ++round) {
    const double fma_only = flop / seconds<false, false>(n, A, B, C, x);
    const long tiles = 100'000;
    std::printf("8x2 (the products') %.0f%% | 6x4 %.0f%% | 8x3 %.0f%% | 12x2 %.0f%% | 14x2 %.0f%% | 4x4 %.0f%%\n",
                100 * tile_rate<8, 2>(tiles, A2, B2, C2) / fma_only, 100 * tile_rate<6, 4>(tiles, A2, B2, C2) / fma_only,
                100 * tile_rate<8, 3>(tiles, A2, B2, C2) / fma_only, 100 * tile_rate<12, 2>(tiles, A2, B2, C2) / fma_only,
                100 * tile_rate<14, 2>(tiles, A2, B2, C2) / fma_only, 100 * tile_rate<4, 4>(tiles, A2, B2, C2) / fma_only);
  }
  // B2 (64 KiB) and A2 (16 KiB) hold the walk's 32 KiB and 8 KiB.
  std::printf("the k loop in assembly, against the same FMAs without loads:\n");
  for (int round = 0; round < 3; ++round) {
    const long passes = 80'000;  // about 45 ms each
    const double none = walk_seconds(walk_none, passes, B2, A2);
    const double tile = walk_seconds(walk_tile, passes, B2, A2);
    const double unused = walk_seconds(walk_unused, passes, B2, A2);
    std::printf("FMA only %.0f GFLOP/s | the tile %.0f%% | its loads, which the FMAs do not use, %.0f%%\n",
                passes * 256.0 * 16 * 32 / none / 1e9, 100 * none / tile, 100 * none / unused);
  }
  std::printf("(%llu %g)\n", static_cast<unsigned long long>(x & 1), static_cast<double>(C[0] + C2[0]));
  for (float* p : {A, B, C, A2, B2, C2}) std::free(p);
}
