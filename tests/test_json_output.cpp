// The JSON renderer writes numbers as Python's json.dumps(tensor.tolist()) would.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "render/render.h"

namespace attn {
namespace {

TEST(JsonOutput, FloatsReadBackAsFloatsWithTheirSign) {
  Config cfg;
  cfg.tokens = {"a", "b"};
  cfg.inputs = Tensor({2, 1}, {1.0f, 2.0f});
  Walk walk("causal", cfg);
  walk.add("v", Tensor({6}, {2.0f, -0.0f, 0.0f, 0.5f, 1e-5f, -INFINITY}));
  const std::string doc = render_json({walk});
  EXPECT_NE(doc.find("[2.0, -0.0, 0.0, 0.5, 9.999999747378752e-06, \"-inf\"]"), std::string::npos) << doc;
  const auto parsed = nlohmann::json::parse(doc);
  const auto& data = parsed["steps"][0]["data"];
  EXPECT_TRUE(data[0].is_number_float());
  EXPECT_TRUE(std::signbit(data[1].get<double>()));
  EXPECT_EQ(data[5], "-inf");
}

}  // namespace
}  // namespace attn
