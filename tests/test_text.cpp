// --text: GPT-2's tokenizer against tiktoken itself, and chapter 2's embeddings and every
// stage on them against PyTorch (goldens from tests/golden/make_text_goldens.py).
#include <gtest/gtest.h>

#include <filesystem>

#include <fmt/format.h>

#include "core/utf8.h"
#include "ops/ops.h"
#include "stages/stages.h"
#include "stages/tokens.h"
#include "test_util.h"
#include "text/readable.h"
#include "text/text_embeddings.h"
#include "text/tokenizer.h"
#include "text/unicode_class.h"
#include "text/vocab.h"
#include "torch/torch_random.h"

namespace attn {
namespace {

std::string corpus_file(const std::string& name) { return test::tests_dir() + "/data/text/" + name; }
nlohmann::json text_golden(const std::string& name) {
  return test::load_json(test::tests_dir() + "/golden/text/" + name + ".json");
}

// ---- the tokenizer ------------------------------------------------------------------------

TEST(Tokenizer, TheChaptersSentenceIsItsSixTokens) {
  EXPECT_EQ(text::encode("Your journey starts with one step", "t").ids,
            (std::vector<int64_t>{7120, 7002, 4940, 351, 530, 2239}));
}

TEST(Tokenizer, TheBooksCellWithEndOfText) {
  EXPECT_EQ(text::encode("Hello, do you like tea? <|endoftext|> In the sunlit terracesof someunknownPlace.", "t").ids,
            (std::vector<int64_t>{15496, 11, 466, 345, 588, 8887, 30, 220, 50256, 554, 262, 4252, 18250, 8812,
                                  2114, 1659, 617, 34680, 27271, 13}));
}

TEST(Tokenizer, TheVerdictIs5145TokensAsTheBookPrints) {
  const std::string verdict = test::read_all(corpus_file("the-verdict.txt"));
  ASSERT_EQ(verdict.size(), 20479u);
  EXPECT_EQ(text::encode(verdict, "the-verdict.txt").ids.size(), 5145u);
}

// Every file of tests/data/text/: tiktoken's ids (tests/node/reference_ids.cjs), and the
// text back from them.
TEST(Tokenizer, EqualsTiktokenOnTheCorpusAndDecodesBack) {
  const auto ids = test::load_json(test::tests_dir() + "/golden/text/reference_ids.json");
  ASSERT_GE(ids.size(), 10u);
  for (const auto& [name, ref] : ids.items()) {
    SCOPED_TRACE(name);
    const std::string content = test::read_all(corpus_file(name));
    ASSERT_FALSE(content.empty());
    const text::Encoding e = text::encode(content, name);
    EXPECT_EQ(e.ids, ref["tiktoken"].get<std::vector<int64_t>>());
    EXPECT_EQ(text::decode(e.ids), content);
    std::string joined;
    for (const auto& b : e.bytes) joined += b;
    EXPECT_EQ(joined, content);
  }
}

// gpt-3-encoder's JavaScript \s counts U+FEFF as whitespace; tiktoken's regex engine (and
// Unicode's White_Space) does not, so " \ufeff" is one piece there: tiktoken is followed.
TEST(Tokenizer, WhereGpt3EncoderDiffersTiktokenIsFollowed) {
  const auto ids = test::load_json(test::tests_dir() + "/golden/text/reference_ids.json");
  const auto& edges = ids.at("unicode_edges.txt");
  EXPECT_NE(edges["tiktoken"], edges["gpt_3_encoder"]);
  EXPECT_EQ(text::encode("x \xEF\xBB\xBFy", "t").ids, (std::vector<int64_t>{87, 27332, 119, 123, 88}));
}

TEST(Tokenizer, UnicodeClassesComeFromUnicodeData) {
  EXPECT_TRUE(text::is_letter(U'a'));
  EXPECT_TRUE(text::is_letter(U'中'));
  EXPECT_TRUE(text::is_letter(U'ǅ'));           // Lt
  EXPECT_TRUE(text::is_letter(U'\U00020000'));  // inside a "First>..Last>" range of CJK Ext. B
  EXPECT_FALSE(text::is_letter(U'\u0301'));     // a combining mark is Mn, not L
  EXPECT_TRUE(text::is_number(U'٣'));
  EXPECT_TRUE(text::is_number(U'½'));  // No
  EXPECT_TRUE(text::is_number(U'Ⅻ'));  // Nl
  EXPECT_TRUE(text::is_space(U'\u0085'));
  EXPECT_TRUE(text::is_space(U'\u3000'));
  EXPECT_FALSE(text::is_space(U'\uFEFF'));
  EXPECT_FALSE(text::is_space(U'\u200B'));
}

TEST(Tokenizer, InvalidUtf8NamesTheByteOffset) {
  for (const auto& [bad, offset] : std::vector<std::pair<std::string, int>>{
           {"ab\xFF", 2}, {"ok \xE6\xB3", 3}, {"\xC0\xAF", 0}, {"a\xED\xA0\x80", 1}, {"<|endoftext|>x\x80", 14}}) {
    try {
      text::encode(bad, "notes.txt");
      ADD_FAILURE() << "no error for offset " << offset;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("notes.txt: byte " + std::to_string(offset) + ": invalid UTF-8"),
                std::string::npos)
          << e.what();
    }
  }
}

// The one UTF-8 decoder (the tokenizer, the input checks and the terminal's labels use it)
// against the definition: a byte sequence is a character exactly when it is the shortest
// encoding of a code point up to U+10FFFF that is not a surrogate. Every sequence of one to
// three bytes, and four-byte ones around every boundary; each also cut short.
std::string encode_utf8(char32_t cp) {
  std::string out;
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return out;
}

std::string hex(const std::string& bytes) {
  std::string out;
  for (unsigned char c : bytes) out += fmt::format("{:02x} ", c);
  return out;
}

// The definition: `bytes` is a character when its bits spell a code point (a lead byte of
// the right form for its length, then 10xxxxxx bytes) that is a scalar value (at most
// U+10FFFF, not a surrogate) and `bytes` is that code point's shortest encoding.
bool is_character(const std::string& bytes, char32_t* cp) {
  const size_t n = bytes.size();
  const auto lead = static_cast<unsigned char>(bytes[0]);
  const unsigned char lead_mask[] = {0, 0x80, 0xE0, 0xF0, 0xF8}, lead_bits[] = {0, 0x00, 0xC0, 0xE0, 0xF0};
  if (n < 1 || n > 4 || (lead & lead_mask[n]) != lead_bits[n]) return false;
  char32_t value = lead & static_cast<unsigned char>(~lead_mask[n]);
  for (size_t k = 1; k < n; ++k) {
    const auto c = static_cast<unsigned char>(bytes[k]);
    if ((c & 0xC0) != 0x80) return false;
    value = (value << 6) | (c & 0x3F);
  }
  *cp = value;
  return value <= 0x10FFFF && (value < 0xD800 || value > 0xDFFF) && encode_utf8(value) == bytes;
}

TEST(Utf8, DecodesExactlyTheShortestFormsOfScalarValues) {
  size_t accepted = 0;
  auto check = [&](const std::string& bytes) {
    const text::Utf8Char got = text::decode_utf8_char(bytes, 0);
    int want_length = 0;  // the character `bytes` starts with, if any, by the definition
    char32_t want_value = 0, cp = 0;
    for (size_t n = 1; n <= bytes.size(); ++n)
      if (is_character(bytes.substr(0, n), &cp)) {
        want_length = static_cast<int>(n);
        want_value = cp;
      }
    ASSERT_EQ(got.length, want_length) << hex(bytes);
    if (want_length > 0) ASSERT_EQ(got.value, want_value) << hex(bytes);
    if (want_length == static_cast<int>(bytes.size())) ++accepted;
  };
  for (int a = 0; a < 256; ++a) {
    check(std::string(1, static_cast<char>(a)));
    for (int b = 0; b < 256; ++b) {
      check({static_cast<char>(a), static_cast<char>(b)});
      for (int c = 0; c < 256 && a >= 0xE0 && a <= 0xEF; ++c)  // three bytes after every three-byte lead
        check({static_cast<char>(a), static_cast<char>(b), static_cast<char>(c)});
    }
  }
  // Four bytes (and the first three of them alone): every lead from F0 and every second
  // byte, with the last byte at both ends of the continuation range and just outside it.
  for (int a = 0xF0; a < 256; ++a)
    for (int b = 0; b < 256; ++b) {
      check({static_cast<char>(a), static_cast<char>(b), '\x80'});
      for (int d : {0x7F, 0x80, 0xBF, 0xC0})
        check({static_cast<char>(a), static_cast<char>(b), '\x80', static_cast<char>(d)});
    }
  // Every valid sequence of one to three bytes (ASCII, 2-byte, 3-byte without the surrogates)
  // and the four-byte ones sampled: F0 90-BF, F1-F3 80-BF, F4 80-8F, each with 2 last bytes.
  EXPECT_EQ(accepted, 128u + 1920u + 61440u + (48u + 3u * 64u + 16u) * 2u);
}

TEST(Readable, SpacesAsMarksPartialCharactersAsBytes) {
  EXPECT_EQ(text::readable_piece(" journey"), "\xC2\xB7journey");
  EXPECT_EQ(text::readable_piece("\xE6\xB3"), "<e6 b3>");
  EXPECT_EQ(text::readable_piece("\xB3\xA8\xE6"), "<b3 a8 e6>");
  EXPECT_EQ(text::readable_piece(" \xE6\xB3"), "\xC2\xB7<e6 b3>");
  EXPECT_EQ(text::readable_piece("\n\n\t"), "\\n\\n\\t");
  EXPECT_EQ(text::readable_piece("\x1B[31m"), "<1b>[31m");
  EXPECT_EQ(text::readable_piece("中"), "中");
  // No piece of a Chinese sentence shows U+FFFD.
  for (const auto& b : text::encode("注意力机制让模型关注其他词。", "t").bytes)
    EXPECT_EQ(text::readable_piece(b).find("\xEF\xBF\xBD"), std::string::npos);
}

// ---- chapter 2's embeddings and the stages on them, against PyTorch ------------------------

class TextGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(TextGolden, EmbeddingsAndEveryStageEqualPyTorch) {
  const auto doc = text_golden(GetParam());
  const auto& o = doc["options"];
  const uint64_t seed = o["seed"].is_null() ? 123 : o["seed"].get<uint64_t>();
  const auto e = text::embed_text(doc["text"].get<std::string>(), "--text", o["embed_dim"].get<int64_t>(), seed, 1024);
  EXPECT_EQ(e.ids, doc["token_ids"].get<std::vector<int64_t>>());

