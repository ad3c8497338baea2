// The kernels of the backward stage against PyTorch 1.13, one at a time, on inputs chosen
// to reach every path (tests/golden/backward_primitives.json, made by
// tests/golden/make_backward_primitives.py): softmax's and log_softmax's backward over rows
// around the 8-lane vectors, the NLL's 16-row cascade, SLEEF's logf, sums down columns in
// groups of 4, 8 and 32, a.T @ b through OpenBLAS's NT kernels, and AdamW/SGD with their
// scalar tail.
#include <gtest/gtest.h>

#include "modules/train.h"
#include "ops/ops.h"
#include "ops/ops_backward.h"
#include "test_util.h"
#include "torch/sgemm_order.h"
#include "torch/torch_kernels.h"
#include "torch/torch_random.h"
#include "torch/torch_sleef.h"

namespace attn {
namespace {

const nlohmann::json& doc() {
  static const nlohmann::json d = test::load_json(test::tests_dir() + "/golden/backward_primitives.json");
  return d;
}

std::vector<float> floats(const nlohmann::json& j) {
  std::vector<float> out;
  for (const auto& v : j) out.push_back(static_cast<float>(v.get<double>()));
  return out;
}

void expect_bits(const std::vector<float>& got, const nlohmann::json& want) {
  double max_diff = 0;
  const auto n = test::count_bit_differences(got, floats(want), &max_diff);
  EXPECT_EQ(n, 0) << n << " of " << got.size() << " differ (largest " << max_diff << ")";
}

TEST(BackwardPrimitives, SoftmaxBackward) {
  for (const auto& c : doc()["softmax_backward"]) {
    const int64_t n = c["n"].get<int64_t>();
    SCOPED_TRACE("row length " + std::to_string(n));
    const Tensor w({3, n}, floats(c["weights"])), g({3, n}, floats(c["grad"]));
    expect_bits(softmax_backward(g, w).data, c["out"]);
  }
}

TEST(BackwardPrimitives, CrossEntropyForwardAndBackward) {
  for (const auto& c : doc()["cross_entropy"]) {
    const int64_t N = c["N"].get<int64_t>(), V = c["V"].get<int64_t>();
    SCOPED_TRACE(std::to_string(N) + " rows of " + std::to_string(V));
    const auto targets = c["targets"].get<std::vector<int64_t>>();
    const Tensor log_probs = log_softmax_lastdim(Tensor({N, V}, floats(c["logits"])));
    expect_bits(log_probs.data, c["log_probs"]);
    EXPECT_EQ(test::bits(nll_loss_mean(log_probs, targets).item()), test::bits(static_cast<float>(c["loss"].get<double>())));
    expect_bits(log_softmax_backward(nll_loss_backward(N, V, targets), log_probs).data, c["grad"]);
  }
}

TEST(BackwardPrimitives, SleefLogf) {
  const auto x = floats(doc()["logf"]["x"]);
  std::vector<float> got;
  for (float v : x) got.push_back(kernels::sleef_logf(v));
  expect_bits(got, doc()["logf"]["log"]);
}

TEST(BackwardPrimitives, ColumnSums) {
  for (const auto& c : doc()["column_sums"]) {
    const int64_t rows = c["rows"].get<int64_t>(), cols = c["cols"].get<int64_t>();
    SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols));
    TorchGenerator gen;
    gen.manual_seed(c["seed"].get<uint64_t>());
    const Tensor t = randn(gen, {rows, cols});
    expect_bits(sum_dim0(t).data, c["sum"]);
    // The columns summed in runs, as threads share them out, give the same bits: each column
    // goes the way its place in the whole width sends it (multi_row_sum or row_sum), whatever
    // run it falls in. Runs of 13 cut through the 32-column groups.
    std::vector<float> runs(static_cast<size_t>(cols), -1.0f);
    for (int64_t begin = 0; begin < cols; begin += 13)
      kernels::column_sums(t.data.data(), rows, cols, runs.data(), begin, std::min(cols, begin + 13));
    expect_bits(runs, c["sum"]);
  }
}

TEST(BackwardPrimitives, TransposedAProducts) {
  for (const auto& c : doc()["mm_at"]) {
    const int64_t K = c["K"].get<int64_t>(), M = c["M"].get<int64_t>(), N = c["N"].get<int64_t>();
    SCOPED_TRACE(std::to_string(K) + " x " + std::to_string(M) + " x " + std::to_string(N));
    TorchGenerator gen;
    gen.manual_seed(c["seed"].get<uint64_t>());
    const Tensor a = randn(gen, {K, M});
    const Tensor b = randn(gen, {K, N});
    // As a Linear's weight gradient: W.grad = grad_out.T @ x, grad_out = a, x = b.
    const Tensor W = Tensor::zeros({M, N});
    expect_bits(linear_backward(a, b, W, false).weight.data, c["c"]);
    // The reference definition gives the same bits.
    Tensor ref = Tensor::zeros({M, N});
    kernels::SgemmCall call;
    call.M = M;
    call.N = N;
    call.K = K;
    call.A = a.data.data();
    call.lda = M;
    call.a_transposed = true;
    call.B = kernels::ConstMat{b.data.data(), N, false};
    call.C = ref.data.data();
    call.ldc = N;
    kernels::sgemm_reference(call);
    expect_bits(ref.data, c["c"]);
  }
}

TEST(BackwardPrimitives, OptimizersThreeSteps) {
  for (const auto& c : doc()["adamw"]) {
    const std::string kind = c["optimizer"].get<std::string>();
    SCOPED_TRACE(kind);
    Tensor p({37}, floats(c["start"]));
    Optimizer o;
    o.kind = kind == "adamw" ? Optimizer::Kind::AdamW : Optimizer::Kind::SGD;
    o.lr = kind == "adamw" ? 0.01 : 0.3;
    o.weight_decay = kind == "adamw" ? 0.1 : 0.0;  // torch.optim.SGD([p], lr=0.3): its default, no decay
    for (const auto& g : c["grads"]) {
      const Tensor grad({37}, floats(g));
      o.step({&p}, {&grad});
    }
    expect_bits(p.data, c["param"]);
    if (kind == "adamw") {
      expect_bits(o.exp_avg[0].data, c["exp_avg"]);
      expect_bits(o.exp_avg_sq[0].data, c["exp_avg_sq"]);
    }
  }
}

}  // namespace
}  // namespace attn
