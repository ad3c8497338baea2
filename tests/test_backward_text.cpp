// --stage backward on a --text input, replayed against PyTorch 1.13
// (tests/golden/backward_text/<name>.json, made by tests/golden/make_backward_goldens.py):
// GPT-2's ids from tiktoken, V = 50257, tok_emb and pos_emb drawn as --text draws them and
// trained. Every step has PyTorch's name, order, shape and printed text; its float32 bits
// are compared value by value, or, for a step of more than 2000 values (logits, the 50257-row
// tables and their gradients), through the golden's FNV-1a 64 digest of them.
#include <gtest/gtest.h>

#include "render/render.h"
#include "stages/stages.h"
#include "test_backward_util.h"
#include "text/text_embeddings.h"
#include "text/vocab.h"

namespace attn {
namespace {

const std::string kDir = test::tests_dir() + "/golden/backward_text";

// The golden's text through the tokenizer and chapter 2's embeddings, as --text does it.
Config text_config(const nlohmann::json& doc) {
  const auto& o = doc["options"];
  const text::TextEmbeddings e =
      text::embed_text(doc["text"].get<std::string>(), "golden", o["embed_dim"].get<int64_t>(),
                       o["seed"].get<uint64_t>(), 1024);
  nlohmann::json with_inputs = doc;
  with_inputs["tokens"] = e.pieces;
  with_inputs["embeddings"] = nlohmann::json::array();
  for (int64_t t = 0; t < e.input_embeddings.size(0); ++t) {
    std::vector<float> row(e.input_embeddings.data.begin() + t * e.input_embeddings.size(1),
                           e.input_embeddings.data.begin() + (t + 1) * e.input_embeddings.size(1));
    with_inputs["embeddings"].push_back(row);
  }
  Config c = test::backward_config(with_inputs);
  c.text = e.text;
  c.token_ids = e.ids;
  c.inputs = e.input_embeddings;
  return c;
}

class BackwardText : public ::testing::TestWithParam<std::string> {};
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(BackwardText);

TEST_P(BackwardText, EveryStepEqualsPyTorch) {
  const auto doc = test::load_json(kDir + "/" + GetParam() + ".json");
  const Config cfg = text_config(doc);
  ASSERT_EQ(cfg.token_ids, doc["token_ids"].get<std::vector<int64_t>>());  // the tokenizer agrees
  const StageInfo* info = find_stage("backward");
  ASSERT_NE(info, nullptr);
  ASSERT_EQ(info->misuse(cfg), "");
  const Walk walk = info->run(cfg);
  test::expect_walk_equals_golden(walk, doc["stages"]["backward"]);
}

INSTANTIATE_TEST_SUITE_P(PyTorch, BackwardText, ::testing::ValuesIn(test::json_files_in(kDir)));

TEST(BackwardTextFiles, TheOutHeadHasGpt2sVocabulary) { EXPECT_EQ(kGpt2Vocab, text::vocab_size()); }

// The goldens reach what the text walk adds: the embedding tables' gradients, a repeated
// input token, and ids 0 and 50256 (rows print() shows of a 50257-row table).
TEST(BackwardTextFiles, CoverRepeatsAndTheTablesEdges) {
  bool repeated = false, first_row = false, last_row = false;
  for (const auto& f : test::json_files_in(kDir)) {
    const auto doc = test::load_json(kDir + "/" + f + ".json");
    auto ids = doc["token_ids"].get<std::vector<int64_t>>();
    ids.pop_back();  // the inputs
    for (size_t i = 0; i < ids.size(); ++i) {
      for (size_t j = 0; j < i; ++j) repeated = repeated || ids[i] == ids[j];
      first_row = first_row || ids[i] == 0;
      last_row = last_row || ids[i] == 50256;
    }
    bool tok_grad = false;
    for (const auto& s : doc["stages"]["backward"]) tok_grad = tok_grad || s["name"] == "tok_emb.weight.grad";
    EXPECT_TRUE(tok_grad) << f;
  }
  EXPECT_TRUE(repeated);
  EXPECT_TRUE(first_row);
  EXPECT_TRUE(last_row);
}

}  // namespace
}  // namespace attn
