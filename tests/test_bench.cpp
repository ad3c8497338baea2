// attn-walk bench: its report, and the fused forward it times, which must give the same
// bits as MultiHeadAttention's step-by-step forward in modules/chapter.cpp. Small sizes only; no
// timing is asserted.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>
#include <nlohmann/json.hpp>

#include "bench/bench.h"
#include "bench/fast_forward.h"
#include "bench/fma_probe.h"
#include "core/cpu.h"
#include "kernels/attention.h"
#include "kernels/parallel.h"
#include "modules/chapter.h"
#include "render/bench.h"
#include "run_process.h"
#include "test_util.h"
#include "torch/torch_random.h"

namespace attn {
namespace {

using test::bits;

void expect_same_bits(const Tensor& got, const Tensor& want, const std::string& what) {
  ASSERT_EQ(got.shape, want.shape) << what;
  size_t differ = 0, first = 0;
  for (size_t i = 0; i < got.data.size(); ++i)
    if (bits(got.data[i]) != bits(want.data[i]) && !differ++) first = i;
  EXPECT_EQ(differ, 0u) << what << ": first difference at " << first << ": " << got.data[first] << " vs "
                        << want.data[first];
}

struct Sizes {
  int64_t B, T, D, H;
  bool qkv_bias = false;
};

TEST(FastForward, EqualsTheStepByStepForward) {
  const Sizes sizes[] = {{1, 128, 768, 12},      // GPT-2 heads (head_dim 64), T just above the small kernels
                         {2, 150, 96, 2},        // batch of two (keys copied, not viewed), head_dim 48
                         {1, 300, 64, 2},        // head_dim 32, rows not a multiple of the row block
                         {3, 70, 256, 4},        // head_dim 64, T < 128: the context product's small kernel
                         {1, 16, 8, 2},          // tiny: falls back to the step-by-step forward
                         {2, 260, 96, 2, true},  // qkv_bias: the projections start from their bias
                         {1, 200, 64, 1}};       // one head: the other threads wait for its packing, then share its rows
  for (const auto& s : sizes) {
    TorchGenerator gen(123);
    const Tensor x = randn(gen, {s.B, s.T, s.D});
    const MultiHeadAttention mha(gen, s.D, s.D, s.T, 0.0, s.H, s.qkv_bias, DropoutKernel::Default);
    const Tensor want = mha.forward_traced(gen, x).context_vecs;
    {  // the prepared module, twice: its kept buffers and y's storage reused
      PreparedMultiHeadAttention prepared(mha);
      Tensor y;
      for (int call = 0; call < 2; ++call) {
        prepared.forward(gen, x, y);
        expect_same_bits(y, want, "prepared, call " + std::to_string(call) + " T=" + std::to_string(s.T));
      }
    }
    for (auto isa : {kernels::Isa::Scalar, kernels::Isa::Avx2, kernels::Isa::Avx512, kernels::Isa::Neon}) {
      kernels::set_active_isa(isa);
      for (int threads : {1, 2, 3}) {  // 3: more threads than heads
        kernels::set_num_threads(threads);
        expect_same_bits(multi_head_attention_output(mha, gen, x), want,
                         "B=" + std::to_string(s.B) + " T=" + std::to_string(s.T) + " D=" + std::to_string(s.D) +
                             " " + kernels::isa_name(kernels::active_isa()) + " threads " + std::to_string(threads));
      }
    }
    kernels::set_active_isa(kernels::best_isa());
    kernels::set_num_threads(0);
  }
}

// From T = 4096 on, AVX-512 takes query rows 64 at a time (kernels/attention.cpp), not 32:
// the same bits. T = 4100: the last block is cut (4100 = 64 * 64 + 4).
TEST(FastForward, LongSequencesRowBlocksEqualTheStepByStepForward) {
  TorchGenerator gen(123);
  const int64_t T = 4100, D = 64;
  const Tensor x = randn(gen, {1, T, D});
  const MultiHeadAttention mha(gen, D, D, T, 0.0, 1, false, DropoutKernel::Default);
  const Tensor want = mha.forward_traced(gen, x).context_vecs;
  for (auto isa : {kernels::Isa::Avx2, kernels::Isa::Avx512}) {
    kernels::set_active_isa(isa);
    kernels::set_num_threads(2);
    expect_same_bits(multi_head_attention_output(mha, gen, x), want,
                     std::string("T=4100 ") + kernels::isa_name(kernels::active_isa()));
  }
  kernels::set_active_isa(kernels::best_isa());
  kernels::set_num_threads(0);
}

TEST(FastForward, HugeTokensGetTheStepByStepNumbers) {
  // Three tokens so large that the scores between them overflow to +-inf, far left of the
  // later rows' diagonals: there the scores leave the product already divided, with each
  // row's maximum. A row holding +inf takes the softmax's generic steps (its weights are
  // NaN, as in PyTorch); one holding -inf keeps its other weights. (A NaN anywhere in x
  // would make every output NaN: the masked weights, 0, times a NaN value.) NaN payloads
  // are not compared.
  TorchGenerator gen(321);
  const int64_t T = 200, D = 128, H = 2;  // head_dim 64: 32-row blocks, columns left of their diagonals
  Tensor x = randn(gen, {1, T, D});
  for (int64_t t : {40, 100, 150})
    for (int64_t c = 0; c < D; ++c) x.data[static_cast<size_t>(t * D + c)] *= 1e19f;
  const MultiHeadAttention mha(gen, D, D, T, 0.0, H, false, DropoutKernel::Default);
  const Tensor want = mha.forward_traced(gen, x).context_vecs;
  size_t nonfinite_rows = 0;
  for (int64_t t = 0; t < T; ++t) nonfinite_rows += !std::isfinite(want.data[static_cast<size_t>(t * D)]);
  ASSERT_GE(nonfinite_rows, 1u);   // some +inf among the scores
  ASSERT_LE(nonfinite_rows, 10u);  // and the rest still numbers
  for (auto isa : {kernels::Isa::Scalar, kernels::Isa::Avx2, kernels::Isa::Avx512, kernels::Isa::Neon}) {
    kernels::set_active_isa(isa);
    const Tensor got = multi_head_attention_output(mha, gen, x);
    ASSERT_EQ(got.shape, want.shape);
    double max_diff = 0.0;
    EXPECT_EQ(test::count_bit_differences(got.data, want.data, &max_diff), 0)
        << kernels::isa_name(kernels::active_isa()) << ", largest difference " << max_diff;
  }
  kernels::set_active_isa(kernels::best_isa());
}

TEST(FastForward, FusesOnlyWhereTheNumbersAgree) {
  EXPECT_TRUE(kernels::causal_attention_fusable(1, 1024, 64));
  EXPECT_TRUE(kernels::causal_attention_fusable(2, 128, 64));
  EXPECT_FALSE(kernels::causal_attention_fusable(1, 30, 64));  // small TN kernel: dot-like scores
  EXPECT_FALSE(kernels::causal_attention_fusable(2, 6, 2));    // bmm's own loop
}

TEST(FastForward, WithDropoutUsesTheStepByStepForward) {
  TorchGenerator gen(5);
  const Tensor x = randn(gen, {1, 128, 128});
  const MultiHeadAttention mha(gen, 128, 128, 128, 0.5, 2, false, DropoutKernel::Default);
  TorchGenerator g1(9), g2(9);
  expect_same_bits(multi_head_attention_output(mha, g1, x), mha.forward_traced(g2, x).context_vecs, "dropout");
}

TEST(Bench, JsonReportHasTheFieldsAndPyTorchsResult) {
  BenchOptions o;
  o.tokens = 130;
  o.d_model = 64;
  o.heads = 2;
  o.batch = 2;
  o.repeat = 2;
  o.threads = 2;
  o.seed = 7;
  const BenchReport report = run_bench(o);
  const auto j = nlohmann::json::parse(render_bench_json(report));
  for (const char* key : {"median_ms", "min_ms", "gflops", "threads", "sum", "abs_sum", "first", "peak_rss_mib"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["threads"].get<int>(), 2);
  EXPECT_GT(j["median_ms"].get<double>(), 0.0);
  EXPECT_LE(j["min_ms"].get<double>(), j["median_ms"].get<double>());

  // The same forward through modules/chapter.cpp, in PyTorch's order of draws.
  TorchGenerator gen(7);
  const Tensor x = randn(gen, {2, 130, 64});
  const MultiHeadAttention mha(gen, 64, 64, 130, 0.0, 2, false, DropoutKernel::Default);
  const Tensor y = mha.forward_traced(gen, x).context_vecs;
  double sum = 0.0, abs_sum = 0.0;
  for (float v : y.data) {
    sum += v;
    abs_sum += std::fabs(v);
  }
  EXPECT_EQ(j["sum"].get<double>(), sum);
  EXPECT_EQ(j["abs_sum"].get<double>(), abs_sum);
  ASSERT_EQ(j["first"].size(), 8u);
  for (size_t i = 0; i < 8; ++i) EXPECT_EQ(bits(j["first"][i].get<float>()), bits(y.data[i])) << i;

  // The rate counts the work done: 8·B·T·D² for the projections and the causal half of
  // the two (T, T) products, B·D·T(T+1)/2 multiply-adds each; and the FMA probe's peak.
  const double work = 8.0 * 2 * 130 * 64 * 64 + 2.0 * 2.0 * 2 * 64 * (130.0 * 131.0 / 2.0);
  EXPECT_DOUBLE_EQ(j["gflop_per_forward"].get<double>(), work / 1e9);
  EXPECT_NEAR(j["gflops"].get<double>(), work / (j["median_ms"].get<double>() * 1e6), 1e-9);
  ASSERT_TRUE(j.contains("peak_gflops"));
  EXPECT_GT(j["peak_gflops"].get<double>(), 0.0);
  EXPECT_NEAR(j["peak_fraction"].get<double>(), j["gflops"].get<double>() / j["peak_gflops"].get<double>(), 1e-12);
  // The register tile's rate beside it (its count of work: TileProductsCountTheirWork).
  ASSERT_TRUE(j.contains("tile_gflops"));
  EXPECT_GT(j["tile_gflops"].get<double>(), 0.0);
  EXPECT_NEAR(j["tile_fraction"].get<double>(), j["tile_gflops"].get<double>() / j["peak_gflops"].get<double>(), 1e-12);
  kernels::set_num_threads(0);
}

// The peak RSS is the bench's own, not that of the process it was started from: Linux carries
// a process's peak across exec into getrusage's ru_maxrss, so a bench run straight from a
// large process (a notebook's Python) would report that process's size. The binary runs (fork
// and exec) from this test's process before and after it touches 512 MiB, and reports the same.
TEST(Bench, PeakRssIsTheBenchsOwnNotItsParents) {
  const auto bench_peak = [] {
    const test::RunResult r =
        test::run_cli({"bench", "--tokens", "64", "--repeat", "1", "--no-probe", "--format", "json"});
    EXPECT_EQ(r.exit_code, 0) << test::describe(r);
    return r.exit_code == 0 ? nlohmann::json::parse(r.out)["peak_rss_mib"].get<double>() : -1.0;
  };
  const double before = bench_peak();
  ASSERT_GT(before, 0.0);
  std::vector<char> ballast(size_t{512} * 1024 * 1024, 1);  // every page written
  ASSERT_GE(peak_rss_mib(), 512.0);                         // this process's own peak holds it
  EXPECT_LT(bench_peak(), before + 256.0);
  EXPECT_EQ(ballast.back(), 1);  // the ballast is still held after the child has run
}

// The tile's measurement counts the work it does and does it: 48 x 32 x 128 multiply-adds per
// product, and C(0, 0) is the chain of A's first row and B's first column (from 0, then + 0).
TEST(Bench, TileProductsCountTheirWork) {
  float sink = 0.0f;
  EXPECT_EQ(probe_detail::tile_products(3, &sink), 3 * 2.0 * 48 * 32 * 128);
  float acc = 0.0f;
  for (int k = 0; k < 128; ++k)
    acc = std::fma(1.0f + 1e-3f * static_cast<float>(k % 97), 1e-3f * static_cast<float>(k * 32 % 89), acc);
  EXPECT_EQ(bits(sink), bits(acc + 0.0f));
}

// The probe is read again only while it is below the forward's own rate, at most `retries`
// times, and the highest reading is kept.
TEST(Bench, ProbeIsReadAgainOnlyWhileBelowTheForwardsRate) {
  int calls = 0;
  std::vector<double> readings;
  const auto probe = [&] { return readings[static_cast<size_t>(calls++)]; };

  readings = {999.0};
  EXPECT_EQ(peak_at_least(540.0, 460.0, 4, probe), 540.0);  // above the rate: kept, no re-reading
  EXPECT_EQ(calls, 0);

  readings = {380.0, 530.0, 999.0};
  EXPECT_EQ(peak_at_least(363.0, 436.0, 4, probe), 530.0);  // stops at the first reading above the rate
  EXPECT_EQ(calls, 2);

  calls = 0;
  readings = {300.0, 420.0, 410.0, 999.0};
  EXPECT_EQ(peak_at_least(363.0, 436.0, 3, probe), 420.0);  // never above: the highest of 1 + 3 readings
  EXPECT_EQ(calls, 3);
}

TEST(Bench, SavesTheOutputAsNpy) {
  test::TempDir dir;
  BenchOptions o;
  o.tokens = 9;
  o.d_model = 8;
  o.heads = 2;
  o.repeat = 1;
  o.probe = false;
  o.save_output = (dir.path / "y.npy").string();
  const auto j = nlohmann::json::parse(render_bench_json(run_bench(o)));
  EXPECT_FALSE(j.contains("peak_fraction"));  // --no-probe
  const std::string bytes = test::read_all(o.save_output);
  ASSERT_EQ(bytes.substr(0, 6), "\x93NUMPY");
  const size_t header = 10 + static_cast<unsigned char>(bytes[8]) + 256u * static_cast<unsigned char>(bytes[9]);
  EXPECT_EQ(header % 64, 0u);
  EXPECT_NE(bytes.find("'shape': (1, 9, 8)"), std::string::npos);
  ASSERT_EQ(bytes.size(), header + 9 * 8 * sizeof(float));
  for (size_t i = 0; i < 8; ++i) {
    float v;
    std::memcpy(&v, bytes.data() + header + i * sizeof(float), sizeof v);
    EXPECT_EQ(bits(v), bits(j["first"][i].get<float>())) << i;
  }
}

TEST(Bench, TextReportNamesTheRun) {
  BenchOptions o;
  o.tokens = 20;
  o.d_model = 16;
  o.heads = 2;
  o.repeat = 1;
  o.threads = 1;
  const std::string text = render_bench_text(run_bench(o));
  EXPECT_NE(text.find("median"), std::string::npos);
  EXPECT_NE(text.find("MultiHeadAttention(16, 16, 20, 0.0, num_heads=2)"), std::string::npos);
  EXPECT_NE(text.find("peak RSS"), std::string::npos);
  kernels::set_num_threads(0);
}

// The report holds the numbers; the renderers print exactly those, and the page's engine
// gets the same JSON document without parsing the text back.
TEST(Bench, RenderersPrintWhatTheReportHolds) {
  BenchOptions o;
  o.tokens = 20;
  o.d_model = 16;
  o.heads = 2;
  o.batch = 2;
  o.repeat = 3;
  o.threads = 1;
  o.seed = 11;
  const BenchReport r = run_bench(o);
  EXPECT_EQ(r.threads, 1);
  EXPECT_EQ(r.shape, (Shape{2, 20, 16}));
  ASSERT_EQ(r.first.size(), 8u);
  EXPECT_LE(r.min_ms, r.median_ms);
  EXPECT_EQ(r.peak_fraction, r.gflops / r.peak_gflops);
  EXPECT_EQ(r.tile_fraction, r.tile_gflops / r.peak_gflops);

  const auto j = nlohmann::json::parse(render_bench_json(r));
  EXPECT_EQ(j["median_ms"].get<double>(), r.median_ms);
  EXPECT_EQ(j["min_ms"].get<double>(), r.min_ms);
  EXPECT_EQ(j["gflops"].get<double>(), r.gflops);
  EXPECT_EQ(j["gflop_per_forward"].get<double>(), r.gflop_per_forward);
  EXPECT_EQ(j["gflops_pytorch_count"].get<double>(), r.gflops_pytorch_count);
  EXPECT_EQ(j["peak_gflops"].get<double>(), r.peak_gflops);
  EXPECT_EQ(j["peak_fraction"].get<double>(), r.peak_fraction);
  EXPECT_EQ(j["tile_gflops"].get<double>(), r.tile_gflops);
  EXPECT_EQ(j["tile_fraction"].get<double>(), r.tile_fraction);
  EXPECT_EQ(j["peak_rss_mib"].get<double>(), r.peak_rss_mib);
  EXPECT_EQ(j["sum"].get<double>(), r.sum);
  EXPECT_EQ(j["abs_sum"].get<double>(), r.abs_sum);
  EXPECT_EQ(j["shape"].get<Shape>(), r.shape);
  EXPECT_EQ(j["repeat"].get<int64_t>(), 3);
  EXPECT_EQ(j["isa"].get<std::string>(), r.isa);
  for (size_t i = 0; i < 8; ++i) EXPECT_EQ(bits(j["first"][i].get<float>()), bits(r.first[i])) << i;
  const nlohmann::ordered_json ordered = bench_json(r);
  std::vector<std::string> keys;
  for (const auto& [key, value] : ordered.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"median_ms", "min_ms", "gflops", "gflop_per_forward",
                                            "gflops_pytorch_count", "peak_gflops", "peak_fraction", "tile_gflops",
                                            "tile_fraction", "threads",
                                            "sum", "abs_sum", "first", "peak_rss_mib", "shape", "repeat", "isa"}));
  // The engine's document (keys sorted) is the parsed text's.
  EXPECT_EQ(nlohmann::json(ordered).dump(), j.dump());

