// Sentences that state a fact about the numbers are computed from them (issue 12, point 1):
// each fact is checked on two configurations where it differs, so a hard-coded sentence
// fails one of them. Also the section numbers, the chapter's additions and the notebook's
// own print labels.
#include <gtest/gtest.h>

#include "lang/lang.h"
#include "render/render.h"
#include "stages/backward.h"
#include "stages/stages.h"
#include "run_process.h"
#include "test_util.h"

namespace attn {
namespace {

// The explanation of one step after localize() in `lang`.
std::string explained(Walk w, const std::string& step, Lang lang = Lang::En) {
  localize(w, lang, /*explain=*/true);
  return test::step_named(w, step).explanation;
}

std::string text_of(const Walk& walk, Lang lang = Lang::En) {
  Walk w = walk;
  localize(w, lang, /*explain=*/true);
  RenderOptions o;
  o.lang = lang;
  o.explain = true;
  return render_text(w, o);
}

Config with_inputs(std::vector<std::vector<float>> rows) {
  Config c;
  std::vector<float> data;
  for (const auto& r : rows) data.insert(data.end(), r.begin(), r.end());
  c.inputs = Tensor({static_cast<int64_t>(rows.size()), static_cast<int64_t>(rows[0].size())}, data);
  for (size_t i = 0; i < rows.size(); ++i) c.tokens.push_back("x" + std::to_string(i + 1));
  c.query = 1;
  return c;
}

// Embeddings so large that float32 overflows in the scores (the stages' first product): inf,
// then nan after it. The same numbers as `overflowing_json`, for the command line.
Config overflowing() { return with_inputs({{3e38f, -3e38f}, {3e38f, 0.5f}, {0.3f, 0.1f}}); }
const char* const overflowing_json = R"({"tokens": ["a", "b", "c"], "embeddings": [[3e38, -3e38], [3e38, 0.5], [0.3, 0.1]]})";

TEST(ExplanationFacts, DotProductNamesTheLargestScoreAndWhyLengthMatters) {
  // Query x(2): its largest score is with itself.
  const std::string q2 = explained(run_dot_product(test::book_config()), "attn_scores_2");
  EXPECT_NE(q2.find("ω22 = 1.4950"), std::string::npos) << q2;
  EXPECT_EQ(q2.find("the more two vectors point the same way, the larger"), std::string::npos);
  // Query x(4) ("with"): journey outscores "with" itself, because it is longer.
  Config c = test::book_config();
  c.query = 4;
  const std::string q4 = explained(run_dot_product(c), "attn_scores_2");
  EXPECT_NE(q4.find("x(4) · x(2) = 0.8434 beats x(4) · x(4) = 0.4937"), std::string::npos) << q4;
  EXPECT_NE(q4.find("|x(2)| = 1.2227 against |x(4)| = 0.7026"), std::string::npos) << q4;
  const std::string zh = explained(run_dot_product(c), "attn_scores_2", Lang::Zh);
  EXPECT_NE(zh.find("x(4) · x(2) = 0.8434"), std::string::npos) << zh;
}

TEST(ExplanationFacts, ScoreMatrixPointsAtTheRowWhereLengthBeatsDirection) {
  const std::string book = explained(run_dot_product(test::book_config()), "attn_scores");
  EXPECT_NE(book.find("in row 4, x(4) · x(2) = 0.8434 is larger than x(4) · x(4) = 0.4937"),
            std::string::npos)
      << book;
  // Orthogonal unit vectors: every token scores highest with itself.
  const Walk eye = run_dot_product(with_inputs({{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}));
  EXPECT_EQ(test::step_named(eye, "attn_scores").variant, "self_wins");
  EXPECT_NE(explained(eye, "attn_scores").find("every token scores highest with itself"), std::string::npos);
}

TEST(ExplanationFacts, NaiveOverflowCountsNanAndZeroEntries) {
  const std::string book = explained(run_softmax(test::book_config()), "big_weights_2_naive");
  // tensor([nan, nan, nan, 0., 0., nan]): 4 overflowed, 2 finite / inf = 0.
  EXPECT_NE(book.find("The exp of 4 of these scores is inf"), std::string::npos) << book;
  EXPECT_NE(book.find("the exp of the other 2 is finite, and a finite number divided by inf is 0"),
            std::string::npos)
      << book;
  // Identical tokens: every score overflows at once, so every entry is nan and none is 0.
  const Walk same = run_softmax(with_inputs({{1, 1, 1}, {1, 1, 1}, {1, 1, 1}}));
  const std::string all = explained(same, "big_weights_2_naive");
  EXPECT_NE(all.find("every one of these scores is inf"), std::string::npos) << all;
  EXPECT_EQ(all.find("divided by inf is 0"), std::string::npos) << all;
}

TEST(ExplanationFacts, StableSoftmaxSaysHowTheWeightIsShared) {
  // The review's numbers: 0.8765 and 0.1235, not "almost all to the largest".
  const std::string book = explained(run_softmax(test::book_config()), "big_weights_2");
  EXPECT_NE(book.find("x(2) gets 0.8765 and x(3) 0.1235"), std::string::npos) << book;
  EXPECT_EQ(book.find("almost all the weight"), std::string::npos) << book;
  Config c = test::book_config();
  c.query = 4;  // here it is nearly one-hot
  const std::string q4 = explained(run_softmax(c), "big_weights_2");
  EXPECT_NE(q4.find("nearly one-hot: x(2) gets 1.0000"), std::string::npos) << q4;
  const std::string zh = explained(run_softmax(test::book_config()), "big_weights_2", Lang::Zh);
  EXPECT_NE(zh.find("x(2) 得到 0.8765"), std::string::npos) << zh;
}

TEST(ExplanationFacts, DropoutNamesTheEmptiedRowAndTheCheckSaysWhatItMeasures) {
  const Walk book = run_dropout(test::book_config());
  const std::string e = explained(book, "dropout_attn_weights_row_sums");
  // tensor([2.0000, 0.0000, 2.0000, 0.9846, 0.7741, 1.3073]): row 2 was dropped entirely.
  EXPECT_NE(e.find("Row 2 lost every weight"), std::string::npos) << e;
  const std::string out = text_of(book);
  // Rows 1 to 3 are all about 1 away from 1 (2.0000, 0.0000, 2.0000): the emptied one is named.
  EXPECT_NE(out.find("✓ after dropout, the rows no longer sum to 1, as expected: row 2 sums to 0.0000 "
                     "(largest |row sum − 1| 1)"),
            std::string::npos)
      << out;
  {  // the HTML page says the same
    Walk h = book;
    localize(h, Lang::En, false);
    RenderOptions o;
    EXPECT_NE(render_html({h}, o).find("row 2 sums to 0.0000 <span class=\"diff\">(largest |row sum − 1| 1)"),
              std::string::npos);
  }
  Config c = test::book_config();
  c.dropout = 0.9;
  const std::string many = explained(run_dropout(c), "dropout_attn_weights_row_sums");
  EXPECT_NE(many.find("Rows 1, 2, 3, 4, 5 lost every weight"), std::string::npos) << many;
  c.dropout = 0.1;  // nothing emptied: the text names the row farthest from 1 instead
  const Walk light = run_dropout(c);
  EXPECT_EQ(test::step_named(light, "dropout_attn_weights_row_sums").variant, "");
  EXPECT_EQ(explained(light, "dropout_attn_weights_row_sums").find("lost every weight"), std::string::npos);
}

// The backward stage's texts that hold only for finite numbers ("each row sums to 0", "its
// gradient is 0", "moves every weight by about ∓lr", "training moved the attention") give way
// to what the numbers show when a float32 overflowed; a NaN is written "nan", as PyTorch
// prints it, never "-nan"; and the checks fail on a NaN row instead of skipping it.
TEST(ExplanationFacts, BackwardSaysWhenItsNumbersAreNotFinite) {
  const Walk book = run_backward(test::book_config());
  const Walk overflow = run_backward(overflowing());
  const struct {
    const char* step;
    const char* finite;      // a phrase only the finite text has
    const char* not_finite;  // and one only the other has
  } texts[] = {{"logits.grad", "Each row sums to 0.", "not all finite"},
               {"queries.grad", "its gradient is 0", "not finite here"},
               {"step1.update", "step 1 moves every weight", "Where the gradient is not finite"},
               {"attn_weights_trained", "training moved the attention", "not all finite"}};
  for (const auto& t : texts) {
    const std::string good = explained(book, t.step), bad = explained(overflow, t.step);
    EXPECT_NE(good.find(t.finite), std::string::npos) << t.step << ": " << good;
    EXPECT_EQ(good.find(t.not_finite), std::string::npos) << t.step << ": " << good;
    EXPECT_NE(bad.find(t.not_finite), std::string::npos) << t.step << ": " << bad;
    EXPECT_EQ(bad.find(t.finite), std::string::npos) << t.step << ": " << bad;
  }
  for (const Lang lang : {Lang::En, Lang::Zh}) {
    const std::string out = text_of(overflow, lang);
    EXPECT_EQ(out.find("-nan"), std::string::npos) << out;
    EXPECT_NE(out.find("nan"), std::string::npos);
  }
  EXPECT_NE(explained(overflow, "loss").find("Here nan;"), std::string::npos) << explained(overflow, "loss");
  for (const auto& check : overflow.checks)
    if (check.id == "scores_grad_rows_sum_to_zero") EXPECT_FALSE(check.passed);
}

// A walk whose numbers stop being finite (a float32 overflow, or 0 / 0) says where: the first
// step holding a NaN or +inf, once, in the walk's notes. The softmax stage's own overflow
// demonstration does not count, and neither does the -inf of the mask.
TEST(ExplanationFacts, AWalkSaysWhereItsNumbersStopBeingFinite) {
  Walk big = run_causal(overflowing());
  note_nonfinite(big);
  ASSERT_EQ(big.notes.size(), 1u);
  EXPECT_EQ(big.notes[0], "note.nonfinite");
  EXPECT_EQ(big.vars["nonfinite_step"], "attn_scores");
  EXPECT_EQ(big.vars["nonfinite_index"], "3");
  for (const auto& stage : all_stages()) {  // the chapter's numbers stay finite
    Walk w = stage.run(test::book_config());
    note_nonfinite(w);
    EXPECT_EQ(w.vars.count("nonfinite_step"), 0u) << w.stage << ": " << w.vars["nonfinite_step"];
  }
  // Through the command line: the note, in the language asked for.
  const std::string input = overflowing_json;
  const test::RunResult en = test::run_cli({"--stage", "causal", "--input", "-"}, input);
  EXPECT_NE(en.out.find("note: step [3] attn_scores is the first whose numbers are not all finite"), std::string::npos) << en.out;
  const test::RunResult zh = test::run_cli({"--stage", "backward", "--input", "-", "--lang", "zh"}, input);
  EXPECT_NE(zh.out.find("是第一个数值并非全是有限数的步骤"), std::string::npos) << zh.out;
  EXPECT_EQ(test::run_cli({"--stage", "softmax"}).out.find("not all finite"), std::string::npos);
  // And each explanation above such a tensor says that what it states of finite numbers may
  // not hold there; above the chapter's numbers, none does.
  const std::string qualifier = "Here not all of these values are finite";
  EXPECT_EQ(explained(big, "queries").find(qualifier), std::string::npos);
  EXPECT_NE(explained(big, "attn_scores").find(qualifier), std::string::npos) << explained(big, "attn_scores");
  EXPECT_NE(explained(big, "attn_scores", Lang::Zh).find("未必成立"), std::string::npos);
  EXPECT_EQ(text_of(run_causal(test::book_config())).find(qualifier), std::string::npos);
  // The backward stage's own texts for that ("nonfinite" variants) need no second word on it.
  const Walk backward = run_backward(overflowing());
  EXPECT_EQ(explained(backward, "queries.grad").find(qualifier), std::string::npos) << explained(backward, "queries.grad");
  EXPECT_NE(explained(backward, "keys.grad").find(qualifier), std::string::npos) << explained(backward, "keys.grad");
}

TEST(Sections, CausalAttentionIsInSection353AndTheSoftmaxAdditionsAreMarked) {
  EXPECT_NE(text_of(run_dropout(test::book_config())).find("(chapter 3, sections 3.5.2–3.5.3)"),
            std::string::npos);
  EXPECT_NE(text_of(run_dropout(test::book_config()), Lang::Zh).find("（第 3 章 3.5.2–3.5.3 节）："),
            std::string::npos);
  Walk w = run_softmax(test::book_config());
  localize(w, Lang::En, false);
  for (const auto& s : w.steps) {
    const bool addition = s.title.rfind("[not in the chapter] ", 0) == 0;
    const bool expected = s.name.find("big_") == 0 || s.name == "overflow_scale" ||
                          s.name == "attn_weights_2_sharp" || s.name == "attn_weights_2_flat";
    EXPECT_EQ(addition, expected) << s.name << ": " << s.title;
  }
}

TEST(NotebookPrints, LabelsAndPythonNumbersAsTheNotebookPrintsThem) {
  const std::string dot = text_of(run_dot_product(test::book_config()));
  EXPECT_NE(dot.find("\nRow 2 sum: 1.0\n"), std::string::npos);
  EXPECT_NE(dot.find("\nAll row sums: tensor([1.0000, 1.0000, 1.0000, 1.0000, 1.0000, 1.0000])\n"),
            std::string::npos);
  EXPECT_NE(dot.find("— <class 'float'>"), std::string::npos);
  const std::string sm = text_of(run_softmax(test::book_config()));
  EXPECT_NE(sm.find("\nAttention weights: tensor([0.1455, 0.2278, 0.2249, 0.1285, 0.1077, 0.1656])\n"),
            std::string::npos);
  EXPECT_NE(sm.find("\nSum: tensor(1.0000)\n"), std::string::npos);
  EXPECT_NE(sm.find("\nSum: tensor(1.)\n"), std::string::npos);
  const std::string mh = text_of(run_multi_head(test::book_config()));
  EXPECT_NE(mh.find("— <class 'int'>\n2360064\n"), std::string::npos);
  EXPECT_NE(mh.find("\nFirst head:\n tensor([["), std::string::npos);
  EXPECT_NE(mh.find("\n\nSecond head:\n tensor([["), std::string::npos);
}

}  // namespace
}  // namespace attn

namespace attn {
namespace {

TEST(NotebookPrints, Exercise32NoteExplainsTheSolutionsOtherNumbers) {
  Walk w = run_multi_head(test::book_config());
  localize(w, Lang::En, false);
  std::string notes;
  for (const auto& n : w.notes) notes += n + "\n";
  EXPECT_NE(notes.find("torch.softmax(..., dim=1) normalised over the queries"), std::string::npos) << notes;
  // The note quotes the chapter's numbers: they are PyTorch's, as the book golden holds them.
  EXPECT_NE(notes.find("[[-0.5740, 0.2216], …]"), std::string::npos) << notes;
  const auto doc = test::load_json(test::tests_dir() + "/golden/walks/book.json");
  std::string printed;
  for (const auto& s : doc["stages"]["multi-head"])
    if (s["name"] == "exercise_3_2_context_vecs") printed = s["printed"].get<std::string>();
  EXPECT_EQ(printed.rfind("tensor([[[-0.5740,  0.2216],", 0), 0u) << printed;
}

}  // namespace
}  // namespace attn

namespace attn {
namespace {

// Issue 12, point 5 (the goldens hold PyTorch's numbers, strides and state_dict keys; this
// says what the demonstrations must show).
TEST(Demonstrations, ViewWithoutTransposeMixesTokensAndContiguityIsShown) {
  const Walk w = run_multi_head(test::book_config());
  const Step& wrong = test::step_named(w, "hd2_keys_wrong");
  const Step& right = test::step_named(w, "hd2_keys_split");
  // Head 0: right = features 0, 1 of tokens 1-3; wrong = token 1's four features and token 2's first two.
  EXPECT_EQ(std::vector<float>(right.value.data.begin(), right.value.data.begin() + 6),
            (std::vector<float>{0, 1, 4, 5, 8, 9}));
  EXPECT_EQ(std::vector<float>(wrong.value.data.begin(), wrong.value.data.begin() + 6),
            (std::vector<float>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(right.details, std::vector<std::string>{"stride() = (12, 2, 4, 1), is_contiguous() = False"});
  EXPECT_EQ(test::step_named(w, "hd2_back").details,
            std::vector<std::string>{"stride() = (12, 2, 6, 1), is_contiguous() = False"});
  EXPECT_EQ(test::step_named(w, "hd2_merged").value.data, test::step_named(w, "hd2_keys").value.data);
  EXPECT_TRUE(right.beyond_chapter);
  EXPECT_FALSE(test::step_named(w, "exercise_3_2_context_vecs").beyond_chapter);
}

TEST(Demonstrations, TheMaskBufferIsLargerThanTheInputAndOnlyABufferIsSaved) {
  for (const bool bias : {false, true}) {
    Config c = test::book_config();
    c.qkv_bias = bias;
    const Walk w = run_dropout(c);
    const Step& mask = test::step_named(w, "buffer_mask");
    EXPECT_EQ(mask.value.shape, (Shape{8, 8}));  // context_length = T + 2
    EXPECT_EQ(test::step_named(w, "buffer_mask_T").value.shape, (Shape{6, 6}));
    ASSERT_EQ(mask.details.size(), 2u);
    EXPECT_EQ(mask.details[0].find("list(ca.state_dict()) = ['mask', 'W_query.weight'"), 0u) << mask.details[0];
    EXPECT_EQ(mask.details[1].find("'mask'"), std::string::npos) << mask.details[1];
    EXPECT_EQ(mask.details[0].find("'W_query.bias'") != std::string::npos, bias);
  }
}

}  // namespace
}  // namespace attn
