// attn-walk bench --backward: the chapter's MultiHeadAttention at GPT-2 width (768, 12 heads),
// forward and backward, against PyTorch 1.13's autograd (tests/golden/bench_backward.json,
// written by make_bench_backward_goldens.py): every gradient's digest, bit for bit.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "bench/fast_backward.h"
#include "core/cpu.h"
#include "bench/fast_forward.h"
#include "bench/mha_backward.h"
#include "kernels/attention.h"
#include "modules/chapter.h"
#include "run_process.h"
#include "test_util.h"
#include "torch/torch_random.h"

namespace attn {
namespace {

nlohmann::json goldens() {
  std::ifstream in(std::string(ATTN_WALK_TESTS_DIR) + "/golden/bench_backward.json");
  return nlohmann::json::parse(in);
}

// The bench's draws: x, the module, the forward, then grad_y.
struct BackwardRun {
  Tensor x, y, grad_y;
  MhaGradients grads;
};

BackwardRun reference_run(int64_t T, int64_t D, int64_t H, uint64_t seed) {
  TorchGenerator gen(seed);
  BackwardRun r;
  r.x = randn(gen, {1, T, D});
  const MultiHeadAttention mha(gen, D, D, T, 0.0, H, false, DropoutKernel::Default);
  const MultiHeadAttention::Trace trace = mha.forward_traced(gen, r.x);
  r.y = trace.context_vecs;
  r.grad_y = randn(gen, r.y.shape);
  r.grads = mha_backward_reference(mha, r.x, trace, r.grad_y);
  return r;
}

void expect_digest(const nlohmann::json& want, const Tensor& got, const std::string& what) {
  EXPECT_EQ(Shape(want["shape"].get<std::vector<int64_t>>()), got.shape) << what;
  for (const auto& s : want["samples"]) {
    const size_t i = s[0].get<size_t>();
    ASSERT_LT(i, got.data.size()) << what;
    EXPECT_EQ(fmt::format("{:08x}", test::bits(got.data[i])), s[1].get<std::string>()) << what << " [" << i << "]";
  }
  EXPECT_EQ(fnv1a64(got.data.data(), got.data.size()), want["fnv1a64"].get<std::string>()) << what;
}

void expect_case(const nlohmann::json& c, const BackwardRun& r) {
  const std::string at = "T = " + std::to_string(c["tokens"].get<int64_t>()) + ": ";
  const auto& t = c["tensors"];
  expect_digest(t["y"], r.y, at + "y");
  expect_digest(t["grad_y"], r.grad_y, at + "grad_y");
  for (const auto& [name, tensor] : r.grads.named()) expect_digest(t[name], *tensor, at + name + ".grad");
}

TEST(BenchBackward, ReferenceEqualsAutograd) {
  const nlohmann::json all = goldens();
  for (const auto& c : all["cases"]) {
    const int64_t T = c["tokens"].get<int64_t>();
    if (T > 256) continue;  // T = 1024: the fast path's test (the reference holds 5 (12, T, T) tensors)
    expect_case(c, reference_run(T, c["d_model"].get<int64_t>(), c["heads"].get<int64_t>(), c["seed"].get<uint64_t>()));
  }
}

// The bench's fused path: the prepared forward, then PreparedMhaBackward.
// grad_y's rows listed in zero_rows are set to 0 (their softmax backward sums are then 0).
BackwardRun fused_run(int64_t B, int64_t T, int64_t D, int64_t H, uint64_t seed, bool& fused,
                      const std::vector<int64_t>& zero_rows = {}) {
  TorchGenerator gen(seed);
  BackwardRun r;
  r.x = randn(gen, {B, T, D});
  const MultiHeadAttention mha(gen, D, D, T, 0.0, H, false, DropoutKernel::Default);
  PreparedMultiHeadAttention prepared(mha);
  prepared.forward(gen, r.x, r.y);
  r.grad_y = randn(gen, r.y.shape);
  for (int64_t i : zero_rows) std::fill_n(r.grad_y.data.begin() + i * D, D, 0.0f);
  PreparedMhaBackward prepared_backward(mha);
  fused = prepared_backward.backward(prepared, r.x, r.grad_y, r.grads);
  return r;
}

// The fused backward is written for AVX2, AVX-512 and NEON (kernels/attention_backward.cpp);
// elsewhere (the scalar code, the page) the bench takes the reference backward, which the
// goldens also hold.
bool fused_backward_here() {
  const kernels::Isa isa = kernels::active_isa();
  return kernels::x86_vectors(isa) || isa == kernels::Isa::Neon;
}

TEST(BenchBackward, FusedEqualsAutograd) {
  // T = 203 cuts the 32-row blocks and the 8-row tiles; T = 1024 is GPT-2's context. T = 40
  // is below OpenBLAS's blocked kernel for the heads' products: no fused path.
  const nlohmann::json all = goldens();
  for (const auto& c : all["cases"]) {
    const int64_t T = c["tokens"].get<int64_t>();
    bool fused = false;
    const BackwardRun r = fused_run(1, T, c["d_model"].get<int64_t>(), c["heads"].get<int64_t>(), c["seed"].get<uint64_t>(), fused);
    EXPECT_EQ(fused, fused_backward_here() && T >= 128) << "T = " << T;
    if (fused) expect_case(c, r);
  }
}

TEST(BenchBackward, FusedEqualsReference) {
  if (!fused_backward_here()) GTEST_SKIP() << "no fused backward on " << kernels::isa_name(kernels::active_isa());
  struct Sizes {
    int64_t B, T, D, H;
    std::vector<int64_t> zero_rows = {};
  };
  // head_dim 64 with T not a multiple of anything; a batch of two (the keys' gradient then
  // row-major, keys.T copied); head_dim 48 and 32, whose products have K-blocks of their own.
  for (const Sizes& s : {Sizes{1, 150, 128, 2}, Sizes{2, 160, 96, 2}, Sizes{1, 300, 64, 2}, Sizes{1, 333, 192, 4},
                         Sizes{1, 140, 128, 2, {0, 3, 100}}}) {  // rows whose sum of g * w is exactly 0
    bool fused = false;
    const BackwardRun got = fused_run(s.B, s.T, s.D, s.H, 7, fused, s.zero_rows);
    ASSERT_TRUE(fused) << s.T;
    TorchGenerator gen(7);
    const Tensor x = randn(gen, {s.B, s.T, s.D});
    const MultiHeadAttention mha(gen, s.D, s.D, s.T, 0.0, s.H, false, DropoutKernel::Default);
    const MultiHeadAttention::Trace trace = mha.forward_traced(gen, x);
    Tensor grad_y = randn(gen, trace.context_vecs.shape);
    for (int64_t i : s.zero_rows) std::fill_n(grad_y.data.begin() + i * s.D, s.D, 0.0f);
    const MhaGradients want = mha_backward_reference(mha, x, trace, grad_y);
    const auto g = got.grads.named(), w = want.named();
    for (size_t i = 0; i < g.size(); ++i) {
      ASSERT_EQ(g[i].second->shape, w[i].second->shape) << g[i].first;
      size_t differ = 0;
      for (size_t k = 0; k < g[i].second->data.size(); ++k)
        differ += test::bits(g[i].second->data[k]) != test::bits(w[i].second->data[k]);
      EXPECT_EQ(differ, 0u) << "T = " << s.T << ", " << g[i].first;
    }
  }
}

// The CLI: `bench --backward` says it checked the bits, and its digests are PyTorch's.
TEST(BenchBackward, CliReportsCheckedBits) {
  const test::RunResult r =
      test::run_cli({"bench", "--backward", "--tokens", "203", "--repeat", "1", "--no-probe", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << test::describe(r);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  // Without a fused backward the bench times the reference: its digests are still PyTorch's.
  const nlohmann::json all = goldens();
  for (const auto& c : all["cases"]) {
    if (c["tokens"] != 203) continue;
    for (const auto& [name, want] : c["tensors"].items())
      EXPECT_EQ(j["backward"]["digests"][name]["fnv1a64"], want["fnv1a64"]) << name;
  }
  if (!fused_backward_here()) {
    EXPECT_EQ(j["backward"]["path"], "reference");
    EXPECT_FALSE(j["backward"]["bits_checked"].get<bool>());
    return;
  }
  EXPECT_EQ(j["backward"]["path"], "fused");
  EXPECT_TRUE(j["backward"]["bits_checked"].get<bool>());
  EXPECT_TRUE(j["backward"]["bits_equal"].get<bool>());
  // The peak RSS is the steps' own, read before the bit check: the reference backward it runs
  // holds five (B, H, T, T) tensors at once (at T = 203, 12 heads: 9.4 MiB), which the steps
  // never do; the process's peak once the check has run is reported beside it.
  const double tensors_mib = 5.0 * 12 * 203 * 203 * sizeof(float) / (1024.0 * 1024.0);
  EXPECT_GE(j["backward"]["check_peak_rss_mib"].get<double>() - j["peak_rss_mib"].get<double>(), tensors_mib)
      << r.out;
  // Where the step's time went: the forward and the backward's four parts, in the order a step
  // runs them, each timed inside the step (one step here: its parts add up to less than it).
  const nlohmann::ordered_json parts = nlohmann::ordered_json::parse(r.out)["backward"]["parts_ms"];
  std::vector<std::string> names;
  double total = 0.0;
  for (const auto& [name, ms] : parts.items()) {
    names.push_back(name);
    EXPECT_GT(ms.get<double>(), 0.0) << name;
    total += ms.get<double>();
  }
  EXPECT_EQ(names, (std::vector<std::string>{"forward", "out_proj", "attention", "weights", "inputs"}));
  EXPECT_LE(total, j["median_ms"].get<double>());
  EXPECT_GT(total, 0.5 * j["median_ms"].get<double>());
  const test::RunResult text = test::run_cli({"bench", "--backward", "--tokens", "128", "--repeat", "1", "--no-probe"});
  ASSERT_EQ(text.exit_code, 0) << test::describe(text);
  EXPECT_NE(text.out.find("bits: equal to the reference backward's, every gradient"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("  parts    forward "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find(" MiB by the end of the timed steps; "), std::string::npos) << text.out;
}

// The fused heads skip the masked half. Autograd does not: a NaN or an infinity in a value or
// in a row of grad_context reaches masked weights' gradients (x * 0 is NaN there), and through
// each row's sum every score's gradient in it. So the kernel must refuse such operands and
// leave them to the reference, which computes every entry.
// The rows are checked in tasks of 256 on the threads: T = 600 puts a bad value in each task.
TEST(BenchBackward, FusedHeadsRefuseOperandsTheyCannotReproduce) {
  if (!fused_backward_here()) GTEST_SKIP() << "no fused backward on " << kernels::isa_name(kernels::active_isa());
  for (const int64_t T : {int64_t{150}, int64_t{600}}) {
    const int64_t H = 2, hd = 64, D = H * hd;
    TorchGenerator gen(11);
    const Tensor queries = randn(gen, {1, T, D}), keys = randn(gen, {1, T, D}), values = randn(gen, {1, T, D});
    const Tensor grad_context = randn(gen, {1, T, D});
    std::vector<float> gq(static_cast<size_t>(T * D)), gk(gq.size()), gv(gq.size());
    const auto fused = [&](const Tensor& q, const Tensor& v, const Tensor& gc) {
      return kernels::causal_attention_backward(q.data.data(), keys.data.data(), v.data.data(), gc.data.data(),
                                                gq.data(), gk.data(), gv.data(), 1, T, H, hd);
    };
    ASSERT_TRUE(fused(queries, values, grad_context)) << "T " << T;
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    for (const float bad : {nan, -inf}) {
      for (const int64_t at : {int64_t{0}, T * D - 1, (T / 2) * D + hd + 3}) {
        Tensor q = queries, v = values, gc = grad_context;
        v.data[static_cast<size_t>(at)] = bad;
        EXPECT_FALSE(fused(queries, v, grad_context)) << "T " << T << ": values[" << at << "] = " << bad;
        gc.data[static_cast<size_t>(at)] = bad;
        EXPECT_FALSE(fused(queries, values, gc)) << "T " << T << ": grad_context[" << at << "] = " << bad;
        q.data[static_cast<size_t>(at)] = bad;
        EXPECT_FALSE(fused(q, values, grad_context)) << "T " << T << ": queries[" << at << "] = " << bad;
      }
    }
    // Finite, but large enough that a masked grad_weights entry could overflow: in the first
    // row, or in the last, where the last task's bound must reach the whole's.
    for (const int64_t at : {int64_t{5}, T * D - 2}) {
      Tensor big = values;
      big.data[static_cast<size_t>(at)] = 1e36f;
      EXPECT_FALSE(fused(queries, big, grad_context)) << "T " << T << ": values[" << at << "] = 1e36";
    }
    // A value of 1e27 is accepted beside grad_context's rows of randn (their absolute sums about
    // 100), and refused once the last row's is 128 x 1e3.
    Tensor gc_big = grad_context, v_big = values;
    v_big.data[3] = 1e27f;
    EXPECT_TRUE(fused(queries, v_big, grad_context)) << "T " << T << ": a large value alone";
    for (int64_t d = 0; d < D; ++d) gc_big.data[static_cast<size_t>((T - 1) * D + d)] = 1e3f;
    EXPECT_FALSE(fused(queries, v_big, gc_big)) << "T " << T << ": a large row times a large value";
  }
}

}  // namespace
}  // namespace attn
