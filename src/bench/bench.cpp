// attn-walk bench: times MultiHeadAttention's forward at GPT-2 sizes, in PyTorch's order
// (torch.manual_seed(S); x = torch.randn(B, T, D); mha = MultiHeadAttention(D, D, T, 0.0, H);
// y = mha(x)), and reports the timings with enough of y to check it against PyTorch
// (render/bench.h prints the report).
#include "bench/bench.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "bench/fast_backward.h"
#include "bench/fast_forward.h"
#include "bench/gpt_bench.h"
#include "bench/mha_backward.h"
#include "bench/fma_probe.h"
#include "core/cpu.h"
#include "kernels/gemm.h"
#include "kernels/parallel.h"
#include "modules/chapter.h"
#include "core/output.h"
#include "torch/torch_random.h"

namespace attn {

double peak_rss_mib() {
  // VmHWM, this program's own high-water mark. getrusage's ru_maxrss also keeps the peak of the
  // image that exec replaced (Linux carries it across exec): started straight from a large
  // process (a notebook's Python, a benchmark script's), the bench would report that process's
  // size. ru_maxrss stays the answer where /proc is not there.
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmHWM:", 0) != 0) continue;
    const double kib = std::strtod(line.c_str() + 6, nullptr);  // "VmHWM:   123456 kB"
    if (kib > 0.0) return kib / 1024.0;
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux reports KiB
}

namespace {

// FLOPs of the work the forward does: four projections, 8·B·T·D², and per head the scores
// and the weighted sum over the causal half only, since the fused kernel never computes the
// masked entries: 2 products x 2 FLOPs x B·D·T(T+1)/2 multiply-adds, about 2·B·T²·D.
double work_flops(const BenchOptions& o) {
  const double B = static_cast<double>(o.batch), T = static_cast<double>(o.tokens),
               D = static_cast<double>(o.d_model);
  return 8.0 * B * T * D * D + 2.0 * 2.0 * B * D * T * (T + 1.0) / 2.0;
}

// The same forward as PyTorch computes it: the full (T, T) scores and weighted sum per head
// (the causal mask does not make PyTorch's products smaller). For comparing rates only.
double pytorch_flops(const BenchOptions& o) {
  const double B = static_cast<double>(o.batch), T = static_cast<double>(o.tokens),
               D = static_cast<double>(o.d_model);
  return 8.0 * B * T * D * D + 4.0 * B * T * T * D;
}

// With --backward, the work of y.backward(grad_y) too, the masked half skipped as in the
// forward: out_proj's two products and the three projections' six, 16·B·T·D², and per head
// grad_weights, grad_queries, grad_keys and grad_values over the causal half, 4·B·D·T(T+1).
double training_flops(const BenchOptions& o) {
  const double B = static_cast<double>(o.batch), T = static_cast<double>(o.tokens),
               D = static_cast<double>(o.d_model);
  return work_flops(o) + 16.0 * B * T * D * D + 4.0 * B * D * T * (T + 1.0);
}
double pytorch_training_flops(const BenchOptions& o) {
  const double B = static_cast<double>(o.batch), T = static_cast<double>(o.tokens),
               D = static_cast<double>(o.d_model);
  return pytorch_flops(o) + 16.0 * B * T * D * D + 8.0 * B * T * T * D;
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n == 0 ? 0.0 : n % 2 ? v[n / 2]
                              : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

// The median and fastest of `repeat` timed calls of step (after its warm-up).
struct Timings {
  double median = 0.0, min = 0.0;
};
Timings time_runs(int64_t repeat, const std::function<void()>& step) {
  std::vector<double> ms;
  for (int64_t r = 0; r < repeat; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    step();
    ms.push_back(ms_since(t0));
  }
  return {median_of(ms), *std::min_element(ms.begin(), ms.end())};
}

BenchReport::Digest digest_of(const std::string& name, const Tensor& t) {
  double sum = 0.0;
  for (float v : t.data) sum += v;
  return {name, t.shape, fnv1a64(t.data.data(), t.data.size()), sum};
}

bool same_tensor_bits(const Tensor& a, const Tensor& b) {
  return a.shape == b.shape && std::memcmp(a.data.data(), b.data.data(), a.data.size() * sizeof(float)) == 0;
}

// The reference backward holds five (B, H, T, T) tensors: checked up to GPT-2's 12 x 1024².
constexpr double kCheckedScores = 12.0 * 1024.0 * 1024.0;

// --backward: the forward plus y.backward(grad_y), timed, as
//   y = mha(x); grad_y = torch.randn_like(y); y.backward(grad_y)
// (grad_y drawn once, after the warm-up forward). The fused backward where it applies, its
// gradients then checked against the reference backward's bits; else the reference, timed.
Timings time_training(const BenchOptions& o, const MultiHeadAttention& mha, PreparedMultiHeadAttention& prepared,
                      TorchGenerator& gen, const Tensor& x, Tensor& y, BenchReport& r, MhaGradients& grads) {
  const Tensor grad_y = randn(gen, y.shape);
  PreparedMhaBackward prepared_backward(mha);
  const bool fused = prepared_backward.backward(prepared, x, grad_y, grads);  // also the warm-up
  const auto reference = [&](MhaGradients& out) {
    const MultiHeadAttention::Trace trace = mha.forward_traced(gen, x);
    y = trace.context_vecs;
    out = mha_backward_reference(mha, x, trace, grad_y);
  };
  if (!fused) reference(grads);
  std::vector<double> forward_ms;
  std::vector<BackwardParts> parts;
  const Timings t = time_runs(o.repeat, [&] {
    if (!fused) return reference(grads);
    const auto t0 = std::chrono::steady_clock::now();
    prepared.forward(gen, x, y);
    forward_ms.push_back(ms_since(t0));
    parts.emplace_back();
    prepared_backward.backward(prepared, x, grad_y, grads, &parts.back());
  });
  r.backward_path = fused ? "fused" : "reference";
  if (fused) {
    const auto median_part = [&](double BackwardParts::*part) {
      std::vector<double> ms;
      for (const BackwardParts& p : parts) ms.push_back(p.*part);
      return median_of(ms);
    };
    r.parts_ms = {{"forward", median_of(forward_ms)},
                  {"out_proj", median_part(&BackwardParts::out_proj)},
                  {"attention", median_part(&BackwardParts::attention)},
                  {"weights", median_part(&BackwardParts::weights)},
                  {"inputs", median_part(&BackwardParts::inputs)}};
  }
  r.peak_rss_mib = peak_rss_mib();  // the steps' own, before the check below holds its tensors
  const double scores = static_cast<double>(o.batch * o.heads) * static_cast<double>(o.tokens * o.tokens);
  if (fused && scores <= kCheckedScores) {
    MhaGradients want;
    reference(want);
    r.bits_checked = true;
    r.bits_equal = true;
    const auto got_named = grads.named(), want_named = want.named();
    for (size_t i = 0; i < got_named.size(); ++i)
      r.bits_equal = r.bits_equal && same_tensor_bits(*got_named[i].second, *want_named[i].second);
    prepared.forward(gen, x, y);  // y as the fused forward gives it (the same bits)
    r.check_peak_rss_mib = peak_rss_mib();
  }
  r.digests = {digest_of("y", y), digest_of("grad_y", grad_y)};
  for (const auto& [name, tensor] : grads.named()) r.digests.push_back(digest_of(name, *tensor));
  return t;
}

}  // namespace

void save_npy(const std::string& path, const Tensor& y) {
  std::string shape;
  for (int64_t d : y.shape) shape += std::to_string(d) + ", ";
  if (y.shape.size() > 1) shape.resize(shape.size() - 2);
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + shape + "), }";
  header.append(64 - (10 + header.size() + 1) % 64, ' ');
  header += '\n';
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
  bytes += static_cast<char>(header.size() & 0xff);
  bytes += static_cast<char>(header.size() >> 8);
  bytes += header;
  // y's floats are written from where they lie: a (1, 1024, 50257) GPT logits tensor is 206 MB.
  write_output_pieces(path, {bytes, std::string_view(reinterpret_cast<const char*>(y.data.data()),
                                                     y.data.size() * sizeof(float))});
}

BenchReport run_bench(const BenchOptions& o) {
  if (o.gpt) return run_gpt_bench(o);  // --gpt: the whole GPTModel on a weights file
  kernels::set_num_threads(static_cast<int>(o.threads));

  // PyTorch's order of random draws: the input first, then the module's parameters.
  TorchGenerator gen;
  gen.manual_seed(o.seed);
  const Tensor x = randn(gen, {o.batch, o.tokens, o.d_model});  // (B, T, D)
  const MultiHeadAttention mha(gen, o.d_model, o.d_model, o.tokens, 0.0, o.heads, false,
                               DropoutKernel::Default);

  // The module prepared once (its weights packed for the kernel), as an inference runtime
  // does; one warm-up forward (it also gives y), then the timed ones.
  PreparedMultiHeadAttention prepared(mha);
  Tensor y;
  prepared.forward(gen, x, y);
  BenchReport r;
  MhaGradients grads;
  const Timings timed = o.backward ? time_training(o, mha, prepared, gen, x, y, r, grads)
                                   : time_runs(o.repeat, [&] { prepared.forward(gen, x, y); });
  if (!o.backward) r.peak_rss_mib = peak_rss_mib();  // (time_training reads it before its check)
  const double median = timed.median;
  const double flops = o.backward ? training_flops(o) : work_flops(o);
  const double gflops = flops / (median * 1e6);
  if (!o.save_output.empty()) {
    save_npy(o.save_output, y);
    // With --backward, each gradient beside it: FILE.npy -> FILE.x.npy, FILE.W_query.weight.npy, ...
    const std::string& path = o.save_output;
    const std::string stem = path.size() > 4 && path.compare(path.size() - 4, 4, ".npy") == 0
                                 ? path.substr(0, path.size() - 4)
                                 : path;
    if (o.backward)
      for (const auto& [name, tensor] : grads.named()) save_npy(stem + "." + name + ".npy", *tensor);
  }

  double sum = 0.0, abs_sum = 0.0;
  for (float v : y.data) {
    sum += v;
    abs_sum += std::fabs(v);
  }
  r.options = o;
  r.shape = y.shape;
  r.sum = sum;
  r.abs_sum = abs_sum;
  r.first.assign(y.data.begin(), y.data.begin() + std::min<int64_t>(8, y.numel()));
  r.threads = kernels::num_threads();
  r.isa = kernels::gemm_kernel_name();
  r.median_ms = median;
  r.min_ms = timed.min;
  r.gflop_per_forward = flops / 1e9;
  r.gflops = gflops;
  r.gflops_pytorch_count = (o.backward ? pytorch_training_flops(o) : pytorch_flops(o)) / (median * 1e6);
  // Measured after the timed runs, so the probe's own threads do not warm or disturb them.
  if (o.probe) {
    const auto probe = [&] { return fma_peak_gflops(kernels::active_isa(), r.threads); };
    r.peak_gflops = peak_at_least(probe(), gflops, 4, probe);
    r.peak_fraction = gflops / r.peak_gflops;
    r.tile_gflops = tile_ceiling_gflops(r.threads);
    r.tile_fraction = r.tile_gflops / r.peak_gflops;
  }
  return r;
}

}  // namespace attn
