// The chapter's exercises, computed by the walks (never hard-coded): 3.1 ends the
// trainable walk, 3.2 and 3.3 end the multi-head walk.
#include <gtest/gtest.h>

#include "input/embeddings.h"
#include "lang/lang.h"
#include "modules/chapter.h"
#include "ops/ops.h"
#include "render/details.h"
#include "render/render.h"
#include "stages/stages.h"
#include "torch/torch_random.h"
#include "test_util.h"

namespace attn {
namespace {

TEST(Exercise3_1, EndsTheTrainableWalkWithEqualOutputs) {
  const Walk w = run_trainable(test::book_config());
  ASSERT_GE(w.steps.size(), 2u);
  const Step& v1 = w.steps[w.steps.size() - 2];
  const Step& v2 = w.steps.back();
  EXPECT_EQ(v1.name, "exercise_3_1_sa_v1_output");
  EXPECT_EQ(v2.name, "exercise_3_1_sa_v2_output");
  EXPECT_EQ(v1.value.shape, (Shape{6, 2}));
  EXPECT_EQ(v1.value.data, v2.value.data);  // bit for bit
  EXPECT_EQ(printed_step(v1).rfind("tensor([[-0.5337, -0.1051],", 0), 0u) << printed_step(v1);
  // Not the chapter's own SelfAttention_v1/v2 outputs: those differ from each other.
  EXPECT_NE(test::step_named(w, "sa_v1_output").value.data, v1.value.data);
  EXPECT_NE(test::step_named(w, "sa_v2_output").value.data, v2.value.data);
}

TEST(Exercise3_1, AgreesForOtherConfigsAndIgnoresQkvBias) {
  Config c = test::book_config();
  c.d_out = 4;
  c.init = InitKind::Randn;
  c.seed1 = 7;
  const Walk w = run_trainable(c);
  EXPECT_EQ(test::step_named(w, "exercise_3_1_sa_v1_output").value.shape, (Shape{6, 4}));
  EXPECT_EQ(test::step_named(w, "exercise_3_1_sa_v1_output").value.data,
            test::step_named(w, "exercise_3_1_sa_v2_output").value.data);
  // The exercise's SelfAttention_v2 has no bias (v1 could not copy one), whatever --qkv-bias says.
  Config b = test::book_config();
  b.qkv_bias = true;
  EXPECT_EQ(test::step_named(run_trainable(b), "exercise_3_1_sa_v2_output").value.data,
            test::step_named(run_trainable(test::book_config()), "exercise_3_1_sa_v2_output").value.data);
}

TEST(Exercise3_2, TwoHeadsOfWidthOneGive2DContextVectors) {
  Config c = test::book_config();
  c.d_out = 8;
  c.heads = 4;
  c.batch = 3;
  const Walk w = run_multi_head(c);
  const Step& s = w.steps[w.steps.size() - 2];
  EXPECT_EQ(s.name, "exercise_3_2_context_vecs");
  EXPECT_EQ(s.value.shape, (Shape{3, 6, 2}));
  // Its first column is a CausalAttention(d_in, 1, ...) drawn first after the seed.
  TorchGenerator gen(c.seed1);
  const CausalAttention head(gen, c.d_in(), 1, 6, 0.0, false, c.dropout_rng);
  const Tensor first = head.forward(gen, stack_copies(c.inputs, 3));
  for (int64_t r = 0; r < 3 * 6; ++r) EXPECT_EQ(s.value.data[r * 2], first.data[r]) << r;
}

TEST(Exercise3_3, CountsTheParametersOfAGpt2SizedModule) {
  const Walk w = run_multi_head(test::book_config());
  const Step& s = w.steps.back();
  EXPECT_EQ(s.name, "exercise_3_3_num_params");
  EXPECT_EQ(s.value.shape, Shape{});
  EXPECT_EQ(s.value.item(), 2360064.0f);
  EXPECT_EQ(printed_step(s), "2360064");  // a Python int, as the solution prints it
  // The stage records the table's numbers; the renderers lay them out.
  EXPECT_TRUE(s.details.empty());
  const ParameterTable& table = s.parameter_table;
  ASSERT_EQ(table.rows.size(), 5u);
  EXPECT_EQ(table.rows[0].name, "W_query.weight");
  EXPECT_EQ(table.rows[0].shape, (Shape{768, 768}));
  EXPECT_EQ(table.rows[0].count, 589824);
  EXPECT_EQ(table.rows[4].name, "out_proj.bias");
  EXPECT_EQ(table.rows[4].shape, Shape{768});
  EXPECT_EQ(table.rows[4].count, 768);
  EXPECT_EQ(table.total, 2360064);

  Walk en = w, zh = w;
  localize(en, Lang::En, true);
  localize(zh, Lang::Zh, true);
  const auto lines = detail_lines(en.steps.back());
  ASSERT_EQ(lines.size(), 6u);
  EXPECT_EQ(lines[0], "  W_query.weight   (768, 768) =   589,824");
  EXPECT_EQ(lines[3], "  out_proj.weight  (768, 768) =   589,824");
  EXPECT_EQ(lines[4], "  out_proj.bias    (768,)     =       768");
  EXPECT_EQ(lines[5], "  total = 2,360,064");
  EXPECT_EQ(detail_lines(zh.steps.back()).back(), "  合计 = 2,360,064");
  // Every renderer prints those lines.
  const std::string text = render_text(en, RenderOptions{});
  EXPECT_NE(text.find("2360064\n" + lines[0] + "\n"), std::string::npos);
  EXPECT_NE(text.find(lines[4] + "\n" + lines[5] + "\n"), std::string::npos);
  EXPECT_NE(render_json({en}).find(nlohmann::json(lines).dump()), std::string::npos);
  EXPECT_NE(render_html_body({zh}, Lang::Zh).find("<div>  合计 = 2,360,064</div></div>"), std::string::npos);
  EXPECT_NE(en.steps.back().explanation.find("2,360,064"), std::string::npos);
}

// The walk counts exercise 3.3 from the shapes alone: they must be those of a built module.
TEST(Exercise3_3, ShapesWithoutBuildingEqualABuiltModules) {
  for (const bool bias : {false, true}) {
    for (const auto& [d_in, d_out] : {std::pair<int64_t, int64_t>{768, 768}, {5, 6}, {3, 2}}) {
      TorchGenerator gen(123);
      const MultiHeadAttention mha(gen, d_in, d_out, 4, 0.0, d_out == 5 ? 5 : 2, bias, DropoutKernel::Default);
      const auto built = named_parameter_shapes(mha);
      const auto listed = named_parameter_shapes(d_in, d_out, bias);
      ASSERT_EQ(built.size(), listed.size());
      for (size_t i = 0; i < built.size(); ++i) {
        EXPECT_EQ(built[i].name, listed[i].name);
        EXPECT_EQ(built[i].shape, listed[i].shape) << built[i].name;
      }
    }
  }
}

TEST(Exercise3_3, NamedParameterShapesFollowPyTorchsOrder) {
  TorchGenerator gen(1);
  const MultiHeadAttention mha(gen, 5, 6, 4, 0.0, 3, /*qkv_bias=*/true, DropoutKernel::Default);
  const auto params = named_parameter_shapes(mha);
  std::vector<std::string> names;
  int64_t total = 0;
  for (const auto& p : params) {
    names.push_back(p.name);
    total += numel_of(p.shape);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"W_query.weight", "W_query.bias", "W_key.weight",
                                             "W_key.bias", "W_value.weight", "W_value.bias",
                                             "out_proj.weight", "out_proj.bias"}));
  EXPECT_EQ(params[0].shape, (Shape{6, 5}));
  EXPECT_EQ(params[7].shape, (Shape{6}));
  EXPECT_EQ(total, mha.parameter_count());
}

}  // namespace
}  // namespace attn
