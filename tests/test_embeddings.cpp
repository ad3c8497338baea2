// The embeddings loader: both JSON forms, float32 rounding, the built-in journey,
// and a precise one-line InputError for every kind of bad input.
#include <gtest/gtest.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "input/embeddings.h"
#include "test_util.h"

namespace fs = std::filesystem;
using attn::Embeddings;
using attn::InputError;

namespace {

using attn::test::read_all;
using attn::test::TempDir;

const std::string kTestsDir = ATTN_WALK_TESTS_DIR;
const std::string kDataDir = ATTN_WALK_DATA_DIR;

std::string bad(const std::string& name) { return kTestsDir + "/data/bad/" + name; }
std::string good(const std::string& name) { return kTestsDir + "/data/good/" + name; }

using attn::test::bits;

// Runs `f`, which must throw InputError; returns its message ("" and a failure otherwise).
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos) << "message is not one line: " << what;
    EXPECT_FALSE(what.empty());
    return what;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected attn::InputError, got another exception: " << e.what();
    return "";
  } catch (...) {
    ADD_FAILURE() << "expected attn::InputError, got a non-std exception";
    return "";
  }
  ADD_FAILURE() << "expected attn::InputError, nothing was thrown";
  return "";
}

std::string parse_error(const std::string& text, const std::string& source = "in.json") {
  return error_of([&] { attn::parse_embeddings(text, source); });
}

