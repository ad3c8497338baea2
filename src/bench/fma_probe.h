// The machine's single-precision FMA peak, measured rather than assumed: every thread runs
// independent chains of fused multiply-adds on the widest vectors of the ISA the kernels
// use, enough chains to hide the FMA latency on both pipes. The bench reports its rate as
// a fraction of this.
#pragma once

#include <cstdint>

#include "kernels/cpu.h"

namespace attn {

// GFLOP/s (2 per multiply-add and lane) of `threads` threads running the probe for `isa`.
double fma_peak_gflops(kernels::Isa isa, int threads);

namespace probe_detail {
// One thread's work: `iterations` rounds of 16 independent FMA chains; returns FLOPs done.
// The value returned through `sink` keeps the compiler from dropping the chains.
double fma_chains_avx512(int64_t iterations, float* sink);
double fma_chains_avx2(int64_t iterations, float* sink);
double fma_chains_scalar(int64_t iterations, float* sink);
}  // namespace probe_detail

}  // namespace attn
