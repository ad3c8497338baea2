// OpenBLAS's sgemm under each kernel attn-walk reproduces (Cooperlake, SkylakeX, Haswell) and
// for 1 and 2 OpenBLAS threads, bit for bit against PyTorch run under that kernel
// (tests/golden/sgemm_orders.json, made by tests/golden/make_sgemm_goldens.py): the reference
// (sgemm_reference) and the fast path (kernels::sgemm) on every instruction set.
//
// The test binary fixes the order it tests rather than take the host's: Cooperlake with 2
// OpenBLAS threads, what the walk goldens were made with, for every test in this process and
// for the attn-walk processes the tests start (ATTN_WALK_BLAS_KERNEL, ATTN_WALK_BLAS_THREADS).
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench/fast_backward.h"
#include "bench/fast_forward.h"
#include "core/cpu.h"
#include "kernels/attention.h"
#include "kernels/gemm.h"
#include "kernels/parallel.h"
#include "kernels/sgemm.h"
#include "modules/chapter.h"
#include "torch/torch_random.h"
#include "stages/stages.h"
#include "test_backward_util.h"
#include "test_util.h"
#include "torch/sgemm_order.h"

namespace attn {
namespace {

using kernels::BlasKernel;
using kernels::BlasOrder;

// Before any test runs (and before anything asks for the order): the suite's fixed order.
const bool kSuiteOrderFixed = [] {
  setenv("ATTN_WALK_BLAS_KERNEL", "cooperlake", 1);
  setenv("ATTN_WALK_BLAS_THREADS", "2", 1);
  kernels::set_blas_order(BlasOrder{BlasKernel::Cooperlake, 2});
  return true;
}();

// Restores the suite's order when a test that switches it ends.
struct OrderScope {
  ~OrderScope() { kernels::set_blas_order(BlasOrder{BlasKernel::Cooperlake, 2}); }
};

// make_sgemm_goldens.py's fill: a 32-bit integer hash to a float32 in [-1, 1) with 24
// significant bits.
std::vector<float> fill(int64_t n, uint64_t seed) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    uint64_t h = (static_cast<uint64_t>(i) * 0x9E3779B1ULL + seed * 0x85EBCA77ULL) & 0xFFFFFFFFULL;
    h ^= h >> 15;
    h = (h * 0x2C1B3C6DULL) & 0xFFFFFFFFULL;
    h ^= h >> 12;
    v[static_cast<size_t>(i)] = static_cast<float>(static_cast<int64_t>(h & 0xFFFFFF) - 0x800000) / 8388608.0f;
  }
  return v;
}

struct Case {
  int64_t M, N, K;
  bool a_t, b_t, bias;
  uint64_t seed;
  std::vector<float> a, b, c0;
  explicit Case(const nlohmann::json& j)
      : M(j["M"]), N(j["N"]), K(j["K"]), a_t(j["a_transposed"]), b_t(j["b_transposed"]), bias(j["bias"]),
        seed(j["seed"]), a(fill(M * K, seed)), b(fill(K * N, seed + 1)), c0(bias ? fill(N, seed + 2) : std::vector<float>{}) {}
  kernels::SgemmCall call(std::vector<float>& out) const {
    out.assign(static_cast<size_t>(M * N), -1.0f);
    kernels::SgemmCall g;
    g.M = M, g.N = N, g.K = K;
    g.A = a.data();
    g.lda = a_t ? M : K;
    g.a_transposed = a_t;
    g.B = kernels::ConstMat{b.data(), b_t ? K : N, b_t};
    g.C = out.data();
    g.ldc = N;
    g.bias = bias ? c0.data() : nullptr;
    return g;
  }
  std::string name() const {
    return fmt::format("{}x{} @ {}x{} (A{} B{}{})", M, K, K, N, a_t ? " transposed" : "", b_t ? " transposed" : "",
                       bias ? ", bias" : "");
  }
};

const nlohmann::json& goldens() {
  static const nlohmann::json j = test::load_json(test::tests_dir() + "/golden/sgemm_orders.json");
  return j;
}

