// attn-walk bench: the efficient MultiHeadAttention forward at GPT-2 sizes, timed.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"
#include "weights/gpt_weights.h"  // GptConfig

namespace attn {

struct BenchOptions {
  int64_t tokens = 1024;  // T
  int64_t d_model = 768;  // D (d_in = d_out)
  int64_t heads = 12;     // H
  int64_t batch = 1;      // B
  int64_t repeat = 10;    // timed forwards after one warm-up
  int64_t threads = 0;    // 0: all cores
  uint64_t seed = 123;
  std::string format = "text";  // which renderer prints the report (render/bench.h); the CLI's choice
  bool probe = true;            // measure the FMA peak and report the rate as a fraction of it
  std::string save_output;      // write y to this .npy file, to compare every element with a peer
  bool backward = false;        // time the forward plus y.backward(grad_y) (a training step's gradients)
  bool gpt = false;             // time chapter 4's whole GPTModel forward on `weights` instead (bench/gpt_bench.h)
  std::string weights;          // --weights FILE: the model --gpt runs (heads: `heads`)
};

// Peak resident memory of this program so far, in MiB (not of the process it was exec'd from).
double peak_rss_mib();

// What a run measured: the timings, the rate against the work done, and enough of y to
// check it against PyTorch's. run_bench computes it; render/bench.h prints it as text or JSON.
struct BenchReport {
  BenchOptions options;    // the sizes, seed and repeat count as run
  int threads = 0;         // the threads the forwards ran on
  std::string isa;         // the products' kernels (kernels::gemm_kernel_name): "avx512", "avx2",
                           // "scalar"; in the page "simd128_relaxed_madd" or "simd128_exact_emulation"
  double median_ms = 0.0;  // of the timed forwards
  double min_ms = 0.0;
  double gflop_per_forward = 0.0;     // the work one forward does (bench.cpp's work_flops)
  double gflops = 0.0;                // that work per second at the median time
  double gflops_pytorch_count = 0.0;  // the rate counting PyTorch's full (T, T) products
  // The FMA probe's peak and the rate as a fraction of it; only if options.probe.
  double peak_gflops = 0.0;
  double peak_fraction = 0.0;
  // The register tile alone on operands in L1 (tile_ceiling_gflops), every thread at once: about
  // the most a product reaches on this machine; and it as a fraction of the probe. Only if
  // options.probe.
  double tile_gflops = 0.0;
  double tile_fraction = 0.0;
  // The process's peak RSS by the end of the timed runs (set-up, warm-up and the timed forwards or
  // steps), read before anything the bench does after them: the bit check and the probe.
  double peak_rss_mib = 0.0;
  Shape shape;       // y's: (B, T, D)
  double sum = 0.0;  // of y's elements, in order
  double abs_sum = 0.0;
  std::vector<float> first;  // y's first (up to) eight values

  // With options.backward: each gradient (x, W_query, W_key, W_value, out_proj weight and bias)
  // and y, grad_y by digest, so that a peer's can be compared bit for bit; which backward was
  // timed; and whether its bits were checked against the reference backward.
  struct Digest {
    std::string name;
    Shape shape;
    std::string fnv1a64;  // of the float32 bytes (bench/mha_backward.h)
    double sum = 0.0;
  };
  std::vector<Digest> digests;
  std::string backward_path;  // "fused" (bench/fast_backward.h) or "reference"
  bool bits_checked = false;  // the timed gradients compared with mha_backward_reference's
  bool bits_equal = false;    // ... and found the same bits
  // With bits_checked: the process's peak RSS once the check has run. The reference backward
  // holds five (B, H, T, T) tensors, which the timed steps never do: their own peak is
  // peak_rss_mib.
  double check_peak_rss_mib = 0.0;
  // On the fused path: where a step's time goes, the median of each part over the timed steps
  // in ms, in the order a step runs them: "forward", then the backward's (bench/fast_backward.h:
  // "out_proj", "attention", "weights", "inputs").
  std::vector<std::pair<std::string, double>> parts_ms;
  // With options.gpt: the model's sizes, as its file gave them (y is then the logits).
  GptConfig gpt_model;
};

// y as a NumPy .npy file (float32, C order), for comparing every element with a peer.
void save_npy(const std::string& path, const Tensor& y);

// Runs the benchmark (and writes y to options.save_output if set).
BenchReport run_bench(const BenchOptions& opts);

}  // namespace attn
