// The chapter's own numbers (tests/reference/book-ch03.json, computed by PyTorch 1.13):
// every tensor appears in the matching stage of the default walk with equal value, and
// prints verbatim (the reference omits grad_fn/requires_grad suffixes and the
// "Parameter containing:" line, so those are left off here).
#include <gtest/gtest.h>

#include "input/embeddings.h"
#include "render/torch_print.h"
#include "stages/stages.h"
#include "test_util.h"

namespace attn {
namespace {

const nlohmann::json& reference() {
  static const nlohmann::json ref = test::load_json(test::tests_dir() + "/reference/book-ch03.json");
  return ref;
}

TEST(BookReference, InputsAreTheChaptersEmbeddings) {
  const Config c = test::book_config();
  EXPECT_EQ(c.tokens, reference()["tokens"].get<std::vector<std::string>>());
  double max_diff;
  EXPECT_EQ(test::count_bit_differences(c.inputs.data, test::flatten(reference()["embeddings"]), &max_diff), 0);
}

TEST(BookReference, EveryTensorAppearsInItsStageWithEqualValueAndText) {
  const Config cfg = test::book_config();
  int checked = 0;
  for (const auto& [stage, tensors] : reference()["stages"].items()) {
    const Walk walk = find_stage(stage)->run(cfg);
    for (const auto& want : tensors) {
      const std::string name = want["name"].get<std::string>();
      SCOPED_TRACE(stage + "/" + name);
      const Step* found = nullptr;
      for (const auto& s : walk.steps)
        if (s.name == name) found = &s;
      ASSERT_NE(found, nullptr) << "the " << stage << " walk has no step " << name;
      EXPECT_EQ(found->value.shape, want["shape"].get<Shape>());
      // The reference was computed on a machine whose BLAS dot kernel rounds a few
      // products differently (1 ulp); against Debian's PyTorch here the walk is bit-exact
      // (test_walk_goldens.cpp). Values must agree to float32 rounding.
      const auto want_data = test::flatten(want["data"]);
      ASSERT_EQ(found->value.data.size(), want_data.size());
      for (size_t i = 0; i < want_data.size(); ++i) {
        if (!std::isfinite(want_data[i])) {  // -inf above the diagonal
          EXPECT_EQ(test::bits(found->value.data[i]), test::bits(want_data[i])) << "index " << i;
          continue;
        }
        EXPECT_NEAR(found->value.data[i], want_data[i], 2e-7 * (1 + std::fabs(want_data[i]))) << "index " << i;
      }
      EXPECT_EQ(torch_str(found->value), want["printed"].get<std::string>());
      ++checked;
    }
  }
  EXPECT_EQ(checked, 33);  // every tensor of the reference
}

// The exercises' answers (tests/reference/book-ch03.json "exercises"): 3.1 ends the
// trainable walk, 3.2 and 3.3 the multi-head walk.
void expect_reference_tensor(const Step& step, const nlohmann::json& want) {
  SCOPED_TRACE(step.name);
  EXPECT_EQ(step.value.shape, want["shape"].get<Shape>());
  const auto want_data = test::flatten(want["data"]);
  ASSERT_EQ(step.value.data.size(), want_data.size());
  for (size_t i = 0; i < want_data.size(); ++i)
    EXPECT_NEAR(step.value.data[i], want_data[i], 2e-7 * (1 + std::fabs(want_data[i]))) << "index " << i;
  EXPECT_EQ(torch_str(step.value), want["printed"].get<std::string>());
}

const Step& find_step(const Walk& walk, const std::string& name) {
  for (const auto& s : walk.steps)
    if (s.name == name) return s;
  throw std::runtime_error("the " + walk.stage + " walk has no step " + name);
}

TEST(BookReference, Exercise3_1) {
  const auto& want = reference()["exercises"]["3.1"];
  const Walk walk = find_stage("trainable")->run(test::book_config());
  expect_reference_tensor(find_step(walk, "exercise_3_1_sa_v1_output"), want);
  expect_reference_tensor(find_step(walk, "exercise_3_1_sa_v2_output"), want);
}

TEST(BookReference, Exercise3_2) {
  const Walk walk = find_stage("multi-head")->run(test::book_config());
  expect_reference_tensor(find_step(walk, "exercise_3_2_context_vecs"), reference()["exercises"]["3.2"]);
}

TEST(BookReference, Exercise3_3) {
  const Walk walk = find_stage("multi-head")->run(test::book_config());
  const Step& step = find_step(walk, "exercise_3_3_num_params");
  EXPECT_EQ(step.value.shape, Shape{});
  EXPECT_EQ(static_cast<int64_t>(step.value.item()),
            reference()["exercises"]["3.3"]["parameters"].get<int64_t>());
}

}  // namespace
}  // namespace attn
