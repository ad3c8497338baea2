// attn-walk bench: the efficient MultiHeadAttention forward at GPT-2 sizes, timed.
#pragma once

#include <cstdint>
#include <string>

namespace attn {

struct BenchOptions {
  int64_t tokens = 1024;   // T
  int64_t d_model = 768;   // D (d_in = d_out)
  int64_t heads = 12;      // H
  int64_t batch = 1;       // B
  int64_t repeat = 10;     // timed forwards after one warm-up
  int64_t threads = 0;     // 0: all cores
  uint64_t seed = 123;
  std::string format = "text";
  bool probe = true;         // measure the FMA peak and report the rate as a fraction of it
  std::string save_output;   // write y to this .npy file, to compare every element with a peer
};

// Peak resident memory of this process so far, in MiB.
double peak_rss_mib();

// Runs the benchmark and returns the report (text or JSON) to print.
std::string run_bench(const BenchOptions& opts);

}  // namespace attn
