// attn-walk bench --gpt: its logits are the --stage gpt walk's out_head, bit for bit, on the small
// test models (the walk's bits are PyTorch's: tests/test_gpt.cpp). No timing is checked.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "bench/gpt_bench.h"
#include "bench/mha_backward.h"  // fnv1a64
#include "run_process.h"
#include "stages/stages.h"
#include "test_util.h"
#include "weights/gpt_weights.h"

namespace attn {
namespace {

std::string model_path(const std::string& file) { return test::tests_dir() + "/data/gpt/" + file; }

BenchOptions gpt_options(const std::string& file, int64_t tokens) {
  BenchOptions o;
  o.gpt = true;
  o.weights = model_path(file);
  o.heads = 2;  // the test models'
  o.tokens = tokens;
  o.repeat = 1;
  o.probe = false;
  return o;
}

// The gpt walk's out_head on the same ids.
Tensor walk_logits(const std::string& file, const std::vector<int64_t>& ids) {
  Config cfg;
  cfg.token_ids = ids;
  cfg.inputs = Tensor::zeros({static_cast<int64_t>(ids.size()), 1});  // a request's: one row per token
  for (size_t i = 0; i < ids.size(); ++i) cfg.tokens.push_back("t" + std::to_string(i));
  cfg.gpt.weights_path = model_path(file);
  cfg.gpt.params = std::make_shared<const GptParams>(load_gpt_weights(cfg.gpt.weights_path, 2));
  cfg.gpt.all_steps = true;
  const Walk walk = run_gpt(cfg);
  return test::step_named(walk, "out_head").value;
}

class GptBench : public testing::TestWithParam<std::string> {};

TEST_P(GptBench, LogitsAreTheWalksBitForBit) {
  for (const int64_t T : {1, 7, 16}) {  // 16: the test models' whole context
    SCOPED_TRACE(T);
    const BenchOptions o = gpt_options(GetParam(), T);
    const BenchReport r = run_bench(o);
    const std::vector<int64_t> ids = gpt_bench_ids(T, 50257, o.seed);
    const Tensor want = walk_logits(GetParam(), ids);
    ASSERT_EQ(r.digests.size(), 1u);
    EXPECT_EQ(r.digests[0].name, "logits");
    EXPECT_EQ(r.shape, (Shape{1, T, 50257}));
    EXPECT_EQ(r.digests[0].shape, want.shape);
    EXPECT_EQ(r.digests[0].fnv1a64, fnv1a64(want.data.data(), want.data.size()));
    ASSERT_EQ(r.first.size(), 8u);
    for (size_t i = 0; i < r.first.size(); ++i) EXPECT_EQ(test::bits(r.first[i]), test::bits(want.data[i]));
    EXPECT_EQ(r.gpt_model.n_layers, 2);
  }
}

INSTANTIATE_TEST_SUITE_P(EveryFormat, GptBench,
                         testing::Values("book.safetensors", "book.pth", "hf/model.safetensors"),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n)
                             if (c == '.' || c == '/' || c == '-') c = '_';
                           return n;
                         });

TEST(GptBench, IdsWalkTheVocabulary) {
  const std::vector<int64_t> ids = gpt_bench_ids(4, 50257, 123);
  EXPECT_EQ(ids, (std::vector<int64_t>{123, 123 + 9973, 123 + 2 * 9973, 123 + 3 * 9973}));
  const std::vector<int64_t> wrapped = gpt_bench_ids(7, 50257, 123);
  EXPECT_EQ(wrapped[6], (123 + 6 * 9973) % 50257);
}

// The CLI: its JSON carries the digest; misuse exits 2 with nothing on stdout.
TEST(GptBenchCli, JsonAndMisuse) {
  const auto ok = test::run_process({"bench", "--gpt", "--weights", model_path("hf/model.safetensors"), "--heads", "2",
                                     "--tokens", "5", "--repeat", "1", "--no-probe", "--format", "json"},
                                    "", false);
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  const auto doc = nlohmann::json::parse(ok.out);
  EXPECT_EQ(doc["gpt"]["logits_fnv1a64"].get<std::string>().size(), 16u);
  EXPECT_EQ(doc["shape"], nlohmann::json::array({1, 5, 50257}));
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"bench", "--gpt"},
        std::vector<std::string>{"bench", "--weights", model_path("hf/model.safetensors")},
        std::vector<std::string>{"bench", "--gpt", "--weights", model_path("hf/model.safetensors"), "--heads", "2",
                                 "--tokens", "17"}}) {
    const auto r = test::run_process(args, "", false);
    EXPECT_EQ(r.exit_code, 2) << args.back() << ": " << r.err;
    EXPECT_TRUE(r.out.empty());
  }
}

}  // namespace
}  // namespace attn
