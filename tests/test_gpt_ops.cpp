// Chapter 4's ops alone (ops/ops_gpt.h) against PyTorch 1.13's bits
// (tests/golden/make_gpt_goldens.py -> tests/golden/gpt/ops.json): torch.tanh (SLEEF's
// tanhf_u10) and the book's GELU over many magnitudes and the edges of tanh's range, and
// LayerNorm's mean, var(unbiased=False) and whole output on GPT-2-wide rows.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/cpu.h"
#include "kernels/gelu.h"
#include "kernels/parallel.h"
#include "ops/ops.h"
#include "ops/ops_gpt.h"
#include "test_util.h"

namespace attn {
namespace {

std::vector<float> floats_of(const nlohmann::json& hex) {
  std::vector<float> out;
  for (const auto& h : hex) out.push_back(test::float_from_bits(static_cast<uint32_t>(std::stoul(h.get<std::string>(), nullptr, 16))));
  return out;
}

// How many values differ from the golden's in any bit (signed zeros included).
int64_t differing(const Tensor& got, const nlohmann::json& want_hex) {
  const std::vector<float> want = floats_of(want_hex);
  EXPECT_EQ(got.data.size(), want.size());
  int64_t n = 0;
  for (size_t i = 0; i < want.size() && i < got.data.size(); ++i) n += !test::same_float(got.data[i], want[i]);
  return n;
}

const nlohmann::json& golden() {
  static const nlohmann::json g = test::load_json(test::tests_dir() + "/golden/gpt/ops.json");
  return g;
}

Tensor vector_of(const char* key) {
  std::vector<float> v = floats_of(golden()[key]);
  const int64_t n = static_cast<int64_t>(v.size());
  return Tensor({n}, std::move(v));
}

TEST(GptOps, TanhIsTorchsBitForBit) {
  EXPECT_EQ(differing(tanh_values(vector_of("x")), golden()["tanh"]), 0);
}

TEST(GptOps, GeluIsTheBooksBitForBit) {
  EXPECT_EQ(differing(gelu(vector_of("x")), golden()["gelu"]), 0);
}

TEST(GptOps, LayerNormsMeanVarianceAndOutputAreTorchs) {
  const Tensor rows = view(vector_of("rows"), {8, 768});
  EXPECT_EQ(differing(mean_lastdim(rows), golden()["mean"]), 0);
  EXPECT_EQ(differing(var_lastdim(rows), golden()["var"]), 0);
  // Fewer rows than the four var_lastdim takes side by side, and a remainder after them.
  const std::vector<float> want_var = floats_of(golden()["var"]);
  for (int64_t count : {1, 3, 5, 7}) {
    const std::vector<float> part(rows.data.begin(), rows.data.begin() + count * 768);
    const Tensor var = var_lastdim(Tensor({count, 768}, part));
    for (int64_t r = 0; r < count; ++r) EXPECT_TRUE(test::same_float(var.data[r], want_var[r])) << count << " rows, row " << r;
  }
  const Tensor scale = vector_of("scale"), shift = vector_of("shift");
  const MatView s{scale.data.data(), 1, 768, false}, b{shift.data.data(), 1, 768, false};
  EXPECT_EQ(test::fnv1a64(layer_norm(rows, s, b).data), golden()["layer_norm_digest"].get<std::string>());
}

// Inputs for the vector GELU against the scalar one: a stride through every float32 bit pattern
// (both signs, denormals, every exponent, NaNs with many payloads, quiet and signalling), the
// named edges (±0, ±inf, the smallest and largest denormals and normals), every float near
// tanh's cut-off at 8.664339742 and near 0, and normal samples at several scales. An odd
// length, so the vectors' tail runs too.
std::vector<float> gelu_inputs() {
  std::vector<float> v;
  for (uint64_t bits = 0; bits <= 0xffffffffu; bits += 1543) v.push_back(test::float_from_bits(static_cast<uint32_t>(bits)));
  const float inf = std::numeric_limits<float>::infinity();
  for (float e : {0.0f, inf, std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::min(),
                  std::nextafter(std::numeric_limits<float>::min(), 0.0f), std::numeric_limits<float>::max(),
                  std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::signaling_NaN(), 1e20f, 3e12f}) {
    v.push_back(e);
    v.push_back(-e);
  }
  // tanh's argument is about 0.8 x near the cut-off, so sweep x around 8.66 / 0.8 and 8.66 too.
  for (float centre : {8.664339742f, 10.85f, 10.0f, 1e-3f, 5e-20f, 1e-38f}) {
    float up = centre, down = centre;
    for (int k = 0; k < 2000; ++k, up = std::nextafter(up, inf), down = std::nextafter(down, 0.0f)) {
      for (float f : {up, down, -up, -down}) v.push_back(f);
    }
  }
  std::mt19937 rng(41);
  for (float scale : {1e-30f, 1e-3f, 1.0f, 3.0f, 30.0f, 1e15f}) {
    std::normal_distribution<float> dist(0.0f, scale);
    for (int k = 0; k < 20000; ++k) v.push_back(dist(rng));
  }
  if (v.size() % 16 == 0) v.push_back(1.0f);
  return v;
}

// Whether two floats are the same bits (NaNs too: their payloads and signs).
bool same_bits(float a, float b) { return float_to_bits(a) == float_to_bits(b); }

TEST(GptOps, FusedGeluIsTheOpChainBitForBit) {
  // gelu_reference against the book's separate ops, each a Tensor as PyTorch's (ops.h), on a
  // sample of the inputs (the ops chain is slow).
  const std::vector<float> all = gelu_inputs();
  std::vector<float> some;
  for (size_t i = 0; i < all.size(); i += 7) some.push_back(all[i]);
  const Tensor x({static_cast<int64_t>(some.size())}, some);
  const float c = kernels::gelu_sqrt_2_over_pi();
  const Tensor inner = add(x, mul_scalar(pow3(x), 0.044715));
  const Tensor chain = mul(mul_scalar(x, 0.5), add_scalar(tanh_values(mul_scalar(inner, c)), 1.0));
  int64_t differ = 0;
  for (size_t i = 0; i < some.size(); ++i) differ += !same_bits(kernels::gelu_reference(some[i]), chain.data[i]);
  EXPECT_EQ(differ, 0);
}

TEST(GptOps, VectorGeluIsTheScalarOneBitForBit) {
  const std::vector<float> x = gelu_inputs();
  std::vector<float> want(x.size());
  for (size_t i = 0; i < x.size(); ++i) want[i] = kernels::gelu_reference(x[i]);
  const kernels::Isa isas[] = {kernels::Isa::Scalar, kernels::Isa::Avx2, kernels::Isa::Avx512};
  int ran = 0;
  for (kernels::Isa isa : isas) {
    if (kernels::set_active_isa(isa) != isa) continue;
    ++ran;
    for (int threads : {1, 2}) {
      kernels::set_num_threads(threads);
      std::vector<float> got(x.size(), 7.0f);
      kernels::gelu_values(x.data(), got.data(), static_cast<int64_t>(x.size()));
      int64_t differ = 0, first = -1;
      for (size_t i = 0; i < x.size(); ++i) {
        if (same_bits(got[i], want[i])) continue;
        if (first < 0) first = static_cast<int64_t>(i);
        ++differ;
      }
      EXPECT_EQ(differ, 0) << kernels::isa_name(isa) << ", " << threads << " threads; first at x bits "
                           << std::hex << (first < 0 ? 0 : float_to_bits(x[first]));
      // In place, and every short length (each tail of the vectors).
      for (int64_t n = 0; n <= 40; ++n) {
        std::vector<float> part(x.begin(), x.begin() + n);
        kernels::gelu_values(part.data(), part.data(), n);
        for (int64_t i = 0; i < n; ++i) EXPECT_TRUE(same_bits(part[i], want[i])) << kernels::isa_name(isa) << " n=" << n << " i=" << i;
      }
    }
  }
  kernels::set_active_isa(kernels::best_isa());
  kernels::set_num_threads(0);
  EXPECT_GE(ran, 1);
}

}  // namespace
}  // namespace attn
