// attn::torch_str against str(tensor) from real PyTorch 1.13.
//
// tests/golden/print_cases.json is written by tests/golden/make_print_goldens.py; every case
// becomes one test here (TorchPrintGolden/<case name>), which rebuilds the float32 tensor and
// compares the printed text verbatim. A few hand-written tests below pin the rules that
// matter most for the chapter's output, with the expected text spelled out.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "render/torch_print.h"
#include "core/tensor.h"

namespace {

using attn::Tensor;
using attn::torch_parameter_str;
using attn::torch_str;
using nlohmann::json;

const std::string kGoldenPath = std::string(ATTN_WALK_TESTS_DIR) + "/golden/print_cases.json";

struct PrintCase {
  std::string name;
  Tensor tensor;
  std::vector<std::string> suffixes;
  bool parameter = false;
  std::string printed;  // PyTorch's str(...)
};

// A value from the JSON: a number (the exact double of a float32) or "inf" / "-inf" / "nan".
float value_from_json(const json& v) {
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s == "inf") return std::numeric_limits<float>::infinity();
    if (s == "-inf") return -std::numeric_limits<float>::infinity();
    if (s == "nan") return std::numeric_limits<float>::quiet_NaN();
    throw std::runtime_error("bad value string: " + s);
  }
  return static_cast<float>(v.get<double>());  // exact: the double holds a float32
}

// The generator's recipes for big tensors (see make_print_goldens.py); all steps are exact
// in float32, so this rebuilds PyTorch's tensor bit for bit.
std::vector<float> data_from_recipe(const json& r, int64_t n) {
  std::vector<float> out(static_cast<size_t>(n));
  const std::string kind = r.at("kind").get<std::string>();
  if (kind == "hash24") {
    const auto mul = r.at("mul").get<uint64_t>();
    const auto add = r.at("add").get<uint64_t>();
    const bool centered = r.at("centered").get<bool>();
    const auto scale = static_cast<float>(r.at("scale").get<double>());
    for (int64_t i = 0; i < n; ++i) {
      const auto u = static_cast<int64_t>((mul * static_cast<uint64_t>(i) + add) % (1u << 24));
      const float a = static_cast<float>(centered ? u - (1 << 23) : u);  // fits in 24 bits
      out[static_cast<size_t>(i)] = a * scale;                           // one rounding
    }
  } else if (kind == "full") {
    const auto value = static_cast<float>(r.at("value").get<double>());
    std::fill(out.begin(), out.end(), value);
  } else {
    throw std::runtime_error("unknown recipe kind: " + kind);
  }
  for (const json& s : r.value("set", json::array()))
    out.at(s.at(0).get<size_t>()) = value_from_json(s.at(1));
  return out;
}

PrintCase case_from_json(const json& c) {
  PrintCase pc;
  pc.name = c.at("name").get<std::string>();
  const auto shape = c.at("shape").get<attn::Shape>();
  std::vector<float> data;
  if (c.contains("recipe")) {
    data = data_from_recipe(c.at("recipe"), attn::numel_of(shape));
  } else {
    for (const json& v : c.at("data")) data.push_back(value_from_json(v));
  }
  pc.tensor = Tensor(shape, std::move(data));
  pc.suffixes = c.at("suffixes").get<std::vector<std::string>>();
  pc.parameter = c.at("parameter").get<bool>();
  pc.printed = c.at("printed").get<std::string>();
  return pc;
}

// Loaded once, before the tests are registered. A missing or broken file leaves the list
// empty and records why; GoldenFile.Loads then fails with the reason.
std::string g_load_error;

std::vector<PrintCase> load_cases() {
  std::vector<PrintCase> cases;
  try {
    std::ifstream in(kGoldenPath);
    if (!in) throw std::runtime_error("cannot open " + kGoldenPath);
    const json all = json::parse(in);
    for (const json& c : all) cases.push_back(case_from_json(c));
  } catch (const std::exception& e) {
    g_load_error = e.what();
    cases.clear();
  }
  return cases;
}

const std::vector<PrintCase>& golden_cases() {
  static const std::vector<PrintCase> cases = load_cases();
  return cases;
}

std::string print(const PrintCase& c) {
  return c.parameter ? torch_parameter_str(c.tensor, c.suffixes) : torch_str(c.tensor, c.suffixes);
}

// ---------------------------------------------------------------------------------------------
// Golden cases

class TorchPrintGolden : public ::testing::TestWithParam<PrintCase> {};

TEST_P(TorchPrintGolden, MatchesPyTorch) {
  const PrintCase& c = GetParam();
  EXPECT_EQ(print(c), c.printed)
      << "case " << c.name << ", shape " << attn::shape_str(c.tensor.shape);
}

