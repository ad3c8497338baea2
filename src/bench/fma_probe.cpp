#include "bench/fma_probe.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>
#include <vector>

#include "kernels/gemm.h"
#include "torch/fma32.h"
#include "torch/sgemm_order.h"

namespace attn {

namespace probe_detail {

double fma_chains_scalar(int64_t iterations, float* sink) {
  float acc[8];
  for (int i = 0; i < 8; ++i) acc[i] = 1.0f + 1e-3f * static_cast<float>(i);
  for (int64_t it = 0; it < iterations; ++it)
    for (float& v : acc) v = fma32(v, 0.999999f, 1e-7f);
  float s = 0.0f;
  for (float v : acc) s += v;
  *sink = s;
  return 2.0 * 8.0 * static_cast<double>(iterations);
}

double tile_products(int64_t iterations, float* sink) {
  // A (48 x 128, 24 KiB) and the packed B (128 x 32, 16 KiB) fit in L1 together; C is 6 KiB.
  // One K-block of 128 steps, C = chain + 0: each tile is zeroed, runs its chains and stores.
  constexpr int64_t M = 48, N = 32, K = 128;
  struct Operands {
    std::vector<float, kernels::CacheLineAllocator<float>> a, b, c;
    kernels::PackedB packed;
    Operands() : a(M * K), b(K * N), c(M * N) {
      for (size_t i = 0; i < a.size(); ++i) a[i] = 1.0f + 1e-3f * static_cast<float>(i % 97);
      for (size_t i = 0; i < b.size(); ++i) b[i] = 1e-3f * static_cast<float>(i % 89);
      kernels::pack_b(K, N, kernels::ConstMat{b.data(), N, false}, kernels::ChainOrder{{0, K}, true}, packed);
    }
  };
  thread_local Operands o;
  for (int64_t it = 0; it < iterations; ++it)
    kernels::gemm_chains_packed_part(0, M, 0, N, kernels::ConstMat{o.a.data(), K, false}, o.packed, o.c.data(), N,
                                     kernels::zero_row(N));
  *sink = o.c[0];
  return 2.0 * M * N * K * static_cast<double>(iterations);
}

}  // namespace probe_detail

namespace {

double (*chains_for(kernels::Isa isa))(int64_t, float*) {
#if defined(__x86_64__)
  if (isa == kernels::Isa::Avx512) return probe_detail::fma_chains_avx512;
  if (isa == kernels::Isa::Avx2) return probe_detail::fma_chains_avx2;
#endif
  (void)isa;
  return probe_detail::fma_chains_scalar;
}

// One thread's sustained rate: chains for kWarmup (so that the core has settled at the clock
// that heavy vectors get, as it has during a forward), then kChunks chunks of about
// kChunk each, timed one by one; the median chunk's rate. The median steps over chunks that
// a neighbour on the shared machine interrupted, which a rate over the whole window would
// count; the best chunk would report a passing burst of clock the forward does not keep.
double sustained_gflops(double (*chains)(int64_t, float*), float* sink) {
  using clock = std::chrono::steady_clock;
  constexpr auto kWarmup = std::chrono::milliseconds(50);
  constexpr auto kChunk = std::chrono::microseconds(1000);
  constexpr int kChunks = 200;
  const auto seconds_since = [](clock::time_point t0) { return std::chrono::duration<double>(clock::now() - t0).count(); };
  // Chunk length: scaled from a short first run, then kept for the whole window.
  int64_t iterations = 10'000;
  auto t0 = clock::now();
  chains(iterations, sink);
  iterations = std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(iterations) *
                                                         std::chrono::duration<double>(kChunk).count() / seconds_since(t0)));
  for (t0 = clock::now(); clock::now() - t0 < kWarmup;) chains(iterations, sink);
  std::vector<double> rates(kChunks);
  for (double& rate : rates) {
    const auto c0 = clock::now();
    const double flops = chains(iterations, sink);
    rate = flops / seconds_since(c0) / 1e9;
  }
  std::nth_element(rates.begin(), rates.begin() + kChunks / 2, rates.end());
  return rates[kChunks / 2];
}

// Every thread at once, each on its own thread (not through the kernels' pool, whose wake-up
// cost is part of what the bench measures), as the forward keeps every core busy: the sum of
// their sustained rates of `work`.
double sustained_on_every_thread(double (*work)(int64_t, float*), int threads) {
  threads = std::max(1, threads);
  std::vector<float> sinks(static_cast<size_t>(threads));
  std::vector<double> rates(static_cast<size_t>(threads));
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      ready.fetch_add(1);
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      rates[static_cast<size_t>(t)] = sustained_gflops(work, &sinks[static_cast<size_t>(t)]);
    });
  while (ready.load() < threads) std::this_thread::yield();
  go.store(true, std::memory_order_release);
  for (auto& th : pool) th.join();
  double total = 0.0;
  for (double r : rates) total += r;
  return total;
}

}  // namespace

double fma_peak_gflops(kernels::Isa isa, int threads) { return sustained_on_every_thread(chains_for(isa), threads); }

double tile_ceiling_gflops(int threads) { return sustained_on_every_thread(probe_detail::tile_products, threads); }

double peak_at_least(double reading, double rate, int retries, const std::function<double()>& probe) {
  for (int i = 0; i < retries && reading < rate; ++i) reading = std::max(reading, probe());
  return reading;
}

}  // namespace attn
