#include "bench/fma_probe.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>
#include <vector>

#include "torch/fma32.h"

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

}  // namespace

double fma_peak_gflops(kernels::Isa isa, int threads) {
  const auto chains = chains_for(isa);
  threads = std::max(1, threads);
  // Each thread runs on its own (not through the kernels' pool, whose wake-up cost is part of
  // what the bench measures); the best of a few short rounds, to step over a noisy neighbour.
  constexpr int64_t kIterations = 4'000'000;
  double best = 0.0;
  for (int round = 0; round < 3; ++round) {
    std::vector<float> sinks(static_cast<size_t>(threads));
    std::vector<double> flops(static_cast<size_t>(threads));
    std::atomic<int> ready{0};
    std::atomic<bool> go{false};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        ready.fetch_add(1);
        while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
        flops[static_cast<size_t>(t)] = chains(kIterations, &sinks[static_cast<size_t>(t)]);
      });
    while (ready.load() < threads) std::this_thread::yield();
    const auto t0 = std::chrono::steady_clock::now();
    go.store(true, std::memory_order_release);
    for (auto& th : pool) th.join();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    double total = 0.0;
    for (double f : flops) total += f;
    best = std::max(best, total / seconds / 1e9);
  }
  return best;
}

double peak_at_least(double reading, double rate, int retries, const std::function<double()>& probe) {
  for (int i = 0; i < retries && reading < rate; ++i) reading = std::max(reading, probe());
  return reading;
}

}  // namespace attn