  const std::string text = render_bench_text(r);
  for (const std::string& line :
       {std::string("MultiHeadAttention(16, 16, 20, 0.0, num_heads=2) forward on torch.randn(2, 20, 16), seed 11\n"),
        fmt::format("threads 1 ({}), 3 timed runs after one warm-up\n", r.isa),
        fmt::format("  median   {:.2f} ms\n  min      {:.2f} ms\n", r.median_ms, r.min_ms),
        fmt::format("  rate     {:.1f} GFLOP/s ({:.2f} GFLOP per forward", r.gflops, r.gflop_per_forward),
        fmt::format("  peak     {:.1f} GFLOP/s measured by the FMA probe ({}, 1 threads): {:.1f}% of it\n",
                    r.peak_gflops, r.isa, 100.0 * r.gflops / r.peak_gflops),
        fmt::format("  tile     {:.1f} GFLOP/s: the products' register tile alone, its operands in L1 ({:.1f}% of the peak); "
                    "the forward is at {:.1f}% of it\n",
                    r.tile_gflops, 100.0 * r.tile_fraction, 100.0 * r.gflops / r.tile_gflops),
        fmt::format("  peak RSS {:.1f} MiB\n", r.peak_rss_mib),
        fmt::format("y: shape (2, 20, 16), sum {:.6f}, abs sum {:.6f}\n", r.sum, r.abs_sum),
        fmt::format("first values: {:.6g} {:.6g} {:.6g} {:.6g} {:.6g} {:.6g} {:.6g} {:.6g}\n", r.first[0], r.first[1],
                    r.first[2], r.first[3], r.first[4], r.first[5], r.first[6], r.first[7])})
    EXPECT_NE(text.find(line), std::string::npos) << line << "\nin\n"
                                                  << text;
  EXPECT_EQ(text.find("above 100%"), std::string::npos);

  // A rate above the probe's peak says so; without the probe there is no peak at all.
  BenchReport busy = r;
  busy.peak_gflops = r.gflops / 2;
  busy.peak_fraction = 2.0;
  EXPECT_NE(render_bench_text(busy).find(": 200.0% of it\n           (above 100%: "), std::string::npos);
  BenchReport unprobed = r;
  unprobed.options.probe = false;
  EXPECT_EQ(render_bench_text(unprobed).find("  peak  "), std::string::npos);
  EXPECT_FALSE(bench_json(unprobed).contains("peak_gflops"));
  EXPECT_FALSE(bench_json(unprobed).contains("peak_fraction"));
  EXPECT_EQ(render_bench_text(unprobed).find("  tile  "), std::string::npos);
  EXPECT_FALSE(bench_json(unprobed).contains("tile_gflops"));
  kernels::set_num_threads(0);
}

}  // namespace
}  // namespace attn
