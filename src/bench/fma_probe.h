// The machine's single-precision FMA peak, measured rather than assumed: every thread runs
// independent chains of fused multiply-adds on the widest vectors of the ISA the kernels
// use, enough chains to hide the FMA latency on both pipes. The bench reports its rate as
// a fraction of this.
#pragma once

#include <cstdint>
#include <functional>

#include "core/cpu.h"

namespace attn {

// GFLOP/s (2 per multiply-add and lane) of `threads` threads running the probe for `isa` at
// once: each thread's median rate over 200 chunks of about 1 ms, after 50 ms of the same
// chains, so that the reading is the sustained rate (with whatever clock the cores settle
// at under heavy vectors), not a burst. About a quarter of a second.
double fma_peak_gflops(kernels::Isa isa, int threads);

// The peak to report next to a measured `rate`: `reading`, or, while it is below the rate,
// the highest of up to `retries` more readings from `probe`. No forward can outrun the FMA
// peak, so a reading below the forward's own rate met a busier moment of the shared machine
// than the forwards did (the bench once printed "120% of it"); a peak is a maximum, and more
// readings can only bring it nearer. A reading at or above the rate is kept as it is.
double peak_at_least(double reading, double rate, int retries, const std::function<double()>& probe);

// The same, sustained and summed over every thread at once, for the register tile that every
// product runs (the active kernel's, through gemm_chains_packed_part) on operands small enough
// to stay in L1: 48 rows of A x 128 steps and a packed B of 128 x 32, product after product.
// No memory traffic beyond L1, so this is about the most the products reach on this core (a
// product with longer chains can pass it by a few percent); the gap between it and
// fma_peak_gflops is the cost of the tile's own loads and edges.
double tile_ceiling_gflops(int threads);

namespace probe_detail {
// One thread's work: `iterations` rounds of 16 independent FMA chains; returns FLOPs done.
// The value returned through `sink` keeps the compiler from dropping the chains.
double fma_chains_avx512(int64_t iterations, float* sink);
double fma_chains_avx2(int64_t iterations, float* sink);
double fma_chains_scalar(int64_t iterations, float* sink);
// `iterations` products (48 x 32 x 128) on the tile above, on this thread's own operands.
double tile_products(int64_t iterations, float* sink);
}  // namespace probe_detail

}  // namespace attn
