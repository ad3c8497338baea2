// Pieces a learner can read (src/text/readable.cpp): GPT-2 splits a Chinese character or an
// emoji over several tokens; read together, each such character is shown once, on its first
// token, and the tokens that continue it are marked ↳. The tokens are the tokenizer's own
// (text::encode, which tests/test_text.cpp checks against tiktoken).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/cli.h"
#include "request/option_table.h"
#include "request/request.h"
#include "core/config.h"
#include "render/heatmap.h"
#include "text/readable.h"
#include "text/text_embeddings.h"
#include "text/tokenizer.h"

namespace attn {
namespace {

std::vector<std::string> bytes_of(const std::string& s) { return text::encode(s, "test").bytes; }

TEST(Readable, ChineseCharactersSplitOverTokensAreShownOnce) {
  const auto bytes = bytes_of("注意力就是你所需要的");
  ASSERT_EQ(bytes.size(), 19u);  // GPT-2: only 是 and 的 are whole tokens
  // Alone, a piece is a byte pair: 注 = <e6 b3> <a8>.
  EXPECT_EQ(text::readable_piece(bytes[0]), "<e6 b3>");
  EXPECT_EQ(text::readable_piece(bytes[1]), "<a8>");
  // Together: each character once, its continuation tokens ↳; 需 takes three tokens.
  EXPECT_EQ(text::readable_pieces(bytes),
            (std::vector<std::string>{"注", "↳", "意", "↳", "力", "↳", "就", "↳", "是", "你", "↳", "所", "↳",
                                      "需", "↳", "↳", "要", "↳", "的"}));
  const auto split = text::split_characters(bytes);
  ASSERT_EQ(split.size(), 8u);
  EXPECT_EQ(split[0].character, "注");
  EXPECT_EQ(split[0].pieces, "<e6 b3> <a8>");
  EXPECT_EQ(split[6].character, "需");
  EXPECT_EQ(split[6].pieces, "<e9> <9c> <80>");
}

TEST(Readable, EmojiAndMixedText) {
  const auto bytes = bytes_of("Hi 👋 there 😀!");
  const auto pieces = text::readable_pieces(bytes);
  ASSERT_EQ(pieces.size(), bytes.size());
  std::string joined;
  for (const auto& p : pieces) joined += p;
  // Every character once, in order (spaces as ·), plus a ↳ per continuing token.
  std::string without_marks = joined;
  for (size_t p; (p = without_marks.find("↳")) != std::string::npos;) without_marks.erase(p, 3);
  EXPECT_EQ(without_marks, "Hi·👋·there·😀!");
  for (const auto& p : pieces) EXPECT_EQ(p.find('<'), std::string::npos) << p;  // no hex left
  const auto split = text::split_characters(bytes);
  ASSERT_FALSE(split.empty());
  EXPECT_EQ(split[0].character, "👋");
  // Plain English is unchanged.
  EXPECT_EQ(text::readable_pieces(bytes_of("Your journey")), (std::vector<std::string>{"Your", "·journey"}));
  EXPECT_TRUE(text::split_characters(bytes_of("Your journey")).empty());
}

TEST(Readable, BytesThatAreNoCharacterStayHex) {
  // A lone continuation byte and a cut-off character: no character to show, so hex.
  EXPECT_EQ(text::readable_pieces({"a\xA8", "\xE6\xB3"}), (std::vector<std::string>{"a<a8>", "<e6 b3>"}));
  // Literal angle brackets in the text are the text's own.
  EXPECT_EQ(text::readable_pieces({"a><b"}), (std::vector<std::string>{"a><b"}));
}

TEST(Readable, HeatmapLabelsShowTheCharacterOnce) {
  // --text: the tokens (heatmap labels, the header) are the grouped pieces.
  const text::TextEmbeddings e = text::embed_text("注意力", "--text", 3, 123, 1024);
  EXPECT_EQ(e.pieces, (std::vector<std::string>{"注", "↳", "意", "↳", "力", "↳"}));
  Config c;
  c.tokens = e.pieces;
  c.inputs = e.input_embeddings;
  Walk walk("test", c);
  HeatmapPlan plan;
  plan.T = 6;
  plan.index = {0, 1, 2, 3, 4, 5};
  bool positions = true;
  EXPECT_EQ(heatmap_labels(walk, plan, &positions), e.pieces);
  EXPECT_FALSE(positions);
}

TEST(Readable, TheTokensStageReadsTheLearnersText) {
  // --stage tokens --text: the tokenizer's cells take the learner's text, as the header says,
  // and the pieces' legend takes its example from it.
  const Options o = parse_walk_options({"--stage", "tokens", "--text", "你好 tea"});
  RenderOptions ro;
  const auto walks = make_walks(o.walk, &ro);
  const Walk& w = walks.at(0);
  const Step *ids = nullptr, *integers = nullptr, *strings = nullptr, *pieces = nullptr;
  for (const auto& s : w.steps) {
    if (s.name == "token_ids") ids = &s;
    if (s.name == "integers") integers = &s;
    if (s.name == "strings") strings = &s;
    if (s.name == "pieces") pieces = &s;
  }
  ASSERT_TRUE(ids && integers && strings && pieces);
  EXPECT_EQ(integers->value.data, ids->value.data);
  EXPECT_EQ(printed_step(*strings), "你好 tea");
  EXPECT_NE(integers->title.find("your text"), std::string::npos) << integers->title;
  const auto split = text::split_characters(text::encode("你好 tea", "t").bytes);
  ASSERT_FALSE(split.empty());
  ASSERT_EQ(pieces->details.size(), 1u);
  EXPECT_NE(pieces->details[0].find(split[0].character + " = " + split[0].pieces), std::string::npos)
      << pieces->details[0];
  // Without --text, the book's sentence, and its own title.
  const auto book = make_walks(parse_walk_options({"--stage", "tokens"}).walk, &ro);
  EXPECT_EQ(printed_step(book.at(0).steps.back()),
            "Hello, do you like tea? <|endoftext|> In the sunlit terracesof someunknownPlace.");
}

}  // namespace
}  // namespace attn
