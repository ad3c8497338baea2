// .npy input: the fixtures of tests/data/npy (made by make_fixtures.py with numpy), good
// ones loaded through load_embeddings() like any --input, bad ones rejected with a one-line
// message that names the file and the problem.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "input/embeddings.h"
#include "input/npy.h"

namespace attn {
namespace {

const std::string kDir = std::string(ATTN_WALK_TESTS_DIR) + "/data/npy/";

TEST(Npy, Float32LoadsLikeTheJourneyRows) {
  const Embeddings e = load_embeddings(kDir + "f32.npy");
  const Embeddings journey = builtin_journey();
  EXPECT_EQ(e.inputs.shape, (Shape{3, 3}));
  EXPECT_EQ(e.tokens, (std::vector<std::string>{"x1", "x2", "x3"}));
  for (int64_t i = 0; i < 9; ++i) EXPECT_EQ(e.inputs.data[i], journey.inputs.data[i]) << i;
}

TEST(Npy, Float64IsRoundedToFloat32) {
  const Embeddings e = load_embeddings(kDir + "f64.npy");
  EXPECT_EQ(e.inputs.shape, (Shape{3, 2}));
  const double want[] = {0.1, -2.5, 1e-3, 3.0, 1e30, -1e-30};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(e.inputs.data[i], static_cast<float>(want[i])) << i;
}

TEST(Npy, FormatVersionsTwoAndThreeAndAnyFileName) {
  const Embeddings want = load_embeddings(kDir + "f32.npy");
  for (const char* name : {"f32_v2.npy", "f32_v3.npy", "f32.bin"}) {
    const Embeddings e = load_embeddings(kDir + name);
    EXPECT_EQ(e.inputs.shape, want.inputs.shape) << name;
    EXPECT_EQ(e.inputs.data, want.inputs.data) << name;
  }
  EXPECT_EQ(load_embeddings(kDir + "one_row.npy").inputs.shape, (Shape{1, 5}));
}

TEST(Npy, MagicIsRecognised) {
  EXPECT_TRUE(starts_with_npy_magic(std::string("\x93NUMPY\x01\x00", 8)));
  EXPECT_FALSE(starts_with_npy_magic("[[1, 2]]"));
  EXPECT_FALSE(starts_with_npy_magic("\x93NUM"));
}

// A .npy file whose header (version 1.0) names `descr` and shape (1, 1), with one float of data.
std::string npy_with_descr(const std::string& descr) {
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (1, 1), }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string bytes("\x93NUMPY\x01\x00", 8);
  bytes += static_cast<char>(header.size() & 0xff);
  bytes += static_cast<char>(header.size() >> 8);
  return bytes + header + std::string(4, '\0');
}

// The fuzzer found that a dtype's byte count was read with atoi and multiplied by 8: a
// header edited to '<f4444444444444' overflowed an int (undefined behaviour) and named the
// dtype "float-8". Such a dtype is just unknown; the message names no width for it.
TEST(Npy, AnAbsurdDtypeWidthIsUnknownNotAnOverflow) {
  const std::pair<std::string, std::string> cases[] = {
      {"<f4444444444444", "dtype '<f4444444444444' is not supported; expected float32"},
      {"<i99999999999", "dtype '<i99999999999' is not supported; expected float32"},
      {"<f4x", "dtype '<f4x' is not supported; expected float32"},
      {"<f2", "dtype '<f2' (float16) is not supported"},
      {"<c16", "dtype '<c16' (complex128) is not supported"},
  };
  for (const auto& [descr, want] : cases) {
    try {
      parse_npy(npy_with_descr(descr), "x.npy");
      ADD_FAILURE() << "accepted " << descr;
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("x.npy: " + want, 0), 0u) << e.what();
    }
  }
}

struct BadNpy {
  const char* file;
  std::vector<std::string> fragments;
};

class NpyBadFile : public ::testing::TestWithParam<BadNpy> {};

TEST_P(NpyBadFile, IsRejectedWithAPreciseMessage) {
  const auto& c = GetParam();
  const std::string path = kDir + c.file;
  try {
    load_embeddings(path);
    FAIL() << "accepted " << c.file;
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(path + ": ", 0), 0u) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    for (const auto& f : c.fragments) EXPECT_NE(what.find(f), std::string::npos) << what << "\nmissing: " << f;
  }
}

