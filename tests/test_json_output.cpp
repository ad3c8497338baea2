// The JSON renderer writes numbers as Python's json.dumps(tensor.tolist()) would.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "core/role_name.h"
#include "render/render.h"
#include "stages/stages.h"
#include "test_util.h"

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

// steps[].role names the role the stage recorded, as docs/json-schema.md lists them: a step
// recorded with each role carries its name, and the names are these (a renamed role fails).
TEST(JsonOutput, EveryStepCarriesItsRoleByName) {
  const std::vector<std::pair<Role, std::string>> names = {
      {Role::Value, "value"},
      {Role::Parameter, "parameter"},
      {Role::Scores, "scores"},
      {Role::Weights, "weights"},
      {Role::DroppedWeights, "dropped_weights"},
      {Role::MaskHidden, "mask_hidden"},
      {Role::MaskKept, "mask_kept"},
      {Role::Series, "series"},
  };
  Config cfg;
  cfg.tokens = {"a", "b"};
  cfg.inputs = Tensor({2, 1}, {1.0f, 2.0f});
  Walk walk("causal", cfg);
  for (const auto& [role, name] : names) walk.add("step_" + name, role, Tensor({2}, {0.0f, 1.0f}));
  const auto steps = nlohmann::json::parse(render_json({walk}))["steps"];
  ASSERT_EQ(steps.size(), names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(role_name(names[i].first), names[i].second);
    EXPECT_EQ(steps[i]["role"], names[i].second) << steps[i]["name"];
  }
}

// The causal stage on the book's six tokens: every step has a role, the one the stage recorded
// (it records scores, weights and both kinds of mask).
TEST(JsonOutput, TheCausalStagesStepsCarryTheirRoles) {
  const Walk walk = run_causal(test::book_config());
  const auto steps = nlohmann::json::parse(render_json({walk}))["steps"];
  ASSERT_EQ(steps.size(), walk.steps.size());
  std::set<std::string> seen;
  for (size_t i = 0; i < steps.size(); ++i) {
    ASSERT_TRUE(steps[i].contains("role")) << steps[i]["name"];
    EXPECT_EQ(steps[i]["role"], role_name(walk.steps[i].role)) << steps[i]["name"];
    seen.insert(steps[i]["role"].get<std::string>());
  }
  for (const char* role : {"value", "scores", "weights", "mask_hidden", "mask_kept"}) EXPECT_TRUE(seen.count(role)) << role;
}

}  // namespace
}  // namespace attn