std::string load_error(const std::string& path) {
  return error_of([&] { attn::load_embeddings(path); });
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

// EXPECT that `message` starts with `prefix` and contains every fragment.
void expect_message(const std::string& message, const std::string& prefix,
                    const std::vector<std::string>& fragments) {
  EXPECT_TRUE(starts_with(message, prefix)) << "message: " << message << "\nexpected prefix: " << prefix;
  for (const auto& f : fragments)
    EXPECT_NE(message.find(f), std::string::npos) << "message: " << message << "\nmissing: " << f;
}

// Feeds `text` (at most a pipe's 64 KiB) to standard input, fd 0, for the duration of the call.
template <typename F>
auto with_stdin(const std::string& text, F f) {
  int fds[2];
  if (::pipe(fds) != 0 || ::write(fds[1], text.data(), text.size()) != static_cast<ssize_t>(text.size()))
    throw std::runtime_error("with_stdin: cannot fill a pipe");
  ::close(fds[1]);
  struct Restore {
    int saved;
    ~Restore() {
      ::dup2(saved, STDIN_FILENO);
      ::close(saved);
    }
  } restore{::dup(STDIN_FILENO)};
  ::dup2(fds[0], STDIN_FILENO);
  ::close(fds[0]);
  return f();
}

// Runs `f` on a thread with a small stack (to prove deep input cannot overflow it).
void run_with_small_stack(size_t stack_bytes, const std::function<void()>& f) {
  struct Job {
    const std::function<void()>* f;
  } job{&f};
  pthread_attr_t attr;
  ASSERT_EQ(pthread_attr_init(&attr), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, stack_bytes), 0);
  pthread_t thread;
  ASSERT_EQ(pthread_create(
                &thread, &attr,
                [](void* arg) -> void* {
                  (*static_cast<Job*>(arg)->f)();
                  return nullptr;
                },
                &job),
            0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
}

std::string deep_arrays(size_t n) { return std::string(n, '[') + std::string(n, ']'); }

// ---------------------------------------------------------------------------
// Good input

TEST(Embeddings, ObjectFormWithTokens) {
  const Embeddings e = attn::parse_embeddings(
      R"({"tokens": ["Your", "journey"], "embeddings": [[0.43, 0.15, 0.89], [0.55, 0.87, 0.66]]})",
      "x.json");
  EXPECT_EQ(e.tokens, (std::vector<std::string>{"Your", "journey"}));
  EXPECT_EQ(e.inputs.shape, (attn::Shape{2, 3}));
  EXPECT_EQ(e.inputs(0, 0), static_cast<float>(0.43));
  EXPECT_EQ(e.inputs(0, 2), static_cast<float>(0.89));
  EXPECT_EQ(e.inputs(1, 1), static_cast<float>(0.87));
}

TEST(Embeddings, BareArrayDefaultsTokensToX1ToXT) {
  const Embeddings e = attn::parse_embeddings("[[1, 2], [3, 4], [5, 6]]", "x.json");
  EXPECT_EQ(e.tokens, (std::vector<std::string>{"x1", "x2", "x3"}));
  EXPECT_EQ(e.inputs.shape, (attn::Shape{3, 2}));
  EXPECT_EQ(e.inputs.data, (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(Embeddings, ObjectWithoutTokensDefaultsToX1ToXT) {
  const Embeddings e = attn::load_embeddings(good("no_tokens.json"));
  EXPECT_EQ(e.tokens, (std::vector<std::string>{"x1", "x2", "x3"}));
  EXPECT_EQ(e.inputs.shape, (attn::Shape{3, 2}));
}

TEST(Embeddings, SingleRowSingleColumn) {
  const Embeddings e = attn::parse_embeddings("[[7]]", "x.json");
  EXPECT_EQ(e.tokens, (std::vector<std::string>{"x1"}));
  EXPECT_EQ(e.inputs.shape, (attn::Shape{1, 1}));
  EXPECT_EQ(e.inputs(0, 0), 7.0f);
}

TEST(Embeddings, OtherKeysAreIgnoredAndKeyOrderDoesNotMatter) {
  const Embeddings e = attn::load_embeddings(good("metadata.json"));
  EXPECT_EQ(e.tokens, (std::vector<std::string>{"Your", "journey"}));
  EXPECT_EQ(e.inputs.shape, (attn::Shape{2, 3}));
  EXPECT_EQ(e.inputs(1, 2), static_cast<float>(0.66));
}

TEST(Embeddings, BareFileLoads) {
  const Embeddings e = attn::load_embeddings(good("bare.json"));
  EXPECT_EQ(e.tokens, (std::vector<std::string>{"x1", "x2"}));
  EXPECT_EQ(e.inputs.shape, (attn::Shape{2, 3}));
}

TEST(Embeddings, Utf8TokensBomAndBracketsInsideStrings) {
  const Embeddings e = attn::parse_embeddings(
      "\xEF\xBB\xBF{\"tokens\": [\"caf\xC3\xA9\", \"[[[[\", \"\\u00e9\\\"]\"], "
      "\"embeddings\": [[1], [2], [3]]}",
      "x.json");
  EXPECT_EQ(e.tokens, (std::vector<std::string>{"caf\xC3\xA9", "[[[[", "\xC3\xA9\"]"}));
}

TEST(Embeddings, ValuesAreRoundedToFloat32LikeTorchTensor) {
  const Embeddings e = attn::parse_embeddings(
      "[[0.1, 16777217, -0.0, 1e-50, 3.4028235e38, -2, 1.0000001788139343261718749]]", "x.json");
  ASSERT_EQ(e.inputs.shape, (attn::Shape{1, 7}));
  EXPECT_EQ(bits(e.inputs(0, 0)), 0x3DCCCCCDu);       // float32(0.1)
  EXPECT_EQ(e.inputs(0, 1), 16777216.0f);             // 2^24 + 1 is not a float32
  EXPECT_TRUE(std::signbit(e.inputs(0, 2)));          // -0.0 keeps its sign
  EXPECT_EQ(e.inputs(0, 3), 0.0f);                    // underflows to zero, as in PyTorch
  EXPECT_EQ(e.inputs(0, 4), 3.4028234663852886e38f);  // FLT_MAX still fits
  EXPECT_EQ(e.inputs(0, 5), -2.0f);
  // Rounded decimal -> double -> float (as Python then torch.tensor do), not decimal ->
  // float: the double is exactly halfway between two floats and ties to even.
  EXPECT_EQ(e.inputs(0, 6), static_cast<float>(1.0000001788139343261718749));
  EXPECT_EQ(e.inputs(0, 6), 1.0f + std::ldexp(1.0f, -22));
}

TEST(Embeddings, BuiltinJourneyMatchesDataFile) {
  const Embeddings builtin = attn::builtin_journey();
  const Embeddings file = attn::load_embeddings(kDataDir + "/journey.json");
  EXPECT_EQ(builtin.tokens, file.tokens);
  EXPECT_EQ(builtin.inputs.shape, file.inputs.shape);
  ASSERT_EQ(builtin.inputs.data.size(), file.inputs.data.size());
  for (size_t i = 0; i < builtin.inputs.data.size(); ++i)
    EXPECT_EQ(bits(builtin.inputs.data[i]), bits(file.inputs.data[i])) << "element " << i;
}

TEST(Embeddings, BuiltinJourneyIsTheChaptersInputs) {
  const Embeddings e = attn::builtin_journey();
  EXPECT_EQ(e.tokens,
            (std::vector<std::string>{"Your", "journey", "starts", "with", "one", "step"}));
  EXPECT_EQ(e.inputs.shape, (attn::Shape{6, 3}));
  // clang-format off
  const double expected[6][3] = {{0.43, 0.15, 0.89}, {0.55, 0.87, 0.66}, {0.57, 0.85, 0.64},
                                 {0.22, 0.58, 0.33}, {0.77, 0.25, 0.10}, {0.05, 0.80, 0.55}};
  // clang-format on
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 3; ++j)
      EXPECT_EQ(e.inputs(i, j), static_cast<float>(expected[i][j])) << i << "," << j;
}

TEST(Embeddings, StdinIsReadWithDash) {
  const Embeddings e =
      with_stdin(read_all(kDataDir + "/journey.json"), [] { return attn::load_embeddings("-"); });
  EXPECT_EQ(e.tokens, attn::builtin_journey().tokens);
  EXPECT_EQ(e.inputs.data, attn::builtin_journey().inputs.data);
}

TEST(Embeddings, StdinErrorsNameStdin) {
  expect_message(with_stdin("[[1, 2], [3]]", [] { return load_error("-"); }),
                 "<stdin>: line 1, column 10: ", {"row 2 has 1 number, expected 2"});
  expect_message(with_stdin("", [] { return load_error("-"); }), "<stdin>: ", {"empty input"});
  // Binary-safe: a NUL byte arrives intact and is reported as such.
  expect_message(with_stdin(std::string("[[1,\0 2]]", 9), [] { return load_error("-"); }),
                 "<stdin>: line 1, column 5: ", {"NUL byte", "binary"});
}

TEST(Embeddings, ExactlyMaxDepthIsAccepted) {
  // 1 (object) + 63 (metadata) = 64 levels: allowed.
  const std::string meta = std::string(63, '[') + std::string(63, ']');
  const Embeddings e =
      attn::parse_embeddings("{\"meta\": " + meta + ", \"embeddings\": [[1]]}", "x.json");
  EXPECT_EQ(e.inputs.shape, (attn::Shape{1, 1}));
  const std::string too_deep = std::string(64, '[') + std::string(64, ']');
  expect_message(parse_error("{\"meta\": " + too_deep + ", \"embeddings\": [[1]]}"),
                 "in.json: line 1, column 73: ", {"more than 64 levels"});
}

TEST(Embeddings, LargeInputLoadsQuickly) {
  TempDir dir;
  const int rows = 4000, cols = 256;
  std::string text;
  text.reserve(static_cast<size_t>(rows) * cols * 12);
  text += "{\"tokens\": [";
  for (int i = 0; i < rows; ++i) text += (i ? ", \"t" : "\"t") + std::to_string(i) + "\"";
  text += "], \"embeddings\": [\n";
  for (int i = 0; i < rows; ++i) {
    text += i ? ",\n[" : "[";
    for (int j = 0; j < cols; ++j) {
      text += j ? ", " : "";
      text += std::to_string((i * 31 + j * 7) % 1000 / 1000.0 - 0.5);
    }
    text += "]";
  }
  text += "]}\n";
  const std::string path = dir.write("large.json", text);

  const auto t0 = std::chrono::steady_clock::now();
  const Embeddings e = attn::load_embeddings(path);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(e.inputs.shape, (attn::Shape{rows, cols}));
  EXPECT_EQ(e.tokens.back(), "t3999");
  EXPECT_EQ(e.inputs(rows - 1, cols - 1),
            static_cast<float>(((rows - 1) * 31 + (cols - 1) * 7) % 1000 / 1000.0 - 0.5));
  EXPECT_LT(seconds, 10.0) << "loading " << text.size() << " bytes took " << seconds << " s";

  // An error near the end of a large file is still located exactly, quickly.
  std::string broken = text;
  broken.replace(broken.rfind("]]}"), 3, ", 1]]}");
  const auto t1 = std::chrono::steady_clock::now();
  expect_message(parse_error(broken, "large.json"),
                 "large.json: line " + std::to_string(rows + 1) + ", column 1: ",
                 {"row 4000 has 257 numbers, expected 256"});
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count(), 10.0);
}

// ---------------------------------------------------------------------------
// Bad input: fixture files, each with its exact location and key words

struct BadCase {
  const char* file;
  const char* where;  // after "<path>: ", e.g. "line 3, column 14: " ("" when no position)
  std::vector<std::string> fragments;
};

class EmbeddingsBadFile : public ::testing::TestWithParam<BadCase> {};

TEST_P(EmbeddingsBadFile, ThrowsInputErrorNamingFileAndPlace) {
  const BadCase& c = GetParam();
  const std::string path = bad(c.file);
  ASSERT_TRUE(fs::exists(path)) << path;
  expect_message(load_error(path), path + ": " + c.where, c.fragments);
  // parse_embeddings reports the same thing under the given source name.
  expect_message(parse_error(read_all(path), "<stdin>"), std::string("<stdin>: ") + c.where,
                 c.fragments);
}

// clang-format off
const BadCase kBadCases[] = {
    // invalid JSON
    {"syntax_missing_comma.json", "line 5, column 5: ", {"invalid JSON", "unexpected '['", "expected ']'"}},
    {"trailing_comma.json", "line 4, column 1: ", {"invalid JSON", "trailing comma before ']'"}},
    {"truncated.json", "line 5, column 16: ", {"invalid JSON", "unexpected end of input"}},
    {"unterminated_string.json", "line 2, column 32: ", {"invalid JSON", "closing quote"}},
    {"single_quotes.json", "line 1, column 2: ", {"invalid JSON", "double quotes"}},
    {"comment.json", "line 1, column 1: ", {"invalid JSON", "comments"}},
    // shape
    {"ragged.json", "line 6, column 5: ", {"row 3 has 2 numbers, expected 3 like row 1"}},
    {"empty_array.json", "line 1, column 1: ", {"embeddings matrix is empty", "at least one row"}},
    {"empty_matrix.json", "line 1, column 30: ", {"embeddings matrix is empty"}},
    {"empty_row.json", "line 1, column 2: ", {"row 1 is empty", "at least one number"}},
    {"empty_row_later.json", "line 3, column 3: ", {"row 2 is empty", "expected 3 numbers"}},
    {"one_d.json", "line 1, column 2: ",
     {"expected a 2-D array of numbers (tokens x embedding width), got a 1-D array"}},
    {"three_d.json", "line 2, column 4: ",
     {"expected a 2-D array of numbers (tokens x embedding width), got a 3-D array",
      "row 1, column 1 is an array"}},
    {"row_not_array.json", "line 1, column 22: ", {"row 2 is a string (\"journey\"), not an array"}},
    // elements
    {"string_element.json", "line 3, column 16: ",
     {"row 2, column 3 is a string (\"0.66\"); expected a number", "without quotes"}},
    {"null_element.json", "line 3, column 10: ", {"row 2, column 2 is null; expected a number"}},
    {"bool_element.json", "line 1, column 15: ", {"row 1, column 3 is a boolean (true)"}},
    {"nan.json", "line 2, column 10: ", {"row 1, column 2: NaN is not a finite number", "must be finite"}},
    {"infinity.json", "line 3, column 4: ", {"row 2, column 1: -Infinity is not a finite number"}},
    {"float32_overflow.json", "line 3, column 10: ",
     {"row 2, column 2: 1e39 is too large for float32"}},
    {"double_overflow.json", "line 2, column 16: ",
     {"row 1, column 3: 1e400 is too large", "double"}},
    // tokens and keys
    {"token_count.json", "line 2, column 13: ",
     {"\"tokens\" has 3 entries but \"embeddings\" has 2 rows"}},
    {"token_not_string.json", "line 2, column 22: ", {"token 2 is a number (2)", "must be a string"}},
    {"tokens_not_array.json", "line 2, column 13: ", {"\"tokens\" must be an array of strings, got a string"}},
    {"missing_embeddings.json", "",
     {"no \"embeddings\" key", "keys found: \"tokens\", \"embedding\""}},
    {"embeddings_not_array.json", "line 3, column 17: ",
     {"\"embeddings\" must be a 2-D array of numbers", "got an object"}},
    {"duplicate_key.json", "line 3, column 3: ", {"duplicate key \"embeddings\""}},
    {"top_number.json", "line 1, column 1: ", {"expected JSON like {\"tokens\"", "got a number (42)"}},
    {"top_string.json", "line 1, column 1: ", {"got a string (\"Your journey starts with...\")"}},
    {"top_null.json", "line 1, column 1: ", {"got null"}},
    // not JSON text at all
    {"empty.json", "", {"empty input", "expected JSON like"}},
    {"whitespace.json", "", {"only whitespace"}},
    {"binary.bin", "line 3, column 1: ", {"NUL byte", "binary file"}},
    {"nul_byte.json", "line 2, column 8: ", {"NUL byte"}},
    {"invalid_utf8.json", "line 2, column 18: ", {"invalid UTF-8 (byte 0xe9)"}},
    {"utf16.json", "", {"UTF-16", "save it as UTF-8"}},
};
// clang-format on

INSTANTIATE_TEST_SUITE_P(Fixtures, EmbeddingsBadFile, ::testing::ValuesIn(kBadCases),
                         [](const ::testing::TestParamInfo<BadCase>& info) {
                           std::string name = info.param.file;
                           for (char& ch : name)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return name;
                         });

TEST(EmbeddingsBadFileList, EveryFixtureFileIsCovered) {
  std::vector<std::string> listed;
  for (const auto& c : kBadCases) listed.push_back(c.file);
  for (const auto& entry : fs::directory_iterator(kTestsDir + "/data/bad")) {
    const std::string name = entry.path().filename().string();
    EXPECT_NE(std::find(listed.begin(), listed.end(), name), listed.end())
        << "tests/data/bad/" << name << " has no expectation in kBadCases";
  }
}

// ---------------------------------------------------------------------------
// Bad input: inline text

TEST(EmbeddingsErrors, InvalidJsonLineAndColumnCountCharacters) {
  // Columns count characters, not bytes: "é" is one column.
  expect_message(parse_error("{\"tokens\": [\"caf\xC3\xA9\" \"x\"]}"),
                 "in.json: line 1, column 20: ", {"invalid JSON", "unexpected string literal"});
  expect_message(parse_error("[[1, 2],\n [3, 4],\n [5, x]]"), "in.json: line 3, column 6: ",
                 {"invalid JSON", "invalid literal"});
  expect_message(parse_error("[[1]] [[2]]"), "in.json: line 1, column 7: ",
                 {"invalid JSON", "expected end of input"});
}

TEST(EmbeddingsErrors, LongUnterminatedStringKeepsMessageShort) {
  const std::string msg = parse_error("{\"tokens\": [\"" + std::string(100000, 'a'));
  expect_message(msg, "in.json: line 1, column 13: ", {"invalid JSON", "missing closing quote"});
  EXPECT_LT(msg.size(), 300u) << msg;
}

TEST(EmbeddingsErrors, EmptyMatrixAndRows) {
  expect_message(parse_error("[]"), "in.json: line 1, column 1: ", {"embeddings matrix is empty"});
  expect_message(parse_error("[[]]"), "in.json: line 1, column 2: ", {"row 1 is empty"});
  expect_message(parse_error("{\"embeddings\": [[]]}"), "in.json: line 1, column 17: ",
                 {"row 1 is empty"});
  expect_message(parse_error("[[1, 2], []]"), "in.json: line 1, column 10: ",
                 {"row 2 is empty; expected 2 numbers like row 1"});
}

TEST(EmbeddingsErrors, RaggedRowsLongerOrShorter) {
  expect_message(parse_error("[[1, 2], [3, 4, 5]]"), "in.json: line 1, column 10: ",
                 {"row 2 has 3 numbers, expected 2 like row 1"});
  expect_message(parse_error("[[1, 2, 3], [4, 5, 6], [7]]"), "in.json: line 1, column 24: ",
                 {"row 3 has 1 number, expected 3 like row 1"});
}

TEST(EmbeddingsErrors, NonNumbersNameRowAndColumn) {
  expect_message(parse_error("[[1, 2], [3, \"four\"]]"), "in.json: line 1, column 14: ",
                 {"row 2, column 2 is a string (\"four\"); expected a number"});
  expect_message(parse_error("[[null, 2]]"), "in.json: line 1, column 3: ",
                 {"row 1, column 1 is null"});
  expect_message(parse_error("[[1, false]]"), "in.json: line 1, column 6: ",
                 {"row 1, column 2 is a boolean (false)"});
  expect_message(parse_error("[[1, {}]]"), "in.json: line 1, column 6: ",
                 {"row 1, column 2 is an object"});
  expect_message(parse_error("[[1], null]"), "in.json: line 1, column 7: ",
                 {"row 2 is null, not an array"});
}

TEST(EmbeddingsErrors, HigherDimensionalArraysAreNamed) {
  expect_message(parse_error("[[[1, 2]], [[3, 4]]]"), "in.json: line 1, column 3: ",
                 {"expected a 2-D array of numbers (tokens x embedding width), got a 3-D array"});
  expect_message(parse_error("[[[[1]]]]"), "in.json: line 1, column 3: ", {"got a 4-D array"});
  expect_message(parse_error("[[1, 2], [3, [4]]]"), "in.json: line 1, column 14: ",
                 {"got a 3-D array: row 2, column 2 is an array"});
  expect_message(parse_error("{\"embeddings\": [1, 2, 3]}"), "in.json: line 1, column 17: ",
                 {"got a 1-D array"});
}

TEST(EmbeddingsErrors, NonFiniteValues) {
  // Python's json writes these three: read, then refused as values the walk cannot use.
  for (const char* lit : {"NaN", "Infinity", "-Infinity"}) {
    expect_message(parse_error(std::string("[[1, ") + lit + "]]"), "in.json: line 1, column 6: ",
                   {std::string("row 1, column 2: ") + lit + " is not a finite number", "must be finite"});
  }
  // Other spellings are not JSON, not even Python's.
  for (const char* lit : {"nan", "inf", "-inf"}) {
    expect_message(parse_error(std::string("[[1, ") + lit + "]]"), "in.json: line 1, column 6: ",
                   {std::string("row 1, column 2: ") + lit + " is not valid JSON"});
  }
  expect_message(parse_error("[[1e39]]"), "in.json: line 1, column 3: ",
                 {"1e39 is too large for float32"});
  expect_message(parse_error("[[-3.5e38]]"), "in.json: line 1, column 3: ",
                 {"-3.5e38 is too large for float32"});
  expect_message(parse_error("[[1, 1e400]]"), "in.json: line 1, column 6: ",
                 {"row 1, column 2: 1e400 is too large"});
  expect_message(parse_error("[[1, -1e400]]"), "in.json: line 1, column 6: ", {"-1e400 is too large"});
  // A 400-digit integer overflows double too.
  expect_message(parse_error("[[" + std::string(400, '9') + "]]"), "in.json: line 1, column 3: ",
                 {"is too large"});
  // Overflow outside the matrix (metadata) is still reported.
  expect_message(parse_error("{\"scale\": 1e999, \"embeddings\": [[1]]}"),
                 "in.json: line 1, column 11: ", {"1e999 is too large"});
}

// Python's json.dump output: its NaN and infinities elsewhere than in the matrix are read
// (metadata is ignored), and positions after them are still the original text's.
TEST(EmbeddingsErrors, PythonJsonTokens) {
  const attn::Embeddings e = attn::parse_embeddings("{\"scale\": NaN, \"range\": [-Infinity, Infinity], \"embeddings\": [[1, 2]]}",
                                                    "in.json");
  EXPECT_EQ(e.inputs.shape, (attn::Shape{1, 2}));
  expect_message(parse_error("{\"note\": NaN, \"embeddings\": [[1, 2], [3 4]]}"), "in.json: line 1, column 41: ",
                 {"invalid JSON"});
  expect_message(parse_error("[[NaN, 1], [Infinity, \"NaN\"]]"), "in.json: line 1, column 3: ",
                 {"row 1, column 1: NaN is not a finite number"});
  expect_message(parse_error("[[1, \"NaN\"]]"), "in.json: line 1, column 6: ",
                 {"row 1, column 2 is a string (\"NaN\")"});
  expect_message(parse_error("{\"tokens\": [\"a\", NaN], \"embeddings\": [[1], [2]]}"),
                 "in.json: line 1, column 18: ", {"token 2 is NaN (not a finite number)"});
  expect_message(parse_error("[[1, NaNa]]"), "in.json: line 1, column 6: ", {"invalid JSON"});
}

TEST(EmbeddingsErrors, Tokens) {
  expect_message(parse_error("{\"tokens\": [\"a\"], \"embeddings\": [[1], [2]]}"),
                 "in.json: line 1, column 12: ",
                 {"\"tokens\" has 1 entry but \"embeddings\" has 2 rows", "x1..x2"});
  expect_message(parse_error("{\"embeddings\": [[1], [2]], \"tokens\": [\"a\", \"b\", \"c\"]}"),
                 "in.json: line 1, column 38: ", {"\"tokens\" has 3 entries but \"embeddings\" has 2 rows"});
  expect_message(parse_error("{\"tokens\": [], \"embeddings\": [[1]]}"), "in.json: line 1, column 12: ",
                 {"\"tokens\" has 0 entries"});
  expect_message(parse_error("{\"tokens\": [\"a\", null], \"embeddings\": [[1], [2]]}"),
                 "in.json: line 1, column 18: ", {"token 2 is null"});
  expect_message(parse_error("{\"tokens\": [[\"a\"]], \"embeddings\": [[1]]}"),
                 "in.json: line 1, column 13: ", {"token 1 is an array"});
  expect_message(parse_error("{\"tokens\": null, \"embeddings\": [[1]]}"),
                 "in.json: line 1, column 12: ", {"\"tokens\" must be an array of strings, got null"});
  expect_message(parse_error("{\"tokens\": [\"a\"], \"tokens\": [\"a\"], \"embeddings\": [[1]]}"),
                 "in.json: line 1, column 19: ", {"duplicate key \"tokens\""});
}

TEST(EmbeddingsErrors, TopLevelShapes) {
  expect_message(parse_error("{}"), "in.json: ", {"no \"embeddings\" key", "the object is empty"});
  expect_message(parse_error("{\"tokens\": [\"a\"]}"), "in.json: ",
                 {"no \"embeddings\" key", "keys found: \"tokens\""});
  expect_message(parse_error("3.5"), "in.json: line 1, column 1: ", {"got a number (3.5)"});
  expect_message(parse_error("  \"text\""), "in.json: line 1, column 3: ", {"got a string (\"text\")"});
  expect_message(parse_error("true"), "in.json: line 1, column 1: ", {"got a boolean (true)"});
  expect_message(parse_error("{\"embeddings\": \"[[1]]\"}"), "in.json: line 1, column 16: ",
                 {"\"embeddings\" must be a 2-D array", "got a string"});
  expect_message(parse_error("{\"embeddings\": 5}"), "in.json: line 1, column 16: ", {"got a number (5)"});
}

TEST(EmbeddingsErrors, NotText) {
  expect_message(parse_error(""), "in.json: ", {"empty input"});
  expect_message(parse_error(" \n\t\r\n"), "in.json: ", {"only whitespace"});
  expect_message(parse_error("\xEF\xBB\xBF"), "in.json: ", {"only whitespace"});
  expect_message(parse_error(std::string("\0\0\0\0", 4)), "in.json: line 1, column 1: ", {"NUL byte"});
  expect_message(parse_error("[[1]]\xFF"), "in.json: line 1, column 6: ", {"invalid UTF-8 (byte 0xff)"});
  expect_message(parse_error("[[1]]\xC0\x80"), "in.json: line 1, column 6: ",  // overlong NUL
                 {"invalid UTF-8 (byte 0xc0)"});
  expect_message(parse_error("[\"\xED\xA0\x80\"]"), "in.json: line 1, column 3: ",  // a surrogate
                 {"invalid UTF-8"});
  // Random bytes never crash and always produce a one-line message.
  uint32_t state = 12345;
  for (int round = 0; round < 200; ++round) {
    std::string junk(1 + round % 64, '\0');
    for (char& ch : junk) {
      state = state * 1664525u + 1013904223u;
      ch = static_cast<char>(state >> 24);
    }
    expect_message(parse_error(junk, "junk.bin"), "junk.bin: ", {});
  }
}

TEST(EmbeddingsErrors, DeepNestingIsRejectedBeforeParsing) {
  const std::string msg = parse_error(deep_arrays(100000));
  expect_message(msg, "in.json: line 1, column 65: ", {"nest more than 64 levels deep"});
  expect_message(parse_error(std::string(100000, '[')), "in.json: line 1, column 65: ",
                 {"nest more than 64 levels"});
  std::string objects;
  for (int i = 0; i < 100000; ++i) objects += "{\"a\":";
  expect_message(parse_error(objects), "in.json: line 1, column 321: ", {"nest more than 64 levels"});
}

TEST(EmbeddingsErrors, DeepNestingOnASmallStack) {
  // 128 KiB of stack is far less than a recursive parser would need for 100000 levels.
  TempDir dir;
  const std::string path = dir.write("deep.json", deep_arrays(100000));
  std::string from_file, from_text, from_objects;
  run_with_small_stack(128 * 1024, [&] {
    try {
      attn::load_embeddings(path);
    } catch (const InputError& e) {
      from_file = e.what();
    }
    try {
      attn::parse_embeddings(std::string(200000, '[') + "1", "deep.json");
    } catch (const InputError& e) {
      from_text = e.what();
    }
    try {
      std::string objects;
      for (int i = 0; i < 50000; ++i) objects += "{\"a\":[";
      attn::parse_embeddings(objects, "objects.json");
    } catch (const InputError& e) {
      from_objects = e.what();
    }
  });
  expect_message(from_file, path + ": line 1, column 65: ", {"nest more than 64 levels"});
  expect_message(from_text, "deep.json: line 1, column 65: ", {"nest more than 64 levels"});
  expect_message(from_objects, "objects.json: line 1, column ", {"nest more than 64 levels"});
}

// ---------------------------------------------------------------------------
// Files that cannot be read

TEST(EmbeddingsFiles, MissingFile) {
  const std::string path = kTestsDir + "/data/bad/no-such-file.json";
  EXPECT_EQ(load_error(path), path + ": cannot open: No such file or directory");
}

TEST(EmbeddingsFiles, MissingDirectory) {
  const std::string path = kTestsDir + "/data/no-such-dir/x.json";
  EXPECT_EQ(load_error(path), path + ": cannot open: No such file or directory");
}

TEST(EmbeddingsFiles, Directory) {
  const std::string path = kTestsDir + "/data/bad";
  expect_message(load_error(path), path + ": cannot open: Is a directory", {"JSON file"});
}

TEST(EmbeddingsFiles, UnreadableFile) {
  TempDir dir;
  const std::string path = dir.write("secret.json", "[[1]]");
  ASSERT_EQ(::chmod(path.c_str(), 0), 0);
  if (::geteuid() != 0) {
    EXPECT_EQ(load_error(path), path + ": cannot open: Permission denied");
    return;
  }
  // Root reads anything: check as "nobody" in a child process.
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(fds[0]);
    std::string out;
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) {
      out = "SKIP";
    } else {
      try {
        attn::load_embeddings(path);
        out = "NO ERROR";
      } catch (const InputError& e) {
        out = e.what();
      } catch (...) {
        out = "OTHER EXCEPTION";
      }
    }
    if (::write(fds[1], out.data(), out.size()) < 0) ::_exit(2);
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string got;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fds[0], buf, sizeof buf)) > 0) got.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (got == "SKIP") GTEST_SKIP() << "cannot switch to uid 65534 to test an unreadable file";
  EXPECT_EQ(got, path + ": cannot open: Permission denied");
}

}  // namespace