const BadNpy kBad[] = {
    {"not_npy.npy", {"not a NumPy .npy file", "np.save"}},
    {"empty.npy", {"empty file"}},
    {"int64.npy", {"dtype '<i8' (int64) is not supported", "a.astype(np.float32)"}},
    {"float16.npy", {"dtype '<f2' (float16) is not supported"}},
    {"big_endian.npy", {"dtype '>f4' is big-endian", "little-endian"}},
    {"fortran.npy", {"Fortran (column-major) order", "np.ascontiguousarray"}},
    {"one_d.npy", {"expected a 2-D array", "shape (4,) (1-D)", "a.reshape(1, -1)"}},
    {"three_d.npy", {"shape (2, 3, 4) (3-D)"}},
    {"scalar.npy", {"0-D array"}},
    {"no_rows.npy", {"no rows", "(0, 3)"}},
    {"no_cols.npy", {"rows are empty", "(3, 0)"}},
    {"truncated_data.npy", {"truncated .npy file", "shape (3, 3) float32 needs 36 bytes of data, the file has 31"}},
    {"trailing_bytes.npy", {"4 unexpected bytes after the data of shape (3, 3) float32"}},
    {"truncated_header.npy", {"truncated .npy file", "header needs"}},
    {"version9.npy", {"format version 9.0 is not supported"}},
    {"nan.npy", {"row 2, column 1 is nan", "finite"}},
    {"inf.npy", {"row 1, column 2 is inf"}},
    {"f64_overflow.npy", {"row 1, column 3 is 1e+300, which overflows float32"}},
    {"bad_header.npy", {"malformed .npy header", "shape as a tuple"}},
    {"missing_key.npy", {"malformed .npy header", "missing key 'fortran_order'"}},
    {"extra_key.npy", {"malformed .npy header", "unexpected key 'order'"}},
};

INSTANTIATE_TEST_SUITE_P(Fixtures, NpyBadFile, ::testing::ValuesIn(kBad),
                         [](const ::testing::TestParamInfo<BadNpy>& info) {
                           std::string name = info.param.file;
                           for (char& ch : name)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return name;
                         });

}  // namespace
}  // namespace attn

// ---- loading rates (not a check; run on demand) -------------------------------------------
//   build-perf/tests/attn_walk_tests --gtest_also_run_disabled_tests --gtest_filter='*LoadingRate*'
#include <chrono>
#include <cstdio>
#include <fstream>
#include <cstring>
#include <random>

#include <fmt/format.h>

