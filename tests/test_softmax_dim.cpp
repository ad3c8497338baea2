// --softmax-dim 1: torch.softmax(scores, dim=1) of (b, T, T) scores, bit for bit against
// PyTorch for 1 to 4 threads (tests/golden/softmax_dim_cases.json, made by
// tests/golden/make_softmax_dim_goldens.py), and the CLI's handling of the option.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "ops/ops.h"
#include "render/render.h"
#include "run_process.h"
#include "stages/stages.h"
#include "test_util.h"
#include "torch/torch_random.h"

namespace attn {
namespace {

// CausalAttention's scores: randn(b, T, T), masked above the diagonal, divided by sqrt(2).
Tensor scores(int64_t b, int64_t T, uint64_t seed) {
  TorchGenerator gen(seed);
  Tensor x = randn(gen, {b, T, T});
  masked_fill_(x, triu_ones(T, 1), -std::numeric_limits<float>::infinity());
  return div_scalar(x, std::sqrt(2.0));
}

TEST(SoftmaxDim1, EqualsPyTorchForEveryThreadCount) {
  const auto cases = test::load_json(test::tests_dir() + "/golden/softmax_dim_cases.json");
  ASSERT_GE(cases.size(), 16u);
  int thread_dependent = 0;
  for (const auto& c : cases) {
    const int64_t b = c["b"], T = c["T"], threads = c["threads"];
    SCOPED_TRACE(fmt::format("b {} T {} threads {}", b, T, threads));
    const Tensor out = softmax_dim1(scores(b, T, c["seed"].get<uint64_t>()), threads);
    EXPECT_EQ(test::fnv1a64(out.data), c["fnv1a64"].get<std::string>());
    thread_dependent += c["differ_from_1_thread"].get<int>() > 0;
  }
  // The cases must include some where the thread count changes the bits.
  EXPECT_GE(thread_dependent, 4);
}

TEST(SoftmaxDim1, ColumnsSumToOne) {
  const Tensor w = softmax_dim1(scores(2, 9, 3), 2);
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t j = 0; j < 9; ++j) {
      double sum = 0;
      for (int64_t i = 0; i < 9; ++i) sum += w.data[(b * 9 + i) * 9 + j];
      EXPECT_NEAR(sum, 1.0, 1e-6);
    }
}

TEST(SoftmaxDim1, CliRejectsOtherDimsAndThreadCounts) {
  // clang-format off
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"--softmax-dim", "0"}, {"--softmax-dim", "2"}, {"--softmax-dim", "x"},
           {"--torch-threads", "0"}, {"--dropout", "nan"}, {"--attn-dropout", "nan"}}) {
    // clang-format on
    std::vector<std::string> argv = {"--stage", "multi-head"};
    argv.insert(argv.end(), args.begin(), args.end());
    test::expect_option_error(test::run_cli(argv), {args[0]});
  }
}

TEST(SoftmaxDim1, TheNotesSayWhichSoftmaxInEnglishAndChinese) {
  const auto r = test::run_cli({"--stage", "multi-head", "--softmax-dim", "1", "--torch-threads", "3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("--softmax-dim 1: CausalAttention normalises"), std::string::npos);
  EXPECT_NE(r.out.find("matches 3 thread(s)"), std::string::npos);
  const auto zh = test::run_cli({"--stage", "multi-head", "--softmax-dim", "1", "--lang", "zh"});
  ASSERT_EQ(zh.exit_code, 0) << zh.err;
  EXPECT_NE(zh.out.find("每一列权重之和为 1"), std::string::npos);
  const auto plain = test::run_cli({"--stage", "multi-head"});
  EXPECT_EQ(plain.out.find("--softmax-dim 1: CausalAttention"), std::string::npos);
  EXPECT_NE(plain.out.find("--softmax-dim 1 shows it"), std::string::npos);
}

}  // namespace
}  // namespace attn
