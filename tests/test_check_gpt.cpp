// attn-walk check --stage gpt: learners' GPTModel dumps made by real PyTorch
// (tests/golden/learner_gpt/, written by tests/golden/make_learner_gpt_goldens.py), named by
// the paths their forward hooks and state dicts give, graded bit for bit against the book's
// model on the test models of tests/data/gpt/; each of chapter 4's slips is reproduced by its
// row of check/diagnoses.cpp with the learner's whole dump, and named with its evidence.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "check/check.h"
#include "check/dump.h"
#include "check/gpt.h"
#include "check/gpt_lines.h"
#include "check/learner.h"
#include "input/input_types.h"
#include "lang/lang.h"
#include "render/check.h"
#include "request/request.h"
#include "test_check_util.h"
#include "test_util.h"

namespace attn {
namespace {

using test::evidence_of;
using test::load_json;
using test::read_all;
using test::tests_dir;

const std::string kLearnerGptDir = tests_dir() + "/golden/learner_gpt/";

Config gpt_config(const std::string& weights) {
  WalkRequest r;
  r.stage = StageChoice::Gpt;
  r.gpt.weights_path = tests_dir() + "/data/gpt/" + weights;
  r.heads = 2;  // the test models' (the book's files cannot tell it)
  r.heads_given = true;
  r.keep_all_values = true;
  return make_config(r, load_input(r));
}

struct Checked {
  CheckReport report;
  Dump dump;
};

Checked check_learner(const nlohmann::json& c) {
  const std::string path = kLearnerGptDir + c["dump"].get<std::string>();
  Dump d = parse_dump(read_all(path), path);
  CheckReport r = check_dump(d, gpt_config(c["weights"].get<std::string>()), "gpt", "option", Tolerance{}, path);
  return {std::move(r), std::move(d)};
}

// Every dump: the first name that differs is PyTorch's, every step before it is equal bit for
// bit, and the slip is named (alone, when the dump has every module's output).
TEST(CheckGpt, EveryLearnerDumpIsGradedAndItsSlipNamed) {
  const auto cases = load_json(kLearnerGptDir + "cases.json");
  ASSERT_GE(cases.size(), 20u);
  for (const auto& c : cases) {
    SCOPED_TRACE(c["dump"].get<std::string>());
    const Checked k = check_learner(c);
    EXPECT_EQ(k.report.names_given, c["names"].get<size_t>());
    const std::string want = c["diagnosis"].is_null() ? "" : c["diagnosis"].get<std::string>();
    if (c["first_difference"].is_null()) {
      EXPECT_TRUE(k.report.passed());
      for (const auto& s : k.report.results)
        if (s.diff.grade != Grade::NotGiven) EXPECT_EQ(s.diff.grade, Grade::Equal) << s.name;  // bit for bit
      continue;
    }
    ASSERT_TRUE(k.report.first.has_value());
    EXPECT_EQ(k.report.results[*k.report.first].name, c["first_difference"].get<std::string>());
    for (size_t i = 0; i < *k.report.first; ++i)
      if (k.report.results[i].diff.grade != Grade::NotGiven)
        EXPECT_EQ(k.report.results[i].diff.grade, Grade::Equal) << k.report.results[i].name;
    EXPECT_NE(std::find(k.report.diagnoses.begin(), k.report.diagnoses.end(), want), k.report.diagnoses.end())
        << "named: " << ::testing::PrintToString(k.report.diagnoses);
    if (c["dump"].get<std::string>().find("_blocks") == std::string::npos) {
      EXPECT_EQ(k.report.diagnoses, std::vector<std::string>{want});
    }
  }
}

// The learner's lines (check/gpt_lines.h) reproduce PyTorch's tensors of the whole dump bit for
// bit; the exact GELU, computed once in double, within the last bits (nn.GELU()'s oneDNN kernel
// approximates erf its own way).
TEST(CheckGpt, LearnersLinesReproduceEveryTensorOfTheDump) {
  struct Slip {
    const char* dump;
    const char* weights;
    void (*write)(Cells&);
    bool bits;
  };
  const Slip slips[] = {
      {"book_layer_norm_var_unbiased_outputs.json", "book.safetensors", lines::layer_norm_unbiased, true},
      {"book_layer_norm_wrong_dim_outputs.json", "book.safetensors", [](Cells& c) { lines::layer_norm_over_dim(c, 1); }, true},
      {"book_shortcut_missing_outputs.json", "book.safetensors", [](Cells& c) { lines::shortcut_left_out(c, 1); }, true},
      {"hf_conv1d_not_transposed_all.json", "hf/model.safetensors",
       [](Cells& c) { lines::conv1d_not_transposed(c, {".att.out_proj.weight"}); }, true},
      {"book_gelu_exact_outputs.json", "book.safetensors", lines::gelu_exact, false},
  };
  for (const Slip& s : slips) {
    SCOPED_TRACE(s.dump);
    const std::string path = kLearnerGptDir + s.dump;
    const Dump d = parse_dump(read_all(path), path);
    Cells cells;
    s.write(cells);
    const LearnerSteps steps = learner_stage("gpt", gpt_config(s.weights), cells);
    size_t equal = 0;
    for (const auto& [name, got] : d.tensors) {
      const auto it = steps.find(name);
      ASSERT_NE(it, steps.end()) << name;
      const Difference diff = compare(got, it->second, Tolerance{});
      if (s.bits) {
        EXPECT_EQ(diff.grade, Grade::Equal) << name << " differs by " << diff.max_abs_diff;
      } else {
        EXPECT_NE(diff.grade, Grade::Differs) << name << " differs by " << diff.max_abs_diff;
      }
      equal += diff.grade == Grade::Equal;
    }
    EXPECT_EQ(equal > 0, true);
  }
}

// The evidence is computed from the numbers, and the message is in both languages.
TEST(CheckGpt, EvidenceAndMessages) {
  const auto find_case = [](const std::string& dump) {
    for (const auto& c : load_json(kLearnerGptDir + "cases.json"))
      if (c["dump"] == dump) return c;
    return nlohmann::json();
  };
  const Checked var = check_learner(find_case("book_layer_norm_var_unbiased_outputs.json"));
  auto e = evidence_of(var.report, "layer_norm_var_unbiased");
  EXPECT_EQ(e["n"], "8");
  EXPECT_EQ(e["n_minus_1"], "7");
  EXPECT_EQ(e["book_ratio"], "0.9354");
  EXPECT_EQ(e["norm"], "trf_blocks.0.norm1");
  ASSERT_FALSE(e["ratio"].empty());
  EXPECT_NEAR(std::stod(e["ratio"]), 0.9354, 0.002);  // measured on the learner's tensor
  for (const Lang lang : {Lang::En, Lang::Zh}) {
    const std::string text = render_check_text(var.report, lang);
    EXPECT_NE(text.find("sqrt(7/8) = 0.9354"), std::string::npos) << text;
    EXPECT_NE(text.find("unbiased=False"), std::string::npos) << text;
    EXPECT_EQ(text.find("{"), std::string::npos) << text;  // every placeholder filled
  }

  const Checked dim = check_learner(find_case("book_layer_norm_wrong_dim_outputs.json"));
  e = evidence_of(dim.report, "layer_norm_wrong_dim");
  EXPECT_EQ(e["dim"], "1");
  EXPECT_LT(std::stod(e["dim_mean"]), 1e-5);  // mean 0 over the tokens ...
  EXPECT_GT(std::stod(e["row_mean"]), 1e-2);  // ... not along a row

  const Checked shortcut = check_learner(find_case("book_shortcut_missing_outputs.json"));
  e = evidence_of(shortcut.report, "shortcut_missing");
  EXPECT_EQ(e["which"], "check.gpt.shortcut_first");
  EXPECT_NE(render_check_text(shortcut.report, Lang::En).find("block 0's input, of norm"), std::string::npos);
  const Checked second = check_learner(find_case("book_shortcut_missing_second_outputs.json"));
  EXPECT_EQ(evidence_of(second.report, "shortcut_missing")["which"], "check.gpt.shortcut_second");

  const Checked gelu = check_learner(find_case("book_gelu_exact_outputs.json"));
  e = evidence_of(gelu.report, "gelu_exact");
  EXPECT_GT(std::stod(e["gap"]), 0.0);
  EXPECT_GT(std::stod(e["largest"]), 0.0);

  const Checked hf = check_learner(find_case("hf_conv1d_not_transposed_all.json"));
  e = evidence_of(hf.report, "conv1d_not_transposed");
  EXPECT_EQ(e["which"], "out_proj.weight = c_proj.weight");
  EXPECT_EQ(e["emb"], "8");
  for (const Lang lang : {Lang::En, Lang::Zh}) {
    const std::string text = render_check_text(hf.report, lang);
    EXPECT_NE(text.find("out_proj.weight = c_proj.weight"), std::string::npos) << text;
    EXPECT_EQ(text.find("{"), std::string::npos) << text;
  }
  // c_attn's chunks without .T: the queries, keys and values, named by the same row.
  const Checked c_attn = check_learner(find_case("hf_conv1d_not_transposed_c_attn_outputs.json"));
  EXPECT_EQ(evidence_of(c_attn.report, "conv1d_not_transposed")["which"], "W_query/W_key/W_value.weight = q_w/k_w/v_w");
  // All four: c_attn's chunks alone give the keys, but not the attention's output after out_proj.
  const Checked four = check_learner(find_case("hf_conv1d_not_transposed_all_four_outputs.json"));
  EXPECT_EQ(evidence_of(four.report, "conv1d_not_transposed")["which"],
            "W_query/W_key/W_value.weight = q_w/k_w/v_w, out_proj.weight = c_proj.weight");
}

// The vocabulary-sized parameters are graded when given (and recomputed for the diagnoses
// then): tok_emb.weight from the model file itself is equal, and a slip is still named.
TEST(CheckGpt, LargeParametersAreGradedWhenGiven) {
  const auto cases = load_json(kLearnerGptDir + "cases.json");
  const Config cfg = gpt_config("book.safetensors");
  const Tensor tok_emb = cfg.gpt.params->tok_emb.copy();
  ASSERT_GT(tok_emb.numel(), 1 << 16);
  for (const char* file : {"book_correct_all.json", "book_layer_norm_var_unbiased_outputs.json"}) {
    SCOPED_TRACE(file);
    const std::string path = kLearnerGptDir + file;
    Dump d = parse_dump(read_all(path), path);
    d.tensors.insert(d.tensors.begin(), {"tok_emb.weight", tok_emb});
    d.stages.insert(d.stages.begin(), "");
    const CheckReport r = check_dump(d, cfg, "gpt", "option", Tolerance{}, path);
    EXPECT_EQ(r.results.at(1).name, "tok_emb.weight");  // in_idx, then the embedding's weight
    EXPECT_EQ(r.results.at(1).diff.grade, Grade::Equal);
    if (std::string(file).find("correct") != std::string::npos) {
      EXPECT_TRUE(r.passed());
    } else {
      EXPECT_EQ(r.diagnoses, std::vector<std::string>{"layer_norm_var_unbiased"});
    }
  }
}

// Names a forward-hook dump gives that are not steps: a clear error naming the closest step.
TEST(CheckGpt, UnknownNameIsRefused) {
  const Dump d = parse_dump(R"({"trf_blocks.0.drop_shortcut": [[[1, 2, 3, 4, 5, 6, 7, 8]]]})", "mine.json");
  try {
    check_dump(d, gpt_config("book.safetensors"), "gpt", "option", Tolerance{}, "mine.json");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("\"trf_blocks.0.drop_shortcut\" is not a step of stage gpt"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace attn