namespace attn {
namespace {

double seconds_to_load(const std::string& path, int repeat) {
  double best = 1e9;
  for (int r = 0; r < repeat; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    const Embeddings e = load_embeddings(path);
    const auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
  }
  return best;
}

TEST(Npy, DISABLED_LoadingRate) {
  std::mt19937 rng(1);
  std::normal_distribution<float> dist;
  for (int64_t T : {1024, 4096}) {
    const int64_t D = 768;
    std::vector<float> values(static_cast<size_t>(T * D));
    for (float& v : values) v = dist(rng);
    // JSON as json.dumps(torch.randn(T, D).tolist()) writes it: shortest round-trip doubles.
    std::string json = "{\"embeddings\": [";
    for (int64_t i = 0; i < T; ++i) {
      json += i ? ", [" : "[";
      for (int64_t j = 0; j < D; ++j) json += fmt::format("{}{}", j ? ", " : "", static_cast<double>(values[i * D + j]));
      json += "]";
    }
    json += "]}\n";
    const std::string json_path = ::testing::TempDir() + "attn_walk_rate.json";
    std::ofstream(json_path, std::ios::binary) << json;
    // .npy float32, version 1.0, as np.save writes it.
    std::string header = fmt::format("{{'descr': '<f4', 'fortran_order': False, 'shape': ({}, {}), }}", T, D);
    while ((10 + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    std::string npy = std::string("\x93NUMPY\x01\x00", 8);
    npy += static_cast<char>(header.size() & 0xff);
    npy += static_cast<char>(header.size() >> 8);
    npy += header;
    npy.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
    const std::string npy_path = ::testing::TempDir() + "attn_walk_rate.npy";
    std::ofstream(npy_path, std::ios::binary) << npy;

    const double tj = seconds_to_load(json_path, 3), tn = seconds_to_load(npy_path, 5);
    std::printf("%lld x %lld: JSON %.1f MB in %.1f ms = %.0f MB/s; .npy %.1f MB in %.2f ms = %.0f MB/s\n",
                static_cast<long long>(T), static_cast<long long>(D), json.size() / 1e6, tj * 1e3,
                json.size() / 1e6 / tj, npy.size() / 1e6, tn * 1e3, npy.size() / 1e6 / tn);
    std::remove(json_path.c_str());
    std::remove(npy_path.c_str());
  }
}

}  // namespace
}  // namespace attn

// ---- JSON: the fast path for plain input reads the same numbers as the full parser ------
// A UTF-8 byte-order mark sends a document to the full (nlohmann) parser, so the same text
// with and without it compares the two readers.
namespace attn {
namespace {

void expect_same_embeddings(const std::string& json) {
  const Embeddings fast = parse_embeddings(json, "fast");
  const Embeddings full = parse_embeddings("\xEF\xBB\xBF" + json, "full");
  EXPECT_EQ(fast.tokens, full.tokens) << json;
  EXPECT_EQ(fast.inputs.shape, full.inputs.shape) << json;
  ASSERT_EQ(fast.inputs.data.size(), full.inputs.data.size());
  for (size_t i = 0; i < fast.inputs.data.size(); ++i) {
    uint32_t a, b;
    std::memcpy(&a, &fast.inputs.data[i], 4);
    std::memcpy(&b, &full.inputs.data[i], 4);
    EXPECT_EQ(a, b) << "value " << i << " of " << json;
  }
}

TEST(JsonFastPath, ReadsTheSameNumbersAsTheFullParser) {
  const char* numbers[] = {"0", "-0", "0.0", "-0.0e0", "1", "16777217", "9007199254740993", "123456789012345678901",
                           "1e5", "1E+5", "2.5e-3", "0.1", "0.30000000000000004", "1e-45", "1.4e-45", "7e-46",
                           "1e-40", "3.4028235e38", "-3.4028234663852886e38", "1.00000005960464477539062500001",
                           "0.43", "-123.456e-7", "4.9406564584124654e-324"};
  std::string row;
  for (const char* n : numbers) row += (row.empty() ? "" : ", ") + std::string(n);
  expect_same_embeddings("[[" + row + "]]");
  expect_same_embeddings("{\"embeddings\": [[" + row + "], [" + row + "]], \"tokens\": [\"a b\", \"c\"]}");
  expect_same_embeddings(" {\n\t\"tokens\" : [ \"Your\" , \"journey\" ] ,\r\n \"embeddings\":[[1,2],[3,4]]}\n");
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> dist(-1e3, 1e3);
  std::string big = "[";
  for (int r = 0; r < 50; ++r) {
    big += r ? ", [" : "[";
    for (int c = 0; c < 40; ++c) big += fmt::format("{}{}", c ? ", " : "", dist(rng) * std::pow(10.0, (c % 9) - 4));
    big += "]";
  }
  expect_same_embeddings(big + "]");
}

TEST(JsonFastPath, LeavesProblemsToTheFullParser) {
  // Each is rejected with the full parser's message (tested in test_embeddings.cpp); here:
  // the fast path does not accept any of them by mistake.
  // clang-format off
  const char* bad[] = {"[[1, 2], [3]]",        "[[01]]",          "[[1.]]",           "[[.5]]",          "[[+1]]",
                       "[[1e]]",               "[[NaN]]",         "[[1, 2,]]",        "[[1] [2]]",       "[]",
                       "[[]]",                 "[[3.4028236e38]]", "[[1e400]]",       "{\"embeddings\": [[1]], \"embeddings\": [[2]]}",
                       "{\"tokens\": [\"a\", \"b\"], \"embeddings\": [[1]]}", "[[1]] x", "{\"embeddings\": [[1]]",
                       "[[\"1\"]]"};
  // clang-format on
  for (const char* json : bad) EXPECT_THROW(parse_embeddings(json, "bad"), InputError) << json;
}

}  // namespace
}  // namespace attn