  // The options as the goldens of tests/golden/walks/ give them; the input is the text's.
  Config cfg = test::config_from_golden(nlohmann::json{{"options", o}, {"tokens", e.pieces}, {"embeddings", {{0.0}}}});
  cfg.inputs = e.input_embeddings;
  const Walk steps = run_text_steps(e, cfg);
  Walk tensor_steps("text", cfg);  // the four tensor steps; text and pieces hold words
  for (const auto& s : steps.steps)
    if (!std::holds_alternative<WordsPayload>(s.payload)) tensor_steps.steps.push_back(s);
  test::expect_walk_equals_golden(tensor_steps, doc["text_steps"]);

  for (const auto& [stage, expected] : doc["stages"].items()) {
    SCOPED_TRACE("stage " + stage);
    test::expect_walk_equals_golden(find_stage(stage)->run(cfg), expected);
  }
}

std::vector<std::string> text_goldens() {
  std::vector<std::string> names;
  for (const auto& f : std::filesystem::directory_iterator(test::tests_dir() + "/golden/text")) {
    const std::string stem = f.path().stem().string();
    if (stem != "reference_ids" && stem != "tokens_stage") names.push_back(stem);
  }
  std::sort(names.begin(), names.end());
  return names;
}

INSTANTIATE_TEST_SUITE_P(PyTorch, TextGolden, ::testing::ValuesIn(text_goldens()),
                         [](const auto& info) { return info.param; });

TEST(TextSteps, PiecesAreTheStageLabels) {
  const auto e = text::embed_text("Your journey starts with one step", "--text", 3, 123, 1024);
  EXPECT_EQ(e.pieces, (std::vector<std::string>{"Your", "\xC2\xB7journey", "\xC2\xB7starts", "\xC2\xB7with",
                                                "\xC2\xB7one", "\xC2\xB7step"}));
  Config cfg;
  cfg.tokens = e.pieces;
  cfg.inputs = e.input_embeddings;
  const Walk w = run_text_steps(e, cfg);
  EXPECT_EQ(std::get<WordsPayload>(test::step_named(w, "pieces").payload).printed,
            "['Your', '\xC2\xB7journey', '\xC2\xB7starts', '\xC2\xB7with', '\xC2\xB7one', '\xC2\xB7step']");
  EXPECT_EQ(printed_step(test::step_named(w, "token_ids")), "tensor([7120, 7002, 4940,  351,  530, 2239])");
  EXPECT_EQ(printed_step(test::step_named(w, "text")), "Your journey starts with one step");
}

TEST(TextSteps, BadTextSaysWhatIsWrong) {
  auto message = [](const std::string& t, int64_t max_tokens) {
    try {
      text::embed_text(t, "notes.txt", 3, 123, max_tokens);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("", 1024), "notes.txt: the text is empty; give a sentence to tokenize");
  EXPECT_EQ(message(" \n\t\xE3\x80\x80", 1024), "notes.txt: the text is only whitespace; give a sentence to tokenize");
  EXPECT_NE(message("one two three", 2).find("the text is 3 tokens, more than --max-tokens 2"), std::string::npos);
  EXPECT_NE(message("one two three", 2).find("--max-tokens 3"), std::string::npos);
  EXPECT_NE(message("caf\xC3", 1024).find("notes.txt: byte 3: invalid UTF-8"), std::string::npos);
}

// ---- --stage tokens: chapter 2's cells as the notebook prints them -------------------------

TEST(TokensStage, EqualsTheNotebookAndPyTorch) {
  const auto doc = text_golden("tokens_stage");
  const Walk w = run_tokens(test::book_config());
  Walk tensors("tokens", w.config);
  for (const auto& s : w.steps)
    if (!std::holds_alternative<WordsPayload>(s.payload)) tensors.steps.push_back(s);
  test::expect_walk_equals_golden(tensors, doc["steps"]);
  // The book's own printed values.
  const std::string weight_starts = "Parameter containing:\ntensor([[ 0.3374, -0.1778, -0.1690]";
  EXPECT_EQ(printed_step(test::step_named(w, "embedding_layer.weight")).substr(0, weight_starts.size()),
            weight_starts);
  EXPECT_EQ(printed_step(test::step_named(w, "integers")),
            "[15496, 11, 466, 345, 588, 8887, 30, 220, 50256, 554, 262, 4252, 18250, 8812, 2114, 1659, 617, "
            "34680, 27271, 13]");
  EXPECT_EQ(printed_step(test::step_named(w, "strings")), doc["text"].get<std::string>());
}

TEST(TokensStage, IsNotPartOfStageAll) {
  const StageInfo* tokens = find_stage("tokens");
  ASSERT_NE(tokens, nullptr);
  EXPECT_FALSE(tokens->in_all);
  EXPECT_EQ(chapter_of(tokens->section), "2");
}

}  // namespace
}  // namespace attn

namespace attn {
namespace {

// nn.Embedding(50257, D) drawn whole but kept only at the ids: the same rows as randn's,
// and the generator left where randn leaves it (the position table comes next).
TEST(RandnRows, EqualsRandnAtTheRowsAndLeavesTheGeneratorAlike) {
  for (const auto& [rows, cols] : std::vector<std::pair<int64_t, int64_t>>{
           {50257, 3}, {50257, 4}, {50257, 16}, {7, 2}, {5, 3}, {9, 7}, {1, 16}}) {
    SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols));
    const std::vector<int64_t> ids = {rows - 1, 0, rows / 2, rows - 1, std::max<int64_t>(rows - 2, 0)};
    TorchGenerator a(123), b(123);
    const Tensor all = randn(a, {rows, cols});
    const Tensor some = randn_rows(b, rows, cols, ids);
    EXPECT_EQ(some.shape, (Shape{5, cols}));
    double max_diff = 0;
    EXPECT_EQ(test::count_bit_differences(some.data, embedding(all, ids).data, &max_diff), 0);
    EXPECT_EQ(a.random(), b.random());
  }
}

}  // namespace
}  // namespace attn