void expect_kernel_matches(BlasKernel kernel) {
  OrderScope restore;
  int told_apart = 0;
  for (const auto& jc : goldens()["cases"]) {
    const Case c(jc);
    for (int threads : {1, 2}) {
      // clang-format off
      const std::string key = fmt::format("{}/{}", kernel == BlasKernel::Cooperlake ? "Cooperlake"
                                                   : kernel == BlasKernel::SkylakeX ? "SkylakeX"
                                                                                   : "Haswell",
                                          // clang-format on
                                          threads);
      const auto& want = jc["kernels"][key];
      SCOPED_TRACE(c.name() + ", " + key);
      kernels::set_blas_order(BlasOrder{kernel, threads});
      std::vector<float> ref, fast;
      kernels::sgemm_reference(c.call(ref));
      EXPECT_EQ(test::fnv1a64(ref), want["fnv1a64"].get<std::string>()) << "reference";
      // Haswell's two-chain outputs, if the product has any: the fast path recomputes them
      // (its tile count grows), where it once left the whole product to sgemm_reference.
      const bool two_chains =
          kernel == BlasKernel::Haswell && !kernels::haswell_two_chain_rects(c.M, c.N, c.K, threads).empty();
      for (kernels::Isa isa : {kernels::Isa::Scalar, kernels::Isa::Avx2, kernels::Isa::Avx512}) {
        const kernels::Isa used = kernels::set_active_isa(isa);
        const int64_t tiles = kernels::two_chain_tiles_run();
        kernels::sgemm(c.call(fast));
        EXPECT_EQ(test::fnv1a64(fast), want["fnv1a64"].get<std::string>()) << "fast path, " << kernels::isa_name(used);
        if (two_chains) EXPECT_GT(kernels::two_chain_tiles_run(), tiles) << "fast path, " << kernels::isa_name(used);
        else EXPECT_EQ(kernels::two_chain_tiles_run(), tiles) << "fast path, " << kernels::isa_name(used);
      }
      kernels::set_active_isa(kernels::best_isa());
      told_apart += want["differ_from_cooperlake"].get<int>() > 0;
    }
  }
  // The cases tell the other kernels from Cooperlake (and Cooperlake from none).
  if (kernel == BlasKernel::Cooperlake) EXPECT_EQ(told_apart, 0);
  else EXPECT_GE(told_apart, 10);
}

TEST(SgemmOrders, CooperlakeEqualsPyTorch) { expect_kernel_matches(BlasKernel::Cooperlake); }
TEST(SgemmOrders, SkylakeXEqualsPyTorch) { expect_kernel_matches(BlasKernel::SkylakeX); }
TEST(SgemmOrders, HaswellEqualsPyTorch) { expect_kernel_matches(BlasKernel::Haswell); }

// The training walk at GPT-2's width (8 tokens, a batch of 3, 12 heads, 2 AdamW steps) under
// each kernel with 2 threads: every gradient, loss and trained parameter as PyTorch's under
// that kernel (tests/golden/sgemm_walks/<kernel>.json, each step as a digest). The fast paths
// run under all three (under Haswell they recompute the two-chain outputs).
void expect_walk_matches(BlasKernel kernel) {
  OrderScope restore;
  const auto doc = test::load_json(test::tests_dir() + "/golden/sgemm_walks/" +
                                   kernels::blas_kernel_name(kernel) + ".json");
  ASSERT_EQ(doc["blas_threads"].get<int>(), 2);
  kernels::set_blas_order(BlasOrder{kernel, 2});
  const Config cfg = test::backward_config(doc);
  const StageInfo* info = find_stage("backward");
  ASSERT_NE(info, nullptr);
  test::expect_walk_equals_golden(info->run(cfg), doc["stages"]["backward"]);
  // The walk tells the kernels apart.
  if (kernel != BlasKernel::Cooperlake) EXPECT_GE(doc["steps_differing_from_cooperlake"].get<int>(), 10);
}

TEST(SgemmOrders, TrainingWalkAtGpt2WidthCooperlake) { expect_walk_matches(BlasKernel::Cooperlake); }
TEST(SgemmOrders, TrainingWalkAtGpt2WidthSkylakeX) { expect_walk_matches(BlasKernel::SkylakeX); }
TEST(SgemmOrders, TrainingWalkAtGpt2WidthHaswell) { expect_walk_matches(BlasKernel::Haswell); }

