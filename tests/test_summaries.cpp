// Text output keeps only what print() shows of large tensors (Config::summaries_only,
// Walk::record, summarize). That must never change a character of the output: every stage,
// run both ways on inputs large enough that print() summarises, prints the same text.
#include <gtest/gtest.h>

#include <cstdlib>

#include "render/render.h"
#include "render/torch_print.h"
#include "stages/stages.h"
#include "core/tensor_summary.h"
#include "test_util.h"
#include "torch/torch_random.h"

namespace attn {
namespace {

Config large_config(int64_t T, int64_t d_in) {
  Config c;
  TorchGenerator gen(123);
  c.inputs = randn(gen, {T, d_in});
  for (int64_t i = 0; i < T; ++i) c.tokens.push_back("x" + std::to_string(i + 1));
  c.d_out = 12;
  c.heads = 3;
  c.batch = 2;
  return c;
}

// Every stage's text, and how many of its steps were kept summarised.
std::string text_of_all_stages(const Config& cfg, bool summaries_only, int64_t* summarized = nullptr) {
  Config c = cfg;
  c.summaries_only = summaries_only;
  RenderOptions ro;
  ro.explain = true;
  std::string out;
  int64_t n = 0;
  for (const auto& s : all_stages()) {
    Walk w = s.run(c);
    summarize(w);
    for (const auto& step : w.steps) {
      if (!step.summarized) continue;
      ++n;
      // Only the shown part is kept: at most 6 entries per dimension.
      EXPECT_LE(step.value.numel(), numel_of(Shape(step.full_shape.size(), 6))) << step.name;
    }
    localize(w, Lang::En, true);
    out += render_text(w, ro);
  }
  if (summarized) *summarized = n;
  return out;
}

TEST(Summaries, TextOfEveryStageIsUnchanged) {
  for (const auto& [T, d_in, bias, dropout] :
       {std::tuple<int64_t, int64_t, bool, double>{40, 30, false, 0.0}, {24, 50, true, 0.3}}) {
    Config c = large_config(T, d_in);
    c.qkv_bias = bias;
    c.attn_dropout = dropout;
    int64_t summarized = 0;
    const std::string full = text_of_all_stages(c, false);
    const std::string shown = text_of_all_stages(c, true, &summarized);
    EXPECT_GT(summarized, 5) << "the walk should summarise its large tensors";
    EXPECT_EQ(shown, full) << "T " << T << ", d_in " << d_in;
    // The test means something only if print() did summarise.
    EXPECT_NE(full.find("..."), std::string::npos);
  }
}

// End to end, at a size where the executable's own allocator (src/alloc/big_blocks.cpp) serves
// the tensors (blocks of 1 MiB and more): its text equals the library's walk kept in full.
TEST(Summaries, ExecutablePrintsWhatTheFullWalkPrints) {
  const test::TempDir dir;
  const std::string out = dir.file("walk.txt");
  const std::string cmd = std::string(ATTN_WALK_BINARY) +
                          " --stage multi-head --random-input 512x128 --d-out 128 --heads 4 --batch 1"
                          " --color never -o " +
                          out;
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;

  Config c;
  TorchGenerator gen(123);  // --random-input draws after torch.manual_seed(123)
  c.inputs = randn(gen, {512, 128});
  for (int64_t i = 0; i < 512; ++i) c.tokens.push_back("x" + std::to_string(i + 1));
  c.input_name = "torch.randn(512x128)";
  c.d_out = 128;
  c.heads = 4;
  c.batch = 1;
  Walk w = run_multi_head(c);
  localize(w, Lang::En, false);
  EXPECT_EQ(test::read_all(out), render_text(w, RenderOptions{}));
}

TEST(Summaries, WithoutSummariesOnlyEveryValueStays) {
  const Config c = large_config(40, 30);
  Walk w = run_multi_head(c);
  summarize(w);
  for (const auto& step : w.steps) {
    EXPECT_FALSE(step.summarized) << step.name;
    EXPECT_EQ(step.value.shape, step.shape());
  }
  EXPECT_EQ(test::step_named(w, "attn_weights").value.numel(), 2 * 3 * 40 * 40);
}

TEST(Summaries, ShownPartIsWhatPrintShows) {
  // (7, 200): rows 0-2 and 4-6, columns 0-2 and 197-199.
  Tensor t = Tensor::zeros({7, 200});
  for (int64_t i = 0; i < t.numel(); ++i) t.data[static_cast<size_t>(i)] = static_cast<float>(i);
  const Tensor part = shown_part(t);
  EXPECT_EQ(part.shape, (Shape{6, 6}));
  EXPECT_EQ(part.data[0], 0.0f);
  EXPECT_EQ(part.data[3], 197.0f);
  EXPECT_EQ(part.data[6], 200.0f);
  EXPECT_EQ(part.data[35], 1399.0f);
  EXPECT_EQ(torch_str_shown(part, t.shape), torch_str(t));
  // A hidden value must not change the format (it is not in the shown part).
  t(3, 100) = 1.0e9f;
  EXPECT_EQ(torch_str_shown(shown_part(t), t.shape), torch_str_shown(part, t.shape));
}

}  // namespace
}  // namespace attn
