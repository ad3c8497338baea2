// attn-walk bench --gpt: its logits are the --stage gpt walk's out_head, bit for bit, on the small
// test models (the walk's bits are PyTorch's: tests/test_gpt.cpp). No timing is checked.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench/gpt_bench.h"
#include "bench/mha_backward.h"  // fnv1a64
#include "kernels/attention.h"
#include "kernels/parallel.h"
#include "kernels/sgemm.h"
#include "modules/gpt.h"
#include "run_process.h"
#include "stages/stages.h"
#include "test_util.h"
#include "torch/sgemm_order.h"
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

// A GPT-shaped model with head_dim 64 and a context long enough for the fused attention
// (the test files' 16 tokens are below it): weights uniform in [-0.2, 0.2) from a fixed
// seed, LayerNorm scales and shifts off 1 and 0. The parameters point into `store`.
struct SyntheticGpt {
  std::vector<std::vector<float>> store;
  GptParams params;
  ParamView make(Shape shape, std::mt19937& rng, float centre = 0.0f) {
    std::uniform_real_distribution<float> u(-0.2f, 0.2f);
    store.emplace_back(static_cast<size_t>(numel_of(shape)));
    for (float& v : store.back()) v = centre + u(rng);
    ParamView p;
    p.data = store.back().data();
    p.shape = std::move(shape);
    return p;
  }
  SyntheticGpt(int64_t emb, int64_t heads, int64_t layers, int64_t context, int64_t vocab) {
    std::mt19937 rng(123);
    store.reserve(static_cast<size_t>(6 + 16 * layers));
    GptConfig& c = params.cfg;
    c.vocab_size = vocab;
    c.context_length = context;
    c.emb_dim = emb;
    c.n_heads = heads;
    c.n_layers = layers;
    c.qkv_bias = true;
    params.tok_emb = make({vocab, emb}, rng);
    params.pos_emb = make({context, emb}, rng);
    for (int64_t l = 0; l < layers; ++l) {
      GptBlockParams b;
      b.W_query_w = make({emb, emb}, rng);
      b.W_key_w = make({emb, emb}, rng);
      b.W_value_w = make({emb, emb}, rng);
      b.W_query_b = make({emb}, rng);
      b.W_key_b = make({emb}, rng);
      b.W_value_b = make({emb}, rng);
      b.out_proj_w = make({emb, emb}, rng);
      b.out_proj_b = make({emb}, rng);
      b.ff0_w = make({4 * emb, emb}, rng);
      b.ff0_b = make({4 * emb}, rng);
      b.ff2_w = make({emb, 4 * emb}, rng);
      b.ff2_b = make({emb}, rng);
      b.norm1_scale = make({emb}, rng, 1.0f);
      b.norm1_shift = make({emb}, rng);
      b.norm2_scale = make({emb}, rng, 1.0f);
      b.norm2_shift = make({emb}, rng);
      params.blocks.push_back(std::move(b));
    }
    params.final_norm_scale = make({emb}, rng, 1.0f);
    params.final_norm_shift = make({emb}, rng);
    params.out_head = make({vocab, emb}, rng);
  }
};

// The bench's forward (no tracer: every block's attention on the fused kernel) against the walk's
// (every block opened: the chapter's steps, each product through kernels::sgemm, whose bits are
// PyTorch's by SgemmOrders.*), under each sgemm order the suite reproduces, 1 and 2 threads.
TEST(GptBench, FusedAttentionIsTheStepByStepForwardBitForBit) {
  const SyntheticGpt m(/*emb=*/128, /*heads=*/2, /*layers=*/2, /*context=*/200, /*vocab=*/300);
  const GptModel model(m.params);
  kernels::PackedWeights packed;  // the bench's: each weight packed once, then reused
  GptModel prepacked(m.params);
  prepacked.packed_weights = &packed;
  using kernels::BlasKernel;
  using kernels::BlasOrder;
  const BlasOrder before = kernels::blas_order();
  for (const BlasKernel kernel : {BlasKernel::Cooperlake, BlasKernel::SkylakeX, BlasKernel::Haswell}) {
    for (const int threads : {1, 2}) {
      kernels::set_blas_order(BlasOrder{kernel, threads});
      kernels::set_num_threads(threads);
      for (const int64_t T : {64, 130, 200}) {
        SCOPED_TRACE(testing::Message() << kernels::blas_kernel_name(kernel) << ", " << threads << " threads, T = " << T);
        ASSERT_TRUE(kernels::causal_attention_fusable(1, T, 64));  // the fast path is the one taken
        const std::vector<int64_t> ids = gpt_bench_ids(T, 300, 7);
        const Tensor fused = model.forward(ids);
        const Tensor steps = model.forward(
            ids, [](const std::string&, const Tensor&) {}, kEveryBlock);
        ASSERT_EQ(fused.shape, steps.shape);
        double largest = 0.0;
        EXPECT_EQ(test::count_bit_differences(fused.data, steps.data, &largest), 0) << "largest difference " << largest;
        int64_t packs = 0;
        for (int again = 0; again < 2; ++again) {  // packing the weights (or not), then on the kept packs
          const Tensor kept = prepacked.forward(ids);
          ASSERT_EQ(kept.shape, steps.shape);
          EXPECT_EQ(test::count_bit_differences(kept.data, steps.data, &largest), 0)
              << (again ? "kept" : "packing") << ", largest difference " << largest;
          if (again) EXPECT_EQ(packed.count(), packs);  // nothing packed a second time
          packs = packed.count();
        }
        EXPECT_GE(packs, 2 * 6 + 1);  // every block's six weights and out_head
      }
    }
  }
  kernels::set_blas_order(before);
  kernels::set_num_threads(0);
}

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