// The bench's fast paths under Haswell's order, 1 and 2 OpenBLAS threads, against PyTorch run
// under that kernel (tests/golden/haswell_fast.json, make_haswell_fast_goldens.py): the prepared
// projections, the fused causal attention forward (on every instruction set) and its backward
// (on the vector ones), each asserted to have run (not the step-by-step forward or the
// reference backward) and to have recomputed two-chain outputs.
void expect_tensor_digest(const nlohmann::json& want, const Tensor& got, const std::string& what) {
  EXPECT_EQ(Shape(want["shape"].get<std::vector<int64_t>>()), got.shape) << what;
  for (const auto& sample : want["samples"]) {
    const size_t i = sample[0].get<size_t>();
    ASSERT_LT(i, got.data.size()) << what;
    EXPECT_EQ(fmt::format("{:08x}", test::bits(got.data[i])), sample[1].get<std::string>()) << what << " [" << i << "]";
  }
  EXPECT_EQ(test::fnv1a64(got.data), want["fnv1a64"].get<std::string>()) << what;
}

TEST(SgemmOrders, HaswellFastPathsEqualPyTorch) {
  OrderScope restore;
  const auto doc = test::load_json(test::tests_dir() + "/golden/haswell_fast.json");
  for (int threads : {1, 2}) {
    kernels::set_blas_order(BlasOrder{BlasKernel::Haswell, threads});
    for (const auto& c : doc["threads"][std::to_string(threads)]) {
      const int64_t T = c["tokens"], D = c["d_model"], H = c["heads"];
      const auto& want = c["tensors"];
      std::set<kernels::Isa> seen;  // each instruction set the host has, once
      for (kernels::Isa isa :
           {kernels::Isa::Scalar, kernels::Isa::Avx2, kernels::Isa::Avx512, kernels::Isa::Neon}) {
        const kernels::Isa used = kernels::set_active_isa(isa);
        if (!seen.insert(used).second) continue;
        const std::string at =
            fmt::format("T = {}, D = {}, {} OpenBLAS threads, {}: ", T, D, threads, kernels::isa_name(used));
        // The bench's draws: x, the module, the forward, then grad_y.
        TorchGenerator gen(c["seed"].get<uint64_t>());
        const Tensor x = randn(gen, {1, T, D});
        const MultiHeadAttention mha(gen, D, D, T, 0.0, H, false, DropoutKernel::Default);
        PreparedMultiHeadAttention prepared(mha);
        Tensor y;
        const int64_t tiles = kernels::two_chain_tiles_run();
        prepared.forward(gen, x, y);
        EXPECT_TRUE(prepared.fused()) << at;
        EXPECT_GT(kernels::two_chain_tiles_run(), tiles) << at << "no two-chain outputs recomputed";
        expect_tensor_digest(want["y"], y, at + "y");
        const Tensor grad_y = randn(gen, y.shape);
        expect_tensor_digest(want["grad_y"], grad_y, at + "grad_y");
        // The fused backward needs a vector unit.
        if (!kernels::x86_vectors(used) && used != kernels::Isa::Neon) continue;
        MhaGradients grads;
        PreparedMhaBackward backward(mha);
        ASSERT_TRUE(backward.backward(prepared, x, grad_y, grads)) << at << "the fused backward declined";
        for (const auto& [name, tensor] : grads.named()) expect_tensor_digest(want[name], *tensor, at + name + ".grad");
      }
      kernels::set_active_isa(kernels::best_isa());
    }
  }
}

