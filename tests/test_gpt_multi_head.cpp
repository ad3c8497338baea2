// --stage multi-head --weights F --layer L: chapter 3's MultiHeadAttention with a trained block's
// weights, on norm1 of that block's real input, bit for bit against the book's module run by
// PyTorch (tests/golden/make_gpt_multi_head_goldens.py -> tests/golden/gpt/multi-head-*.json);
// which stages take --weights and which refuse it; the walks' headers name the model's shape.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "render/render.h"
#include "request/request.h"
#include "run_process.h"
#include "test_util.h"

namespace attn {
namespace {

using test::fnv1a64;
using test::load_json;
using test::tests_dir;

std::string model_path(const std::string& file) { return tests_dir() + "/data/gpt/" + file; }

Walk multi_head_walk(const std::string& file, int64_t layer, const std::string& lang = "en") {
  WalkRequest r;
  r.stage = StageChoice::MultiHead;
  r.gpt.weights_path = model_path(file);
  r.text.text = "Every effort moves you";
  r.text.given = true;
  r.heads = 2;  // the test models' (the book's files cannot tell it)
  r.heads_given = true;
  r.gpt.layer = layer;
  r.keep_all_values = true;
  r.explain = true;
  r.lang = lang;
  RenderOptions ro;
  std::vector<Walk> walks = make_walks(r, &ro);
  EXPECT_EQ(walks.size(), 1u);
  return std::move(walks.front());
}

class GptMultiHeadGolden : public testing::TestWithParam<std::string> {};

// The walk is exactly the golden's steps, in its order, with its shapes and float32 bits.
TEST_P(GptMultiHeadGolden, WalksTheBlocksModuleBitForBit) {
  const nlohmann::json g = load_json(tests_dir() + "/golden/gpt/multi-head-" + GetParam());
  const Walk walk = multi_head_walk(g["file"].get<std::string>(), g["layer"].get<int64_t>());
  std::vector<std::string> names;
  for (const auto& s : walk.steps)
    if (s.name != "in_idx") names.push_back(s.name);
  std::vector<std::string> want_names;
  for (const auto& want : g["steps"]) want_names.push_back(want["name"].get<std::string>());
  EXPECT_EQ(names, want_names);
  for (const auto& want : g["steps"]) {
    const std::string name = want["name"].get<std::string>();
    SCOPED_TRACE("step " + name);
    ASSERT_TRUE(want.contains("bits"));  // every step of this walk is small enough to store
    test::expect_step_is_golden(test::step_named(walk, name), want);
  }
  std::vector<int64_t> ids;
  for (const float v : test::step_named(walk, "in_idx").value.data) ids.push_back(static_cast<int64_t>(v));
  EXPECT_EQ(ids, g["ids"].get<std::vector<int64_t>>());
  for (const auto& c : walk.checks) EXPECT_TRUE(c.passed) << c.id;
  EXPECT_EQ(walk.checks.size(), 2u);
}

INSTANTIATE_TEST_SUITE_P(EveryModelFile, GptMultiHeadGolden,
                         testing::Values("book.json", "book-pth.json", "book-f16.json", "hf-model.json",
                                         "hf-prefixed-bf16.json"),
                         [](const auto& info) {
                           std::string n = info.param.substr(0, info.param.size() - 5);
                           for (char& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });

// Its mha_context_vecs is the gpt walk's trf_blocks.L.att: the same module on the same input.
TEST(GptMultiHead, OutputIsTheGptWalksAttention) {
  const Walk mh = multi_head_walk("hf/model.safetensors", 0);
  const nlohmann::json g = load_json(tests_dir() + "/golden/gpt/hf-model.json");
  std::string att_digest;
  for (const auto& s : g["steps"])
    if (s["name"] == "trf_blocks.0.att") att_digest = s["digest"].get<std::string>();
  ASSERT_FALSE(att_digest.empty());
  EXPECT_EQ(fnv1a64(test::step_named(mh, "mha_context_vecs").value.data), att_digest);
}

// Every step has its text in both languages, every placeholder filled; the header's input names
// the model's width, not chapter 2's embedding size.
TEST(GptMultiHead, TextsInEnAndZhQuoteTheModel) {
  for (const char* lang : {"en", "zh"}) {
    SCOPED_TRACE(lang);
    const Walk walk = multi_head_walk("book.safetensors", 1, lang);
    for (const auto& s : walk.steps) {
      SCOPED_TRACE(s.name);
      EXPECT_NE(s.title, s.name);
      EXPECT_EQ(s.title.find('{'), std::string::npos) << s.title;
      EXPECT_EQ(s.explanation.find('{'), std::string::npos) << s.explanation;
    }
    EXPECT_NE(test::step_named(walk, "batch").title.find("norm1"), std::string::npos);
    ASSERT_FALSE(walk.notes.empty());
    EXPECT_NE(walk.notes.front().find("book.safetensors"), std::string::npos) << walk.notes.front();
    EXPECT_EQ(walk.config.d_in(), 8);  // the test model's emb_dim
    EXPECT_EQ(walk.config.num_tokens(), 4);
  }
}

TEST(GptMultiHeadCli, TextHeaderNamesTheModelsShape) {
  for (const char* stage : {"gpt", "multi-head"}) {
    const auto r = test::run_process({"--stage", stage, "--weights", model_path("hf/model.safetensors"), "--layer", "1"},
                                     "", false);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("input: --text, 4 x 8:"), std::string::npos) << r.out.substr(0, 400);
  }
}

// The stages that walk the chapter's own weights refuse a weights file: exit 2, nothing on stdout.
TEST(GptMultiHeadCli, OtherStagesRefuseWeights) {
  for (const char* stage : {"causal", "dot-product", "efficient", "all", "bonus"}) {
    SCOPED_TRACE(stage);
    const auto r = test::run_process({"--stage", stage, "--weights", model_path("hf/model.safetensors")}, "", false);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_TRUE(r.out.empty());
    EXPECT_NE(r.err.find("--weights"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("gpt multi-head"), std::string::npos) << r.err;
  }
}

TEST(GptMultiHeadCli, LayerPastTheModelAndEmbeddingsAreUsageErrors) {
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{"--layer", "2"}, std::vector<std::string>{"--random-input", "4x8"}}) {
    std::vector<std::string> args = {"--stage", "multi-head", "--weights", model_path("hf/model.safetensors")};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = test::run_process(args, "", false);
    EXPECT_EQ(r.exit_code, 2) << extra[0];
    EXPECT_TRUE(r.out.empty());
    EXPECT_NE(r.err.find(extra[0] == "--layer" ? "--layer" : "--text"), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace attn
