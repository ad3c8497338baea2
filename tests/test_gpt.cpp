// --stage gpt: chapter 4's GPTModel on every test model of tests/data/gpt/, bit for bit against
// the book's code run by PyTorch (tests/golden/make_gpt_goldens.py -> tests/golden/gpt/), and
// the errors of its options.
#include <gtest/gtest.h>

#include <cstdio>
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

// The walk of one golden's model file, text, layer and new tokens, every value kept.
Walk walk_of(const nlohmann::json& g, bool keep_all = true) {
  WalkRequest r;
  r.stage = StageChoice::Gpt;
  r.gpt.weights_path = model_path(g["file"].get<std::string>());
  r.text.text = g["text"].get<std::string>();
  r.text.given = true;
  r.heads = 2;  // the test models' (the book's files cannot tell it)
  r.heads_given = true;
  r.gpt.layer = g["layer"].get<int64_t>();
  r.gpt.max_new_tokens = g["max_new_tokens"].get<int64_t>();
  r.keep_all_values = keep_all;
  r.explain = true;
  RenderOptions ro;
  std::vector<Walk> walks = make_walks(r, &ro);
  EXPECT_EQ(walks.size(), 1u);
  return std::move(walks.front());
}

std::vector<int64_t> ids_of(const Step& s) {
  std::vector<int64_t> ids;
  for (const float v : s.value.data) ids.push_back(static_cast<int64_t>(v));
  return ids;
}

class GptGolden : public testing::TestWithParam<std::string> {};

// Every golden step is in the walk, in the golden's order, with its shape and the same float32
// bits (a digest for the large ones); the next token's ids and the generated ids agree.
TEST_P(GptGolden, WalksTheBooksModelBitForBit) {
  const nlohmann::json g = load_json(tests_dir() + "/golden/gpt/" + GetParam());
  const Walk walk = walk_of(g);
  size_t at = 0;
  for (const auto& want : g["steps"]) {
    const std::string name = want["name"].get<std::string>();
    SCOPED_TRACE("step " + name);
    while (at < walk.steps.size() && walk.steps[at].name != name) ++at;
    ASSERT_LT(at, walk.steps.size()) << "missing or out of order";
    test::expect_step_is_golden(walk.steps[at], want);
  }
  EXPECT_EQ(ids_of(test::step_named(walk, "in_idx")), g["ids"].get<std::vector<int64_t>>());
  EXPECT_EQ(ids_of(test::step_named(walk, "top5_ids")), g["top5_ids"].get<std::vector<int64_t>>());
  EXPECT_EQ(ids_of(test::step_named(walk, "generated_ids")), g["generated_ids"].get<std::vector<int64_t>>());
  EXPECT_EQ(std::get<WordsPayload>(test::step_named(walk, "top5_tokens").payload).words.size(), 5u);
}

INSTANTIATE_TEST_SUITE_P(EveryModelFile, GptGolden,
                         testing::Values("book.json", "book-pth.json", "book-f16.json", "hf-model.json",
                                         "hf-prefixed-bf16.json"),
                         [](const auto& info) {
                           std::string n = info.param.substr(0, info.param.size() - 5);
                           for (char& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });

// Text output keeps every block but opens only --layer's: the other blocks are one step each.
TEST(GptStage, TextShowsOneLinePerBlockAndOpensTheLayer) {
  const nlohmann::json g = load_json(tests_dir() + "/golden/gpt/book.json");
  const Walk walk = walk_of(g, /*keep_all=*/false);
  int64_t block0 = 0, block1 = 0;
  for (const auto& s : walk.steps) {
    block0 += s.name.rfind("trf_blocks.0", 0) == 0;
    block1 += s.name.rfind("trf_blocks.1", 0) == 0;
  }
  EXPECT_EQ(block0, 1);  // its output, a summary line
  EXPECT_FALSE(std::get<PrintedTextPayload>(test::step_named(walk, "trf_blocks.0").payload).text.empty());
  EXPECT_GT(block1, 10);  // every module and the attention's steps
}

// The explanations quote the walk's own numbers: GELU's negatives, the shortcut's share, the
// head each query looks at.
TEST(GptStage, ExplanationsQuoteTheNumbers) {
  const nlohmann::json g = load_json(tests_dir() + "/golden/gpt/book.json");
  const Walk walk = walk_of(g);
  for (const char* name : {"trf_blocks.0.norm1", "trf_blocks.0.ff.layers.1", "trf_blocks.0.shortcut1",
                           "trf_blocks.0", "trf_blocks.1.att.attn_weights", "top5_probas"}) {
    const Step& s = test::step_named(walk, name);
    SCOPED_TRACE(name);
    EXPECT_FALSE(s.explanation.empty());
    EXPECT_EQ(s.explanation.find('{'), std::string::npos) << s.explanation;  // every placeholder filled
  }
}

TEST(GptCli, WithoutWeightsIsAUsageError) {
  const auto r = test::run_process({"--stage", "gpt", "--text", "Every effort moves you"}, "", false);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("--weights"), std::string::npos) << r.err;
}

TEST(GptCli, ABadFileExitsOneWithTheReadersMessage) {
  const std::string bad = testing::TempDir() + "/not-a-model.safetensors";
  FILE* f = std::fopen(bad.c_str(), "wb");
  std::fputs("this is no safetensors file", f);
  std::fclose(f);
  const auto r = test::run_process({"--stage", "gpt", "--weights", bad}, "", false);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find(bad), std::string::npos) << r.err;
}

TEST(GptCli, LayerPastTheModelIsAUsageError) {
  const auto r = test::run_process({"--stage", "gpt", "--weights", model_path("book.safetensors"), "--heads", "2", "--layer", "2"}, "",
                                   false);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("--layer"), std::string::npos) << r.err;
}

TEST(GptCli, JsonCarriesTheNextTokens) {
  const auto r = test::run_process({"--stage", "gpt", "--weights", model_path("hf/model.safetensors"), "--layer", "0",
                                    "--head", "1", "--format", "json"},
                                   "", false);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  bool tokens = false, head = false;
  for (const auto& s : doc["steps"]) {
    if (s["name"] == "top5_tokens") tokens = s["data"].size() == 5 && s["data"][0].is_string();
    if (s["name"] == "trf_blocks.0.att.attn_weights_head") head = true;
  }
  EXPECT_TRUE(tokens);
  EXPECT_TRUE(head);
}

}  // namespace
}  // namespace attn
