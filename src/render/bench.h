// attn-walk bench's report (bench/bench.h) as text for the terminal and as JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "bench/bench.h"

namespace attn {

// The sizes and seed, the timings, the rate (and, if measured, the FMA probe's peak and the
// register tile's own rate), the peak RSS, and y's shape, sums and first values.
std::string render_bench_text(const BenchReport& r);

// The same as one JSON object, keys in a fixed order: median_ms, min_ms, gflops,
// gflop_per_forward, gflops_pytorch_count, [peak_gflops, peak_fraction, tile_gflops,
// tile_fraction], threads, sum, abs_sum, first, peak_rss_mib, shape, repeat, isa; with --gpt,
// gpt {...}; with --backward, backward {path, bits_checked, bits_equal, [check_peak_rss_mib],
// digests, [parts_ms]}. peak_rss_mib is the timed runs' own (bench.h).
nlohmann::ordered_json bench_json(const BenchReport& r);
// bench_json(r) indented by two, and a newline: `attn-walk bench --format json`.
std::string render_bench_json(const BenchReport& r);

}  // namespace attn