INSTANTIATE_TEST_SUITE_P(, TorchPrintGolden, ::testing::ValuesIn(golden_cases()),
                         [](const ::testing::TestParamInfo<PrintCase>& info) {
                           std::string name = info.param.name;
                           for (char& ch : name)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return name;
                         });

TEST(GoldenFile, Loads) {
  EXPECT_EQ(g_load_error, "");
  // The generator writes well over a hundred cases; far fewer means a truncated file.
  EXPECT_GE(golden_cases().size(), 100u);
}

// ---------------------------------------------------------------------------------------------
// Hand-written checks of the rules, with the expected text spelled out (from PyTorch 1.13).

Tensor halves(int64_t n) { return Tensor::full({n}, 0.5f); }

TEST(TorchPrint, SuffixStaysOnLastLineWhenItFits) {
  EXPECT_EQ(torch_str(halves(14), {"grad_fn=<MulBackward0>"}),
            "tensor([0.5000, 0.5000, 0.5000, 0.5000, 0.5000, 0.5000, 0.5000, 0.5000, 0.5000,\n"
            "        0.5000, 0.5000, 0.5000, 0.5000, 0.5000], grad_fn=<MulBackward0>)");
}

TEST(TorchPrint, SuffixWrapsToNewLineIndentedSeven) {
  // The last line is 58 characters; PyTorch counts it as 60, and 60 + 2 + 22 > 80.
  EXPECT_EQ(torch_str(halves(15), {"grad_fn=<MulBackward0>"}),
            "tensor([0.5000, 0.5000, 0.5000, 0.5000, 0.5000, 0.5000, 0.5000, 0.5000, 0.5000,\n"
            "        0.5000, 0.5000, 0.5000, 0.5000, 0.5000, 0.5000],\n"
            "       grad_fn=<MulBackward0>)");
}

TEST(TorchPrint, SecondSuffixFollowsTheWrappedFirst) {
  EXPECT_EQ(torch_str(halves(6), {"grad_fn=<MulBackward0>", "requires_grad=True"}),
            "tensor([0.5000, 0.5000, 0.5000, 0.5000, 0.5000, 0.5000],\n"
            "       grad_fn=<MulBackward0>, requires_grad=True)");
}

TEST(TorchPrint, ScalarsDistinguishExactOneFromJustBelowOne) {
  EXPECT_EQ(torch_str(Tensor::scalar(1.0f)), "tensor(1.)");
  EXPECT_EQ(torch_str(Tensor::scalar(std::nextafter(1.0f, 0.0f))), "tensor(1.0000)");
  EXPECT_EQ(torch_str(Tensor::scalar(0.9999f)), "tensor(0.9999)");
  EXPECT_EQ(torch_str(Tensor::scalar(0.03125f)), "tensor(0.0312)");  // tie rounds to even
}

TEST(TorchPrint, NanHasNoSign) {
  EXPECT_EQ(torch_str(Tensor::scalar(-std::numeric_limits<float>::quiet_NaN())), "tensor(nan)");
}

TEST(TorchPrint, EmptyTensorsShowSizeUnlessOneDimensional) {
  EXPECT_EQ(torch_str(Tensor({0}, {})), "tensor([])");
  EXPECT_EQ(torch_str(Tensor({0, 3}, {})), "tensor([], size=(0, 3))");
  EXPECT_EQ(torch_str(Tensor({0, 3}, {}), {"requires_grad=True"}),
            "tensor([], size=(0, 3), requires_grad=True)");
}

TEST(TorchPrint, ParameterHasHeaderLine) {
  EXPECT_EQ(torch_parameter_str(Tensor({2}, {1.0f, 2.0f}), {"requires_grad=True"}),
            "Parameter containing:\ntensor([1., 2.], requires_grad=True)");
}

TEST(TorchPrint, SummaryFormatsOnlyShownValues) {
  Tensor t = halves(2000);
  t(1000) = 1.0e6f;  // hidden behind "...": must not force scientific notation
  EXPECT_EQ(torch_str(t), "tensor([0.5000, 0.5000, 0.5000,  ..., 0.5000, 0.5000, 0.5000])");
}

TEST(TorchPrint, ZerosHaveWidthOneSoLinesOverflow) {
  EXPECT_EQ(torch_str(Tensor::zeros({30})),
            "tensor([0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., "
            "0., 0., 0., 0., 0.,\n"
            "        0., 0., 0., 0., 0., 0.])");
}

TEST(TorchPrint, BlocksOfThreeDimensionalTensorAreSeparatedByBlankLine) {
  EXPECT_EQ(torch_str(Tensor({2, 1, 2}, {1.0f, 2.0f, 3.0f, 4.5f})),
            "tensor([[[1.0000, 2.0000]],\n\n        [[3.0000, 4.5000]]])");
}

}  // namespace
