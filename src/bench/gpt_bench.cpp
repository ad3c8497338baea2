// attn-walk bench --gpt: times GPTModel(in_idx) as the book runs it in eval() under
// torch.no_grad() (model = GPTModel(cfg); model.load_state_dict(...); logits = model(in_idx)),
// on the walk's own model code, and reports the logits' digest for a peer to compare.
#include "bench/gpt_bench.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include "bench/mha_backward.h"  // fnv1a64
#include "core/output.h"
#include "kernels/parallel.h"
#include "kernels/gemm.h"
#include "kernels/sgemm.h"
#include "modules/gpt.h"
#include "weights/gpt_weights.h"

namespace attn {

namespace {

double gpt_ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// FLOPs of one forward as PyTorch computes it: per block the four attention projections
// (8·T·D²), the full (T, T) scores and weighted sums (4·T²·D), the feed-forward (16·T·D²);
// then out_head (2·T·D·V). Elementwise work is not counted.
double gpt_flops(const GptConfig& m, int64_t tokens) {
  const double T = static_cast<double>(tokens), D = static_cast<double>(m.emb_dim),
               V = static_cast<double>(m.vocab_size), L = static_cast<double>(m.n_layers);
  return L * (24.0 * T * D * D + 4.0 * T * T * D) + 2.0 * T * D * V;
}

}  // namespace

std::vector<int64_t> gpt_bench_ids(int64_t tokens, int64_t vocab_size, uint64_t seed) {
  std::vector<int64_t> ids(static_cast<size_t>(tokens));
  const uint64_t vocab = static_cast<uint64_t>(vocab_size);
  for (int64_t i = 0; i < tokens; ++i)
    ids[static_cast<size_t>(i)] = static_cast<int64_t>((seed % vocab + 9973u * static_cast<uint64_t>(i) % vocab) % vocab);
  return ids;
}

BenchReport run_gpt_bench(const BenchOptions& o) {
  kernels::set_num_threads(static_cast<int>(o.threads));
  const GptParams params = load_gpt_weights(o.weights, o.heads);
  if (o.tokens > params.cfg.context_length)
    throw WeightsError("--tokens: " + std::to_string(o.tokens) + " tokens, more than the model's context_length " +
                           std::to_string(params.cfg.context_length),
                       /*usage=*/true);
  // Each weight packed for the matrix kernel once, at the warm-up, and kept (as ONNX Runtime
  // prepacks a session's constant weights); the same bits as packing it for every product.
  kernels::PackedWeights packed;
  GptModel model(params);
  model.packed_weights = &packed;
  const std::vector<int64_t> ids = gpt_bench_ids(o.tokens, params.cfg.vocab_size, o.seed);

  Tensor logits = model.forward(ids);  // the warm-up: it also touches the file's pages
  std::vector<double> ms;
  for (int64_t r = 0; r < o.repeat; ++r) {
    // The last logits go first, as a loop that keeps only the newest does, so that the next
    // forward's (1, T, vocab_size) can take their memory instead of fresh pages.
    logits = Tensor();
    const auto t0 = std::chrono::steady_clock::now();
    logits = model.forward(ids);
    ms.push_back(gpt_ms_since(t0));
  }
  std::sort(ms.begin(), ms.end());
  const size_t n = ms.size();

  BenchReport r;
  r.options = o;
  r.threads = kernels::num_threads();
  r.isa = kernels::gemm_kernel_name();
  r.median_ms = n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2.0;
  r.min_ms = ms.front();
  const double flops = gpt_flops(params.cfg, o.tokens);
  r.gflop_per_forward = flops / 1e9;
  r.gflops = r.gflops_pytorch_count = flops / (r.median_ms * 1e6);
  r.shape = logits.shape;
  for (const float v : logits.data) {
    r.sum += v;
    r.abs_sum += std::fabs(v);
  }
  r.first.assign(logits.data.begin(), logits.data.begin() + std::min<int64_t>(8, logits.numel()));
  r.digests.push_back({"logits", logits.shape, fnv1a64(logits.data.data(), logits.data.size()), r.sum});
  r.gpt_model = params.cfg;
  if (!o.save_output.empty()) save_npy(o.save_output, logits);
  r.peak_rss_mib = peak_rss_mib();
  return r;
}

}  // namespace attn
