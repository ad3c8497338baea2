// attn-walk check's diagnoses on learners' dumps made by real PyTorch (tests/golden/check/,
// written by tests/golden/make_check_goldens.py): each names its cause with the numbers that
// show it, causes that give the same numbers name each other, and a cause the dump
// contradicts is not named.
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
#include "test_check_util.h"
#include "test_util.h"

namespace attn {
namespace {

using test::config_from_golden;
using test::load_json;
using test::read_all;
using test::contains;
using test::evidence_of;
using test::kCheckDir;

// ---- diagnoses that measure the learner's tensor ---------------------------------------------

struct Diagnosed {
  CheckReport report;
  std::string text;
};

Diagnosed check_golden(const std::string& dump, const Config& cfg = test::book_config()) {
  const std::string path = kCheckDir + dump;
  const Dump d = parse_dump(read_all(path), path);
  std::string by;
  const std::string stage = enum_name(choose_stage(d, cfg, &by));
  CheckReport r = check_dump(d, cfg, stage, by, Tolerance{}, path);
  std::string text = render_check_text(r, Lang::En);
  return {std::move(r), std::move(text)};
}

// The learners' dumps below come from real PyTorch code with the mistake
// (make_check_goldens.py); each names its cause with the numbers that show it.
TEST(CheckDiagnoses, DivisorIsMeasuredAndNamed) {
  const Diagnosed tokens = check_golden("book/causal_wrong_divisor_tokens.json");  // / keys.shape[0]**0.5
  auto e = evidence_of(tokens.report, "wrong_divisor");
  EXPECT_EQ(e["expression"], "√6");
  EXPECT_EQ(e["code"], "keys.shape[0] ** 0.5");
  EXPECT_EQ(e["measured"], "2.449");
  EXPECT_NE(tokens.text.find("dividing the scores by 2.449 = √6, that is keys.shape[0] ** 0.5 (6 is the number of tokens)"),
            std::string::npos)
      << tokens.text;
  EXPECT_NE(tokens.text.find("sqrt(d_k) = sqrt(2) = 1.414"), std::string::npos) << tokens.text;

  const Diagnosed precedence = check_golden("book/causal_wrong_divisor_precedence.json");  // d_k**1/2
  e = evidence_of(precedence.report, "wrong_divisor");
  EXPECT_EQ(e["code"], "keys.shape[-1]**1/2");
  EXPECT_EQ(e["value"], "4");
  EXPECT_NE(precedence.text.find("Python reads attn_scores / keys.shape[-1]**1/2 as attn_scores / keys.shape[-1] / 2"),
            std::string::npos)
      << precedence.text;

  // MultiHeadAttention's self.d_out where self.head_dim belongs (d_out 6, 3 heads).
  const auto manifest = load_json(kCheckDir + "cases.json");
  const Config d6 = config_from_golden(manifest[2]);
  const Diagnosed d_out = check_golden("d6_t7_dout6_h3_randn/multi-head_wrong_divisor_d_out.json", d6);
  e = evidence_of(d_out.report, "wrong_divisor");
  EXPECT_EQ(e["code"], "self.d_out ** 0.5") << d_out.text;
  EXPECT_EQ(e["expression"], "√6");

  const Diagnosed after = check_golden("book/causal_scaled_after_softmax.json");
  e = evidence_of(after.report, "scaled_after_softmax");
  EXPECT_EQ(e["expression"], "√2");
  EXPECT_EQ(e["row_sum"], "0.7071");
  // The tool's own check on the learner's weights says what they lost.
  EXPECT_NE(after.text.find("✗ your attn_weights itself: every row sums to 1"), std::string::npos) << after.text;
}

TEST(CheckDiagnoses, RowsSeedsBiasAndMasks) {
  const Diagnosed row = check_golden("book/trainable_picked_wrong_row.json");  // x_2 = inputs[2]
  auto e = evidence_of(row.report, "picked_wrong_row");
  EXPECT_EQ(e["row"], "2");
  EXPECT_EQ(e["token"], "starts");
  EXPECT_EQ(e["chapter_row"], "1");
  EXPECT_NE(row.text.find("your x_2 is inputs[2], x(3) \"starts\"; the chapter's query x(2) is inputs[1]"),
            std::string::npos)
      << row.text;

  const Diagnosed typed = check_golden("book/dot-product_input_typed_wrong.json");
  e = evidence_of(typed.report, "input_typed_wrong");
  EXPECT_EQ(e["row"], "3");
  EXPECT_EQ(e["column"], "1");
  EXPECT_EQ(e["count"], "1");
  EXPECT_EQ(e["diff"], "0.02");

  const Diagnosed seed = check_golden("book/causal_wrong_seed.json");  // manual_seed(123) before v2
  e = evidence_of(seed.report, "wrong_seed");
  EXPECT_EQ(e["used"], "123");
  EXPECT_EQ(e["chapter"], "789");

  // The bias left on: --qkv-bias, as the message suggests, makes every tensor match.
  const Diagnosed bias = check_golden("book/causal_bias_left_on.json");
  EXPECT_TRUE(contains(bias.report.diagnoses, "bias_left_on")) << bias.text;
  EXPECT_NE(bias.text.find("--qkv-bias"), std::string::npos);
  Config with_bias = test::book_config();
  with_bias.qkv_bias = true;
  EXPECT_TRUE(check_golden("book/causal_bias_left_on.json", with_bias).report.passed());

  EXPECT_TRUE(contains(check_golden("book/causal_mask_filled_with_zero.json").report.diagnoses, "mask_filled_with_zero"));
  const Diagnosed after = check_golden("book/causal_mask_after_softmax.json");
  EXPECT_TRUE(contains(after.report.diagnoses, "mask_after_softmax")) << after.text;
  EXPECT_NE(after.text.find("✗ your attn_weights_causal itself: every row sums to 1"), std::string::npos) << after.text;
  EXPECT_NE(after.text.find("✓ your attn_weights_causal itself: 0 above the diagonal"), std::string::npos) << after.text;
}

// Layers declared W_key first give the very numbers of queries = W_key(x): both causes are
// named, and each message says the other gives the same numbers.
TEST(CheckDiagnoses, LayerOrderAndSwapGiveTheSameNumbersAndSaySo) {
  const Diagnosed kqv = check_golden("book/causal_layers_declared_kqv.json");
  EXPECT_TRUE(contains(kqv.report.diagnoses, "query_key_swapped")) << kqv.text;
  auto e = evidence_of(kqv.report, "layers_declared_out_of_order");
  EXPECT_EQ(e["order"], "W_key, W_query, W_value") << kqv.text;
  EXPECT_EQ(e["draws"], "6");  // nn.Linear(3, 2): 6 weights, no bias
  EXPECT_EQ(e["same_numbers_as"], "query_key_swapped");
  EXPECT_NE(kqv.text.find("The same numbers come from layers_declared_out_of_order too"), std::string::npos) << kqv.text;
  EXPECT_NE(kqv.text.find("The same numbers come from query_key_swapped too"), std::string::npos) << kqv.text;
  const std::string zh = render_check_text(kqv.report, Lang::Zh);
  EXPECT_NE(zh.find("query_key_swapped 也给出完全相同的数"), std::string::npos) << zh;

  // W_value declared first in MultiHeadAttention: no swap gives that, only the order does.
  const auto manifest = load_json(kCheckDir + "cases.json");
  const Config d4 = config_from_golden(manifest[1]);
  const Diagnosed vqk = check_golden("d4_t5_dout4_h2_bias/multi-head_layers_declared_vqk.json", d4);
  EXPECT_EQ(vqk.report.diagnoses, std::vector<std::string>{"layers_declared_out_of_order"}) << vqk.text;
  e = evidence_of(vqk.report, "layers_declared_out_of_order");
  EXPECT_EQ(e["order"], "W_value, W_query, W_key");
  EXPECT_EQ(e["draws"], "20");  // nn.Linear(4, 4, bias=True): 16 weights and 4 biases
}

// Other transposed operands, a softmax over a leading dimension, and dropout in the wrong
// place, each with its evidence read off the learner's tensor.
TEST(CheckDiagnoses, TransposesSoftmaxDimsAndDropoutPlaces) {
  const Diagnosed qt = check_golden("book/causal_queries_transposed_in_scores.json");
  auto e = evidence_of(qt.report, "queries_transposed_in_scores");
  EXPECT_EQ(e["got_shape"], "(2, 2)") << qt.text;
  EXPECT_NE(qt.text.find("shape (2, 2) = (d_k, d_k) with d_k = 2"), std::string::npos) << qt.text;

  const Diagnosed wt = check_golden("book/multi-head_attn_weights_transposed.json");
  EXPECT_TRUE(contains(wt.report.diagnoses, "attn_weights_transposed")) << wt.text;
  EXPECT_NE(wt.text.find("attn_weights.T @ values"), std::string::npos);

  const Diagnosed dim0 = check_golden("book/multi-head_softmax_dim0.json");
  e = evidence_of(dim0.report, "softmax_wrong_dim");
  EXPECT_EQ(e["dim"], "0") << dim0.text;
  EXPECT_EQ(e["share"], "0.5");  // two copies in the batch
  EXPECT_NE(dim0.text.find("torch.softmax(..., dim=0) would give: it normalises over the batch"), std::string::npos)
      << dim0.text;
  const auto manifest = load_json(kCheckDir + "cases.json");
  const Config d5 = config_from_golden(manifest[3]);
  const Diagnosed heads = check_golden("d5_t6_dout8_h4/multi-head_softmax_dim1_heads.json", d5);
  EXPECT_EQ(evidence_of(heads.report, "softmax_wrong_dim")["dim"], "1") << heads.text;

  // Dropout on the masked scores: every dropped -inf is nan (-inf * 0), 24 of them here, and
  // the rows that kept all their values sum to 1.
  const Diagnosed scores = check_golden("book/dropout_dropout_on_scores.json");
  e = evidence_of(scores.report, "dropout_misplaced");
  EXPECT_EQ(e["where"], "check.dropout_at.scores_after_mask") << scores.text;
  EXPECT_EQ(e["nans"], "24");
  EXPECT_LT(std::stod(e["row_sum_off"]), 1e-6);
  EXPECT_NE(scores.text.find("dropout on the masked scores"), std::string::npos) << scores.text;
  const Diagnosed renorm = check_golden("book/dropout_dropout_before_renormalising.json");
  EXPECT_EQ(evidence_of(renorm.report, "dropout_misplaced")["where"], "check.dropout_at.before_renormalising")
      << renorm.text;
  const Diagnosed unmasked = check_golden("book/dropout_dropout_on_unmasked_weights.json");
  EXPECT_EQ(evidence_of(unmasked.report, "dropout_misplaced")["where"], "check.dropout_at.unmasked_weights")
      << unmasked.text;
  EXPECT_NE(render_check_text(unmasked.report, Lang::Zh).find("用在未遮盖的权重上"), std::string::npos);
}

// One value of the inputs typed wrong, and the inputs not dumped: the value is read back
// from the learner's queries and keys (each row of inputs solved from them) and named, and
// the recomputation from it reproduces every tensor they gave. The batch of section 3.5.3
// shows it directly.
TEST(CheckDiagnoses, InputsInferredFromQueriesAndKeys) {
  const Config book = test::book_config();
  const Diagnosed causal = check_golden("book/causal_input_typed_wrong.json");
  auto e = evidence_of(causal.report, "input_inferred");
  EXPECT_EQ(e["row"], "3") << causal.text;  // make_check_goldens.py types inputs[T // 2, 1] + 0.02
  EXPECT_EQ(e["column"], "1");
  EXPECT_EQ(e["count"], "1");
  EXPECT_EQ(e["from"], "queries, keys");
  EXPECT_EQ(e["expected"], fmt::format("{}", book.inputs(3, 1)));
  EXPECT_EQ(e["got"], fmt::format("{}", static_cast<float>(std::round((book.inputs(3, 1) + 0.02) * 100) / 100)));
  EXPECT_EQ(e["diff"], "0.02");
  EXPECT_NE(causal.text.find("read back from your queries, keys"), std::string::npos) << causal.text;
  EXPECT_NE(render_check_text(causal.report, Lang::Zh).find("反推"), std::string::npos);

  const Diagnosed trainable = check_golden("book/trainable_input_typed_wrong.json");
  EXPECT_EQ(evidence_of(trainable.report, "input_inferred")["from"], "keys, values") << trainable.text;

  const auto manifest = load_json(kCheckDir + "cases.json");
  const Config d6 = config_from_golden(manifest[2]);
  const Diagnosed batch = check_golden("d6_t7_dout6_h3_randn/multi-head_input_typed_wrong.json", d6);
  e = evidence_of(batch.report, "input_typed_wrong");
  EXPECT_EQ(batch.report.results[*batch.report.first].name, "batch");
  EXPECT_EQ(e["row"], "3") << batch.text;
  EXPECT_EQ(e["column"], "1");
}

// A diagnosis the learner's other tensors contradict is not named: the same learner, but
// with the chapter's tensor at a later step computed from the wrong one (it cannot be right).
// The rule holds over the whole dump: section 3.5.2's dropout cells take 3.5.1's weights, so
// the chapter's dropout_attn_weights beside wrong attn_weights_causal rules the mistake out.
TEST(CheckDiagnoses, ContradictedByAnotherTensorIsNotNamed) {
  const Config cfg = test::book_config();
  struct Case {
    const char *dump, *stage, *later;
  };
  for (const Case& c : {Case{"book/causal_scale_missing.json", "causal", "attn_weights_causal"},
                        Case{"book/causal_mask_filled_with_zero.json", "causal", "attn_weights_causal"},
                        Case{"book/dropout_mask_after_softmax.json", "dropout", "dropout_attn_weights"}}) {
    SCOPED_TRACE(c.dump);
    const Walk walk = find_stage(c.stage)->run(cfg);
    const std::string path = kCheckDir + c.dump;
    Dump d = parse_dump(read_all(path), path);
    const CheckReport mistaken = check_dump(d, cfg, c.stage, "option", Tolerance{}, path);
    ASSERT_FALSE(mistaken.diagnoses.empty());
    bool replaced = false;
    for (auto& [step, tensor] : d.tensors)
      if (step == c.later) tensor = test::step_named(walk, step).value, replaced = true;
    ASSERT_TRUE(replaced);
    const CheckReport r = check_dump(d, cfg, c.stage, "option", Tolerance{}, path);
    EXPECT_EQ(r.results[*r.first].name, mistaken.results[*mistaken.first].name);
    EXPECT_TRUE(r.diagnoses.empty()) << ::testing::PrintToString(r.diagnoses);
  }
}

}  // namespace
}  // namespace attn
