// attn-walk check on chapter 5's training loop (--stage backward): a learner's loss, gradients,
// losses and trained weights, as real PyTorch printed them running the loop with one of the
// mistakes learners make (tests/golden/backward_mistakes/, made by
// tests/golden/make_backward_goldens.py), are graded and the mistake is named, with evidence
// read off the learner's losses; a dump that contradicts the mistake gets no diagnosis.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "check/check.h"
#include "check/dump.h"
#include "lang/lang.h"
#include "render/check.h"
#include "stages/stages.h"
#include "run_process.h"
#include "test_backward_util.h"
#include "test_check_util.h"

namespace attn {
namespace {

const std::string kDir = test::tests_dir() + "/golden/backward_mistakes/";

// What a learner prints around their loop: the first loss and gradients, the losses, and
// two trained weights.
// clang-format off
const std::vector<std::string> kPrinted = {"loss",          "logits.grad", "W_query.weight.grad", "out_head.weight.grad",
                                           "losses",        "W_query.weight", "out_head.weight"};
// clang-format on

// The learner's dump: those of PyTorch's tensors in the golden, as JSON (nlohmann writes
// every float32 value so that it reads back to the same bits).
Dump learner_dump(const nlohmann::json& doc) {
  nlohmann::json mine = nlohmann::json::object();
  for (const auto& s : doc["stages"]["backward"])
    if (std::find(kPrinted.begin(), kPrinted.end(), s["name"].get<std::string>()) != kPrinted.end())
      mine[s["name"].get<std::string>()] = s["data"];
  return parse_dump(mine.dump(), "mine.json");
}

CheckReport check_golden(const std::string& file, Dump* dump = nullptr) {
  const auto doc = test::load_json(kDir + file);
  const Dump d = dump ? *dump : learner_dump(doc);
  return check_dump(d, test::backward_config(doc), "backward", "option", Tolerance{}, file);
}

using test::evidence_of;

// Every mistake golden: the first difference is found and the mistake named (its file's prefix).
TEST(CheckTraining, EveryMistakeOfTheLoopIsNamed) {
  size_t n = 0;
  for (const auto& name : test::json_files_in(kDir)) {
    SCOPED_TRACE(name);
    const std::string id = name.substr(0, name.rfind('_', name.rfind("_book") != std::string::npos
                                                              ? name.rfind("_book")
                                                              : name.rfind("_t10")));
    const CheckReport r = check_golden(name + ".json");
    ASSERT_FALSE(r.passed());
    EXPECT_NE(std::find(r.diagnoses.begin(), r.diagnoses.end(), id), r.diagnoses.end())
        << id << " not in " << ::testing::PrintToString(r.diagnoses) << "\n"
        << render_check_text(r, Lang::En);
    ++n;
  }
  EXPECT_GE(n, 10u);
}

TEST(CheckTraining, EvidenceIsReadOffTheLosses) {
  // No zero_grad: the first two losses are the chapter's (step 1 starts from no .grad, and
  // its update is the chapter's); the third leaves it.
  auto e = evidence_of(check_golden("grad_not_zeroed_book.json"), "grad_not_zeroed");
  EXPECT_EQ(e["loss_step"], "3");
  // Adam's L2 decay changes the first update already: the second loss leaves the chapter's.
  EXPECT_EQ(evidence_of(check_golden("adam_instead_of_adamw_book.json"), "adam_instead_of_adamw")["loss_step"], "2");
  // reduction="sum": the first loss is N = B * T = 2 * 5 times the mean, measured.
  const CheckReport summed = check_golden("loss_summed_book.json");
  e = evidence_of(summed, "loss_summed");
  EXPECT_EQ(e["N"], "10");
  EXPECT_EQ(e["ratio"], "10");
  const std::string text = render_check_text(summed, Lang::En);
  EXPECT_NE(text.find("N = 10 times the mean's (your first loss is 10 times the chapter's)"), std::string::npos) << text;
  EXPECT_NE(render_check_text(summed, Lang::Zh).find("你的第一个损失是本章的 10 倍"), std::string::npos);
  // A softmax before cross_entropy: the loss cannot fall below log(1 + (V - 1) / e), V = 6.
  e = evidence_of(check_golden("softmax_before_cross_entropy_book.json"), "softmax_before_cross_entropy");
  EXPECT_EQ(e["V"], "6");
  EXPECT_EQ(std::stod(e["floor"]), std::stod(fmt::format("{:.4g}", std::log1p(5.0 / std::exp(1.0)))));
  EXPECT_EQ(e["loss_step"], "1");
}

// The learner's losses replaced by the chapter's: the trained weights still differ, but no
// mistake of the loop gives the chapter's losses with them, so none is named.
TEST(CheckTraining, ContradictedByTheLossesIsNotNamed) {
  const auto doc = test::load_json(kDir + "grad_not_zeroed_book.json");
  Dump d = learner_dump(doc);
  const Walk chapter = find_stage("backward")->run(test::backward_config(doc));
  for (auto& [name, t] : d.tensors)
    if (name == "losses") t = test::step_named(chapter, "losses").value;
  const CheckReport r = check_golden("grad_not_zeroed_book.json", &d);
  ASSERT_FALSE(r.passed());
  EXPECT_EQ(r.results[*r.first].name, "W_query.weight");
  EXPECT_TRUE(r.diagnoses.empty()) << ::testing::PrintToString(r.diagnoses);
}

// Mistakes TrainChoices does not name, made in PyTorch itself
// (tests/golden/make_check_training_goldens.py): optimizer.step() left out, and model.eval()
// left on through the loop. Each is named with its evidence.
TEST(CheckTraining, StepForgottenAndDropoutLeftOff) {
  const std::string dir = test::tests_dir() + "/golden/check_training/";
  size_t n = 0;
  for (const auto& c : test::load_json(dir + "cases.json")) {
    const std::string path = dir + c["dump"].get<std::string>();
    SCOPED_TRACE(path);
    const Config cfg = test::backward_config(c);
    const Dump d = parse_dump(test::read_all(path), path);
    const CheckReport r = check_dump(d, cfg, "backward", "option", Tolerance{}, path);
    ASSERT_FALSE(r.passed());
    const std::string id = c["mistake"];
    EXPECT_NE(std::find(r.diagnoses.begin(), r.diagnoses.end(), id), r.diagnoses.end())
        << ::testing::PrintToString(r.diagnoses) << "\n"
        << render_check_text(r, Lang::En);
    const auto e = evidence_of(r, id);
    if (id == "optimizer_step_forgotten" && cfg.attn_dropout == 0.0)
      EXPECT_EQ(e.at("spread"), "0");  // nothing moves: every loss is the first
    if (id == "dropout_off_in_training") EXPECT_EQ(e.at("attn_p"), fmt::format("{}", cfg.attn_dropout));
    ++n;
  }
  EXPECT_EQ(n, 6u);
}

// optimizer.zero_grad() between loss.backward() and optimizer.step(), made in PyTorch, with the
// gradients printed right after backward(): its own mistake is named, and never
// optimizer_step_forgotten, whose advice ("call optimizer.step()") is against a line the
// dump's trained weights show was run.
TEST(CheckTraining, ZeroGradBeforeStepIsNotAForgottenStep) {
  const std::string dir = test::tests_dir() + "/golden/check_training/";
  size_t n = 0;
  for (const auto& c : test::load_json(dir + "cases.json")) {
    if (c["mistake"] != "grad_zeroed_before_step") continue;
    const std::string path = dir + c["dump"].get<std::string>();
    SCOPED_TRACE(path);
    const Config cfg = test::backward_config(c);
    const Dump d = parse_dump(test::read_all(path), path);
    const CheckReport r = check_dump(d, cfg, "backward", "option", Tolerance{}, path);
    ASSERT_FALSE(r.passed());
    // The gradients printed right after backward() are step 1's, the chapter's.
    for (const auto& g : r.results)
      if (g.name.size() > 5 && g.name.substr(g.name.size() - 5) == ".grad")
        EXPECT_NE(g.diff.grade, Grade::Differs) << g.name;
    EXPECT_EQ(r.diagnoses, std::vector<std::string>{"grad_zeroed_before_step"}) << render_check_text(r, Lang::En);
    const std::string en = render_check_text(r, Lang::En), zh = render_check_text(r, Lang::Zh);
    EXPECT_NE(en.find("between loss.backward() and optimizer.step()"), std::string::npos) << en;
    EXPECT_EQ(en.find("Call optimizer.step() after loss.backward()"), std::string::npos) << en;
    EXPECT_NE(zh.find("之间调用 optimizer.zero_grad()"), std::string::npos) << zh;
    ++n;
  }
  EXPECT_EQ(n, 2u);
}

// The loop's options (--steps, --lr, --weight-decay, --optimizer) reach `attn-walk check` from
// the options table as every walk option does: the dump of a 5-step loop with
// optimizer.step() left out is graded at --steps 5 and its mistake named; the same dump at
// the default 30 steps has no cause (its losses are 5 where the walk has 30).
TEST(CheckTraining, TheCommandLineTakesTheLoopsOptions) {
  const std::string path = test::tests_dir() + "/golden/check_training/optimizer_step_forgotten_book.json";
  const test::RunResult r = test::run_cli({"check", path, "--stage", "backward", "--steps", "5", "--lr", "0.05",
                                           "--weight-decay", "0.1", "--optimizer", "adamw", "--format", "json"});
  ASSERT_EQ(r.exit_code, 3) << test::describe(r);
  const auto ids = [](const std::string& out) {
    std::vector<std::string> found;
    const auto report = nlohmann::json::parse(out);
    for (const auto& d : report.at("diagnoses")) found.push_back(d.at("id"));
    return found;
  };
  EXPECT_EQ(nlohmann::json::parse(r.out).at("config").at("train").at("steps"), 5) << r.out.substr(0, 800);
  const auto named = ids(r.out);
  EXPECT_NE(std::find(named.begin(), named.end(), "optimizer_step_forgotten"), named.end()) << test::describe(r);
  const test::RunResult at_30 = test::run_cli({"check", path, "--stage", "backward", "--format", "json"});
  ASSERT_EQ(at_30.exit_code, 3) << test::describe(at_30);
  const auto at_30_named = ids(at_30.out);
  EXPECT_EQ(std::find(at_30_named.begin(), at_30_named.end(), "optimizer_step_forgotten"), at_30_named.end());
}

// The report says what it graded against: the loop's optimizer, lr, weight decay, steps,
// batch, seed and gradient step, in text, JSON and HTML, so a wrong --steps reads as such
// and not only as the losses' shapes.
TEST(CheckTraining, TheReportNamesTheLoopItGradesAgainst) {
  const std::string path = test::tests_dir() + "/golden/check_training/optimizer_step_forgotten_book.json";
  const test::RunResult r = test::run_cli({"check", path, "--stage", "backward", "--steps", "4", "--lr", "0.05",
                                           "--weight-decay", "0.1", "--seed", "123"});
  ASSERT_EQ(r.exit_code, 3) << test::describe(r);
  EXPECT_NE(r.out.find("graded against chapter 5's loop: AdamW(lr=0.05, weight_decay=0.1), 4 steps, batch 2, seed 123, "
                       "the gradients of step 1"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("shape (5,), expected (4,)"), std::string::npos) << r.out;
  const test::RunResult sgd = test::run_cli({"check", path, "--stage", "backward", "--steps", "5", "--optimizer", "sgd",
                                             "--lr", "0.1", "--weight-decay", "0", "--batch", "3", "--seed", "7",
                                             "--format", "json"});
  ASSERT_EQ(sgd.exit_code, 3) << test::describe(sgd);
  const auto training = nlohmann::json::parse(sgd.out).at("training");
  EXPECT_EQ(training.at("optimizer"), "sgd");
  EXPECT_EQ(training.at("lr"), 0.1);
  EXPECT_EQ(training.at("weight_decay"), 0.0);
  EXPECT_EQ(training.at("steps"), 5);
  EXPECT_EQ(training.at("batch"), 3);
  EXPECT_EQ(training.at("seed"), 7);
  EXPECT_EQ(training.at("grad_step"), 1);
  EXPECT_NE(training.at("text").get<std::string>().find("SGD(lr=0.1, weight_decay=0), 5 steps, batch 3, seed 7"),
            std::string::npos);
  const test::RunResult zh = test::run_cli({"check", path, "--stage", "backward", "--steps", "5", "--lang", "zh",
                                            "--format", "html"});
  EXPECT_NE(zh.out.find("<span class=\"training\">对照的是第 5 章的训练循环：AdamW(lr=0.05, weight_decay=0.1)，5 步"),
            std::string::npos)
      << zh.out;
  // Other stages have no loop: no line, JSON null.
  CheckReport causal;
  causal.stage = "causal";
  causal.config = test::backward_config(test::load_json(kDir + "grad_not_zeroed_book.json"));
  EXPECT_EQ(training_setup(causal, Lang::En), "");
  EXPECT_TRUE(nlohmann::json::parse(render_check_json(causal, Lang::En)).at("training").is_null());
}

// A learner's .grad tensors printed after the loop are the last step's, not step 1's (the
// walk's default): real PyTorch's gradients of the last step (tests/golden/backward/, made by
// make_backward_goldens.py with grad_step = steps) are graded against the last step's and the
// report says so; gradients of a middle step are neither, and the learner is asked for --grad-step.
Dump grads_of(const nlohmann::json& doc) {
  nlohmann::json mine = nlohmann::json::object();
  for (const auto& s : doc["stages"]["backward"]) {
    const std::string name = s["name"];
    if (name == "losses" || (name.size() > 5 && name.substr(name.size() - 5) == ".grad")) mine[name] = s["data"];
  }
  return parse_dump(mine.dump(), "grads.json");
}

TEST(CheckTraining, GradientsOfTheLastStepAreGradedAsSuch) {
  const std::string dir = test::tests_dir() + "/golden/backward/";
  const auto last = test::load_json(dir + "book_sgd_grad_step_last.json");
  Config cfg = test::backward_config(last);
  ASSERT_EQ(cfg.train.grad_step, cfg.train.steps);
  cfg.train.grad_step = 1;  // the walk's default
  const CheckReport r = check_dump(grads_of(last), cfg, "backward", "option", Tolerance{}, "grads.json");
  EXPECT_TRUE(r.passed()) << render_check_text(r, Lang::En);
  EXPECT_EQ(r.grad_step_from, 1);
  EXPECT_EQ(r.config.train.grad_step, cfg.train.steps);
  const std::string en = render_check_text(r, Lang::En);
  EXPECT_NE(en.find(fmt::format("Your .grad tensors are step {0}'s, not step 1's", cfg.train.steps)), std::string::npos) << en;
  EXPECT_NE(render_check_text(r, Lang::Zh).find(fmt::format("你的 .grad 张量是第 {} 步的", cfg.train.steps)), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(render_check_json(r, Lang::En)).at("training").at("grad_step_from"), 1);
  // With --grad-step given as the last step: graded as asked, nothing moved.
  const CheckReport at_last = check_dump(grads_of(last), test::backward_config(last), "backward", "option", Tolerance{}, "g");
  EXPECT_TRUE(at_last.passed());
  EXPECT_EQ(at_last.grad_step_from, 0);

  const auto middle = test::load_json(dir + "book_dropout_grad_step_4.json");
  Config mid_cfg = test::backward_config(middle);
  ASSERT_LT(mid_cfg.train.grad_step, mid_cfg.train.steps);
  mid_cfg.train.grad_step = 1;
  const CheckReport asked = check_dump(grads_of(middle), mid_cfg, "backward", "option", Tolerance{}, "grads.json");
  ASSERT_FALSE(asked.passed());
  EXPECT_EQ(asked.grad_step_from, 0);
  EXPECT_TRUE(asked.ask_grad_step) << render_check_text(asked, Lang::En);
  EXPECT_NE(render_check_text(asked, Lang::En).find("give that step with --grad-step"), std::string::npos);
}

// grads(out_head.named_parameters()) writes "weight.grad": check names the steps it can be
// ("out_head.weight.grad" among them), not the closest spelling ("logits.grad").
TEST(CheckTraining, AModulesOwnParameterNamesAreMatchedByTheirEnd) {
  const auto doc = test::load_json(kDir + "grad_not_zeroed_book.json");
  nlohmann::json mine = nlohmann::json::object();
  for (const auto& s : doc["stages"]["backward"])
    if (s["name"] == "out_head.weight.grad") mine["weight.grad"] = s["data"];
  ASSERT_EQ(mine.size(), 1u);
  try {
    check_dump(parse_dump(mine.dump(), "mine.json"), test::backward_config(doc), "backward", "option", Tolerance{},
               "mine.json");
    FAIL() << "no error";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("\"out_head.weight.grad\""), std::string::npos) << what;
    EXPECT_NE(what.find("prefix=\"<module>.\""), std::string::npos) << what;
    EXPECT_EQ(what.find("\"logits.grad\""), std::string::npos) << what;
  }
}

// The command the report suggests keeps the learner's options.
TEST(CheckTraining, TheSuggestedCommandKeepsTheLearnersOptions) {
  const std::string path = test::tests_dir() + "/golden/check_training/optimizer_step_forgotten_book.json";
  const test::RunResult r = test::run_cli({"check", path, "--stage", "backward", "--steps", "4", "--lr", "0.05",
                                           "--weight-decay", "0.1", "--qkv-bias"});
  ASSERT_EQ(r.exit_code, 3) << test::describe(r);
  EXPECT_NE(r.out.find("attn-walk --stage backward --qkv-bias --steps 4 --lr 0.05 --weight-decay 0.1 --only "),
            std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace attn
