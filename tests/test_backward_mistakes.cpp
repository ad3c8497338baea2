// Chapter 5's loop with the mistakes learners make in it (modules/train.h, TrainChoices),
// replayed against PyTorch 1.13 running the same mistaken loop
// (tests/golden/backward_mistakes/<mistake>_<config>.json, made by
// tests/golden/make_backward_goldens.py): the whole walk (step 1's gradients, the first
// update, the losses, the trained parameters) and every parameter's .grad after the last
// step, bit for bit and as print() shows them.
#include <gtest/gtest.h>

#include <algorithm>

#include "stages/backward.h"
#include "test_backward_util.h"

namespace attn {
namespace {

const std::string kDir = test::tests_dir() + "/golden/backward_mistakes";

class BackwardMistake : public ::testing::TestWithParam<std::string> {};
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(BackwardMistake);

// The golden's steps but its final.<param>.grad ones, and those.
void split_golden(const nlohmann::json& steps, nlohmann::json* walk, nlohmann::json* final_grads) {
  *walk = *final_grads = nlohmann::json::array();
  for (const auto& s : steps) (s["name"].get<std::string>().rfind("final.", 0) == 0 ? final_grads : walk)->push_back(s);
}

TEST_P(BackwardMistake, WalkAndLastGradientsEqualPyTorch) {
  const auto doc = test::load_json(kDir + "/" + GetParam() + ".json");
  const Config cfg = test::backward_config(doc);
  const TrainChoices choices = test::backward_choices(doc);
  nlohmann::json walk_steps, final_grads;
  split_golden(doc["stages"]["backward"], &walk_steps, &final_grads);
  test::expect_walk_equals_golden(run_backward_with(cfg, choices), walk_steps);

  // Each parameter's .grad after the last backward (with grad_not_zeroed: all steps' summed).
  ChapterTraining training(cfg, choices);
  Gradients last;
  TrainObserver observe;
  observe.after_backward = [&](int64_t, const Activations&, const Gradients& g) { last = g; };
  training.run(cfg.train.steps, observe);
  Walk grads("backward", cfg);
  for (const auto& [name, p] : training.model.parameters()) grads.add("final." + name + ".grad", last.at(name));
  test::expect_walk_equals_golden(grads, final_grads);
}

INSTANTIATE_TEST_SUITE_P(PyTorch, BackwardMistake, ::testing::ValuesIn(test::json_files_in(kDir)));

// Each mistake has its goldens, and each golden differs from the chapter's loop in exactly
// one choice, the one its name says.
TEST(BackwardMistakeFiles, EveryMistakeHasGoldens) {
  const auto files = test::json_files_in(kDir);
  for (const char* mistake : {"grad_not_zeroed", "softmax_before_cross_entropy", "targets_not_shifted",
                              "adam_instead_of_adamw", "loss_summed"}) {
    const auto n = std::count_if(files.begin(), files.end(),
                                 [&](const std::string& f) { return f.rfind(mistake, 0) == 0; });
    EXPECT_GE(n, 2) << mistake;
  }
  for (const auto& f : files) {
    const TrainChoices c = test::backward_choices(test::load_json(kDir + "/" + f + ".json"));
    const TrainChoices chapter;
    const int differing = (c.zero_grad != chapter.zero_grad) +
                          (c.softmax_before_cross_entropy != chapter.softmax_before_cross_entropy) +
                          (c.shift_targets != chapter.shift_targets) +
                          (c.decoupled_weight_decay != chapter.decoupled_weight_decay) +
                          (c.loss_reduction_sum != chapter.loss_reduction_sum);
    EXPECT_EQ(differing, 1) << f;
  }
}

// The mistakes change the numbers: the same configuration with the chapter's loop ends with
// other parameters (so the goldens above could not pass on the chapter's loop).
TEST(BackwardMistakeFiles, EachMistakeChangesTheTrainedParameters) {
  for (const auto& f : test::json_files_in(kDir)) {
    const auto doc = test::load_json(kDir + "/" + f + ".json");
    const Config cfg = test::backward_config(doc);
    ChapterTraining chapter(cfg), mistaken(cfg, test::backward_choices(doc));
    chapter.run(cfg.train.steps);
    mistaken.run(cfg.train.steps);
    EXPECT_NE(chapter.model.out_head.weight.data, mistaken.model.out_head.weight.data) << f;
  }
}

}  // namespace
}  // namespace attn
