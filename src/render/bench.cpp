#include "render/bench.h"

#include <fmt/format.h>

namespace attn {

namespace {

// The probe's lines of the text report: the peak, then the register tile's own rate. A rate
// still above the peak after the re-readings says the machine was busier while probing than
// while timing: the fraction means little then.
std::string peak_line(const BenchReport& r) {
  std::string line = fmt::format("  peak     {:.1f} GFLOP/s measured by the FMA probe ({}, {} threads): {:.1f}% of it\n",
                                 r.peak_gflops, r.isa, r.threads, 100.0 * r.gflops / r.peak_gflops);
  if (r.gflops > r.peak_gflops)
    line += "           (above 100%: the probe kept meeting a busier moment of the machine than the forwards; run again)\n";
  line += fmt::format("  tile     {:.1f} GFLOP/s: the products' register tile alone, its operands in L1 ({:.1f}% of the peak); the {} is at {:.1f}% of it\n",
                      r.tile_gflops, 100.0 * r.tile_fraction, r.options.backward ? "training step" : "forward",
                      100.0 * r.gflops / r.tile_gflops);
  return line;
}

// bench --gpt: the model, the timings, the logits' digest.
std::string render_gpt_bench_text(const BenchReport& r) {
  const BenchOptions& o = r.options;
  const GptConfig& m = r.gpt_model;
  std::string out = fmt::format(
      "GPTModel forward ({l} blocks, emb_dim {d}, {h} heads, vocab {v}, context {c}) of {w}\n"
      "on {t} token ids ((seed {s} + 9973 i) % {v}), eval(), threads {th} ({isa}), {r} timed runs after one warm-up\n"
      "  median   {med:.2f} ms\n"
      "  min      {min:.2f} ms\n"
      "  rate     {gf:.1f} GFLOP/s ({gfl:.2f} GFLOP per forward: the blocks' products, full (T, T) attention, out_head)\n"
      "  peak RSS {rss:.1f} MiB\n",
      fmt::arg("l", m.n_layers), fmt::arg("d", m.emb_dim), fmt::arg("h", m.n_heads), fmt::arg("v", m.vocab_size),
      fmt::arg("c", m.context_length), fmt::arg("w", o.weights), fmt::arg("t", o.tokens), fmt::arg("s", o.seed),
      fmt::arg("th", r.threads), fmt::arg("isa", r.isa), fmt::arg("r", o.repeat), fmt::arg("med", r.median_ms),
      fmt::arg("min", r.min_ms), fmt::arg("gf", r.gflops), fmt::arg("gfl", r.gflop_per_forward),
      fmt::arg("rss", r.peak_rss_mib));
  for (const auto& d : r.digests) {
    std::string shape;
    for (int64_t n : d.shape) shape += (shape.empty() ? "" : ", ") + std::to_string(n);
    out += fmt::format("{}: shape ({}), fnv1a64 {}, sum {:.6f}, abs sum {:.6f}\nfirst values:", d.name, shape,
                       d.fnv1a64, r.sum, r.abs_sum);
  }
  for (float v : r.first) out += fmt::format(" {:.6g}", v);
  return out + "\n";
}

}  // namespace

std::string render_bench_text(const BenchReport& r) {
  const BenchOptions& o = r.options;
  if (o.gpt) return render_gpt_bench_text(r);
  std::string out = fmt::format(
      "MultiHeadAttention({d}, {d}, {t}, 0.0, num_heads={h}) {what} on torch.randn({b}, {t}, {d}), seed {s}\n"
      "threads {th} ({isa}), {r} timed runs after one warm-up\n"
      "  median   {med:.2f} ms\n"
      "  min      {min:.2f} ms\n"
      "  rate     {gf:.1f} GFLOP/s ({gfl:.2f} GFLOP per {per}: the projections and the causal half of the attention{bw})\n"
      "{peak}"
      "  peak RSS {rss:.1f} MiB{check_rss}\n"
      "y: shape ({b}, {t}, {d}), sum {sum:.6f}, abs sum {abs:.6f}\n"
      "first values:",
      fmt::arg("d", o.d_model), fmt::arg("t", o.tokens), fmt::arg("h", o.heads), fmt::arg("b", o.batch),
      fmt::arg("s", o.seed), fmt::arg("what", o.backward ? "forward and backward" : "forward"),
      fmt::arg("bw", o.backward ? ", forward and backward" : ""), fmt::arg("per", o.backward ? "step" : "forward"), fmt::arg("th", r.threads), fmt::arg("isa", r.isa), fmt::arg("r", o.repeat),
      fmt::arg("med", r.median_ms), fmt::arg("min", r.min_ms), fmt::arg("gf", r.gflops),
      fmt::arg("peak", o.probe ? peak_line(r) : std::string()),
      fmt::arg("gfl", r.gflop_per_forward), fmt::arg("rss", r.peak_rss_mib),
      fmt::arg("check_rss", r.bits_checked ? fmt::format(" by the end of the timed steps; {:.1f} MiB once the bit check's "
                                                         "reference backward, with its (B, H, T, T) tensors, has run",
                                                         r.check_peak_rss_mib)
                                           : std::string()),
      fmt::arg("sum", r.sum), fmt::arg("abs", r.abs_sum));
  for (float v : r.first) out += fmt::format(" {:.6g}", v);
  out += "\n";
  if (!o.backward) return out;
  out += fmt::format("backward ({} path): y.backward(grad_y), grad_y = torch.randn_like(y) drawn after the forward\n",
                     r.backward_path);
  out += r.bits_checked ? fmt::format("  bits: {} the reference backward's, every gradient\n",
                                      r.bits_equal ? "equal to" : "DIFFERENT from")
                        : std::string("  bits: not checked against the reference backward (") +
                              (r.backward_path == "reference" ? "it is the reference" : "too large to hold its (B, H, T, T) tensors") +
                              ")\n";
  if (!r.parts_ms.empty()) {
    // The step's time by part (medians over the timed steps): what each costs on this host.
    std::string line = "  parts    ";
    for (size_t i = 0; i < r.parts_ms.size(); ++i)
      line += fmt::format("{}{} {:.2f}", i ? " + " : "", r.parts_ms[i].first, r.parts_ms[i].second);
    out += line + " ms (medians; forward, then the backward: out_proj's gradients and context's, the heads, the "
                  "projections' weight gradients, x's gradient)\n";
  }
  for (const auto& d : r.digests) {
    std::string shape;
    for (int64_t n : d.shape) shape += (shape.empty() ? "" : ", ") + std::to_string(n);
    out += fmt::format("  {:<16} ({}) fnv1a64 {} sum {:.6f}\n", d.name, shape, d.fnv1a64, d.sum);
  }
  return out;
}

nlohmann::ordered_json bench_json(const BenchReport& r) {
  nlohmann::ordered_json j;
  j["median_ms"] = r.median_ms;
  j["min_ms"] = r.min_ms;
  j["gflops"] = r.gflops;
  j["gflop_per_forward"] = r.gflop_per_forward;
  j["gflops_pytorch_count"] = r.gflops_pytorch_count;
  if (r.options.probe) {
    j["peak_gflops"] = r.peak_gflops;
    j["peak_fraction"] = r.peak_fraction;
    j["tile_gflops"] = r.tile_gflops;
    j["tile_fraction"] = r.tile_fraction;
  }
  j["threads"] = r.threads;
  j["sum"] = r.sum;
  j["abs_sum"] = r.abs_sum;
  j["first"] = r.first;
  j["peak_rss_mib"] = r.peak_rss_mib;
  j["shape"] = r.shape;
  j["repeat"] = r.options.repeat;
  j["isa"] = r.isa;
  if (r.options.gpt) {
    const GptConfig& m = r.gpt_model;
    // clang-format off
    j["gpt"] = {{"weights", r.options.weights}, {"tokens", r.options.tokens}, {"seed", r.options.seed},
                {"n_layers", m.n_layers}, {"emb_dim", m.emb_dim}, {"n_heads", m.n_heads},
                {"vocab_size", m.vocab_size}, {"context_length", m.context_length},
                {"logits_fnv1a64", r.digests.empty() ? std::string() : r.digests.front().fnv1a64}};
    // clang-format on
  }
  if (r.options.backward) {
    nlohmann::ordered_json b;
    b["path"] = r.backward_path;
    b["bits_checked"] = r.bits_checked;
    b["bits_equal"] = r.bits_equal;
    if (r.bits_checked) b["check_peak_rss_mib"] = r.check_peak_rss_mib;
    for (const auto& d : r.digests)
      b["digests"][d.name] = {{"shape", d.shape}, {"fnv1a64", d.fnv1a64}, {"sum", d.sum}};
    for (const auto& [name, ms] : r.parts_ms) b["parts_ms"][name] = ms;
    j["backward"] = b;
  }
  return j;
}

std::string render_bench_json(const BenchReport& r) { return bench_json(r).dump(2) + "\n"; }

}  // namespace attn