// Batches and head sizes the goldens above do not have, under Haswell's order: the fused forward
// against the step-by-step one (whose products kernels::sgemm computes, checked against
// sgemm_reference by HaswellTwoChains.*), on every instruction set and 1 to 3 kernel threads.
TEST(SgemmOrders, HaswellFusedForwardEqualsTheStepByStepForward) {
  OrderScope restore;
  struct Sizes {
    int64_t B, T, D, H;
    bool qkv_bias;
  };
  for (int blas_threads : {1, 2}) {
    kernels::set_blas_order(BlasOrder{BlasKernel::Haswell, blas_threads});
    for (const Sizes& s : {Sizes{2, 150, 96, 2, false}, Sizes{3, 70, 256, 4, true}, Sizes{1, 300, 64, 2, false}}) {
      TorchGenerator gen(123);
      const Tensor x = randn(gen, {s.B, s.T, s.D});
      const MultiHeadAttention mha(gen, s.D, s.D, s.T, 0.0, s.H, s.qkv_bias, DropoutKernel::Default);
      const Tensor want = mha.forward_traced(gen, x).context_vecs;
      for (kernels::Isa isa : {kernels::Isa::Scalar, kernels::Isa::Avx2, kernels::Isa::Avx512, kernels::Isa::Neon}) {
        const kernels::Isa used = kernels::set_active_isa(isa);
        for (int threads : {1, 2, 3}) {
          kernels::set_num_threads(threads);
          PreparedMultiHeadAttention prepared(mha);
          Tensor y;
          const int64_t tiles = kernels::two_chain_tiles_run();
          prepared.forward(gen, x, y);
          const std::string at = fmt::format("B = {}, T = {}, D = {}, {} OpenBLAS threads, {}, {} threads", s.B, s.T,
                                             s.D, blas_threads, kernels::isa_name(used), threads);
          EXPECT_TRUE(prepared.fused()) << at;
          EXPECT_GT(kernels::two_chain_tiles_run(), tiles) << at;
          ASSERT_EQ(y.shape, want.shape) << at;
          double largest = 0.0;
          EXPECT_EQ(test::count_bit_differences(y.data, want.data, &largest), 0) << at << ", largest difference " << largest;
        }
      }
      kernels::set_active_isa(kernels::best_isa());
      kernels::set_num_threads(0);
    }
  }
}

// The heads alone under Haswell's order: kernels::causal_attention and its backward take every
// product's two-chain outputs, where they once declined (causal_attention_fusable was false).
TEST(SgemmOrders, HaswellFusesTheHeads) {
  OrderScope restore;
  for (int threads : {1, 2}) {
    kernels::set_blas_order(BlasOrder{BlasKernel::Haswell, threads});
    EXPECT_TRUE(kernels::causal_attention_fusable(1, 1024, 64));
    EXPECT_TRUE(kernels::causal_attention_fusable(2, 128, 64));
    EXPECT_TRUE(kernels::causal_attention_fusable(1, 30, 64));  // no small kernels: blocked, fusable
    EXPECT_FALSE(kernels::causal_attention_fusable(2, 6, 2));   // bmm's own loop
  }
}

TEST(SgemmOrders, TheSuiteFixesItsOrder) {
  EXPECT_TRUE(kSuiteOrderFixed);
  EXPECT_EQ(kernels::blas_order().kernel, BlasKernel::Cooperlake);
  EXPECT_EQ(kernels::blas_order().threads, 2);
  EXPECT_EQ(kernels::detected_blas_kernel(), BlasKernel::Cooperlake);  // ATTN_WALK_BLAS_KERNEL
}

TEST(SgemmOrders, KernelNamesAndChoice) {
  BlasKernel k = BlasKernel::Cooperlake;
  EXPECT_TRUE(kernels::parse_blas_kernel("SkylakeX", &k));
  EXPECT_EQ(k, BlasKernel::SkylakeX);
  EXPECT_TRUE(kernels::parse_blas_kernel("haswell", &k));
  EXPECT_EQ(k, BlasKernel::Haswell);
  EXPECT_FALSE(kernels::parse_blas_kernel("zen", &k));
  EXPECT_STREQ(kernels::blas_kernel_name(BlasKernel::SkylakeX), "skylakex");
  // OPENBLAS_CORETYPE as OpenBLAS reads it, when the suite's own variable is not set.
  const char* was = std::getenv("OPENBLAS_CORETYPE");
  const std::string saved = was ? was : "";
  unsetenv("ATTN_WALK_BLAS_KERNEL");
  setenv("OPENBLAS_CORETYPE", "ZEN", 1);
  EXPECT_EQ(kernels::detected_blas_kernel(), BlasKernel::Haswell);
  setenv("OPENBLAS_CORETYPE", "skylakex", 1);
  EXPECT_EQ(kernels::detected_blas_kernel(), BlasKernel::SkylakeX);
  if (was) setenv("OPENBLAS_CORETYPE", saved.c_str(), 1);
  else unsetenv("OPENBLAS_CORETYPE");
  setenv("ATTN_WALK_BLAS_KERNEL", "cooperlake", 1);
}

}  // namespace
}  // namespace attn
