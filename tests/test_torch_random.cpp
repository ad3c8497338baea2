// The generator against PyTorch: the book's test vectors, and tests/golden/rng_cases.json
// (made by tests/golden/make_rng_goldens.py) for rand, randn (serial path, 16-block path,
// tail), uniform_, nn.Linear, xavier_uniform_ and dropout masks.
#include <gtest/gtest.h>

#include <cmath>

#include "modules/chapter.h"
#include "ops/ops.h"
#include "test_util.h"
#include "torch/torch_random.h"

namespace attn {
namespace {

Shape shape_of(const nlohmann::json& args) { return args["shape"].get<Shape>(); }

// Replays one draw of a golden case and returns its values.
std::vector<float> replay(TorchGenerator& gen, const std::string& op, const nlohmann::json& args) {
  if (op == "rand") return rand(gen, shape_of(args)).data;
  if (op == "rand_discard") {  // draws that only move the stream on; the golden keeps none
    rand(gen, shape_of(args));
    return {};
  }
  if (op == "randn") return randn(gen, shape_of(args)).data;
  if (op == "uniform") return uniform(gen, shape_of(args), args["a"].get<double>(), args["b"].get<double>()).data;
  if (op == "xavier") return xavier_uniform(gen, shape_of(args)[0], shape_of(args)[1]).data;
  if (op == "linear") {
    const Linear layer(gen, args["in"].get<int64_t>(), args["out"].get<int64_t>(), args["bias"].get<bool>());
    std::vector<float> v = layer.weight.data;
    if (layer.bias) v.insert(v.end(), layer.bias->data.begin(), layer.bias->data.end());
    return v;
  }
  if (op == "dropout") {
    const Dropout dropout{args["p"].get<double>(), DropoutKernel::Default};
    return dropout(gen, Tensor::full(shape_of(args), 1.0f)).data;
  }
  throw std::runtime_error("unknown op " + op);
}

const nlohmann::json& rng_cases() {
  static const nlohmann::json doc = test::load_json(test::tests_dir() + "/golden/rng_cases.json");
  return doc;
}

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (const auto& c : rng_cases()["cases"]) names.push_back(c["name"].get<std::string>());
  return names;
}

class RngGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(RngGolden, DrawsEqualPyTorch) {
  for (const auto& c : rng_cases()["cases"]) {
    if (c["name"] != GetParam()) continue;
    TorchGenerator gen(c["seed"].get<uint64_t>());
    for (const auto& draw : c["draws"]) {
      const std::string op = draw["op"].get<std::string>();
      SCOPED_TRACE(op + " " + draw["args"].dump());
      const std::vector<float> got = replay(gen, op, draw["args"]);
      const std::vector<float> want = test::flatten(draw["values"]);
      ASSERT_EQ(got.size(), want.size());
      double max_diff;
      EXPECT_EQ(test::count_bit_differences(got, want, &max_diff), 0) << "largest difference " << max_diff;
    }
    return;
  }
  FAIL() << "no case " << GetParam();
}

std::string safe_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string s = info.param;
  for (char& ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(PyTorch, RngGolden, ::testing::ValuesIn(case_names()), safe_name);

TEST(RngGoldenFile, CoversBothNormalPathsAndTheTail) {
  std::set<int> sizes;
  for (const auto& c : rng_cases()["cases"])
    for (const auto& d : c["draws"])
      if (d["op"] == "randn") sizes.insert(static_cast<int>(numel_of(shape_of(d["args"]))));
  for (int n : {6, 15, 16, 20, 21, 32, 40}) EXPECT_TRUE(sizes.count(n)) << n;
}

// ---- the book's test vectors (tests/reference/book-ch03.json) -----------------------------

const nlohmann::json& vectors() {
  static const nlohmann::json doc =
      test::load_json(test::tests_dir() + "/reference/book-ch03.json")["rng_test_vectors"];
  return doc;
}

void expect_close(const std::vector<float>& got, const nlohmann::json& want) {
  const auto w = test::flatten(want);
  ASSERT_EQ(got.size(), w.size());
  // The book prints six decimals.
  for (size_t i = 0; i < w.size(); ++i) EXPECT_NEAR(got[i], w[i], 5e-7) << "index " << i;
}

TEST(BookRngVectors, FirstDrawAfterSeed123) {
  TorchGenerator gen(123);
  EXPECT_EQ(gen.random(), vectors()["first 32-bit draw after manual_seed(123)"].get<uint32_t>());
}

TEST(BookRngVectors, RandAndRandn) {
  TorchGenerator gen(123);
  expect_close(rand(gen, {6}).data, vectors()["torch.manual_seed(123); torch.rand(6)"]);
  gen.manual_seed(123);
  expect_close(randn(gen, {6}).data, vectors()["torch.manual_seed(123); torch.randn(6)"]);
  gen.manual_seed(42);
  expect_close(randn(gen, {1, 4, 8}).data,
               vectors()["torch.manual_seed(42); torch.randn(1, 4, 8) (32 values: the 16-block path)"]);
  gen.manual_seed(0);
  expect_close(randn(gen, {15}).data, vectors()["torch.manual_seed(0); torch.randn(15) (serial path)"]);
  gen.manual_seed(0);
  expect_close(randn(gen, {20}).data,
               vectors()["torch.manual_seed(0); torch.randn(20) (16-block path with a tail)"]);
}

TEST(BookRngVectors, LinearWeightThenBias) {
  TorchGenerator gen(123);
  const Linear layer(gen, 3, 2, true);
  const auto& want = vectors()["torch.manual_seed(123); nn.Linear(3, 2).weight (then .bias)"];
  expect_close(layer.weight.data, nlohmann::json{want[0], want[1]});
  expect_close(layer.bias->data, want[2]);
}

// ---- the generator's own contract -----------------------------------------------------------

TEST(TorchGenerator, Random64IsTwoDrawsHighWordFirst) {
  TorchGenerator a(7), b(7);
  const uint64_t hi = a.random(), lo = a.random();
  EXPECT_EQ(b.random64(), (hi << 32) | lo);
}

TEST(TorchGenerator, ManualSeedUsesTheLow32BitsAndClearsTheSpareNormal) {
  TorchGenerator a(5), b((uint64_t{1} << 32) + 5);
  EXPECT_EQ(a.random(), b.random());
  TorchGenerator g(11);
  randn(g, {1});  // leaves a cached spare behind
  g.manual_seed(11);
  TorchGenerator fresh(11);
  EXPECT_EQ(randn(g, {3}).data, randn(fresh, {3}).data);
}

// No PyTorch on this machine has MKL, so the MKL kernel is checked against its definition:
// exactly one 32-bit draw, then the MCG31m1 stream x(k+1) = 1132489760 x(k) mod (2^31 - 1),
// starting from the seed itself.
TEST(DropoutMkl, OneDrawThenMcg31Stream) {
  const double p = 0.5;
  TorchGenerator gen(123), check(123);
  const auto keep = dropout_keep_mask(gen, 1000, p, DropoutKernel::Mkl);
  uint64_t x = check.random() % 2147483647u;
  for (size_t k = 0; k < keep.size(); ++k) {
    EXPECT_EQ(keep[k], static_cast<double>(x) / 2147483647.0 < 1.0 - p) << k;
    x = (x * 1132489760u) % 2147483647u;
  }
  EXPECT_EQ(gen.random(), check.random()) << "the MKL kernel must take exactly one draw";
}

TEST(DropoutMkl, DiffersFromTheDefaultKernel) {
  TorchGenerator a(123), b(123);
  EXPECT_NE(dropout_keep_mask(a, 36, 0.5, DropoutKernel::Mkl),
            dropout_keep_mask(b, 36, 0.5, DropoutKernel::Default));
}

}  // namespace
}  // namespace attn
