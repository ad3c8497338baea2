// What the page's controls are built from (src/web/page_data.h, options_json in src/request/option_table.h):
// the CLI's own options, with their choices and defaults, and the state of a CLI page.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "input/embeddings.h"
#include "render/page.h"
#include "request/option_table.h"
#include "request/request.h"
#include "web/page_data.h"

namespace attn {
namespace {

using nlohmann::json;

// A CLI page's walk (--format html) on a two-token input (--stage gpt: on its own text, since
// its model embeds token ids).
std::vector<Walk> html_walks(Options o, RenderOptions* ro) {
  o.format = Format::Html;
  set_document(o);
  if (o.walk.stage != StageChoice::Gpt) o.walk.input_json = R"({"tokens": ["a", "b"], "embeddings": [[0.1, 0.2], [0.3, 0.4]]})";
  return make_walks(o.walk, ro);
}

// The book's small test model (tests/data/gpt/, 2 heads, which its file does not record).
std::string gpt_model() { return std::string(ATTN_WALK_TESTS_DIR) + "/data/gpt/book.safetensors"; }

json find_option(const json& list, const std::string& name) {
  for (const auto& o : list)
    if (o["name"] == name) return o;
  return nullptr;
}

TEST(WebData, OptionsComeFromTheCliBinding) {
  const json list = json::parse(options_json());
  const json stage = find_option(list, "stage");
  ASSERT_FALSE(stage.is_null());
  EXPECT_EQ(stage["default"], "dot-product");
  // The stages, then the two groups: all (the chapter) and bonus.
  const auto& choices = stage["choices"];
  ASSERT_GE(choices.size(), 2u);
  EXPECT_EQ(choices[choices.size() - 2], "all");
  EXPECT_EQ(choices.back(), "bonus");
  EXPECT_GE(stage["choices"].size(), 7u);
  EXPECT_EQ(find_option(list, "init")["choices"], json({"rand", "randn"}));
  EXPECT_EQ(find_option(list, "lang")["choices"], json({"en", "zh"}));
  EXPECT_TRUE(find_option(list, "qkv-bias")["flag"].get<bool>());
  EXPECT_FALSE(find_option(list, "d-out")["flag"].get<bool>());
  EXPECT_EQ(find_option(list, "d-out")["default"], "2");
  EXPECT_EQ(find_option(list, "seed")["default"], "");
}

TEST(WebData, PageShowsOnlyTheWalksOptions) {
  const json data = json::parse(page_data_json({}, RenderOptions{}, true));
  EXPECT_TRUE(data["engine"].get<bool>());
  std::set<std::string> names;
  for (const auto& o : data["options"]) names.insert(o["name"]);
  for (const char* shown : {"stage", "query", "seed", "d-out", "heads", "dropout", "attn-dropout", "batch",
                            "qkv-bias", "init", "dropout-rng", "lang"})
    EXPECT_TRUE(names.count(shown)) << shown;
  for (const char* hidden : {"format", "output", "input", "only", "step", "color", "help"})
    EXPECT_FALSE(names.count(hidden)) << hidden;
  // --stage gpt's options come from the table too; the stage says the file it needs.
  for (const char* gpt : {"weights", "layer", "head", "max-new-tokens"}) EXPECT_TRUE(names.count(gpt)) << gpt;
  json gpt_stage;
  for (const auto& s : data["stages"])
    if (s["name"] == "gpt") gpt_stage = s;
  EXPECT_EQ(gpt_stage.value("needs", ""), "weights");
  EXPECT_EQ(data["default_input"]["tokens"][1], "journey");
  EXPECT_EQ(data["default_input"]["embeddings"][0], json({0.43, 0.15, 0.89}));
  EXPECT_TRUE(data["texts"]["zh"].contains("web.kept"));
  EXPECT_TRUE(data["input"].is_null());
}

TEST(WebData, ACliPageKeepsItsSettingsAndInput) {
  Options o = parse_walk_options({"--stage", "causal", "--seed", "7", "--d-out", "3", "--qkv-bias", "--lang", "zh"});
  EXPECT_TRUE(o.walk.seed_given);
  RenderOptions ro;
  auto walks = html_walks(o, &ro);
  walks[0].config.input_name = "t.json";
  const json data = json::parse(page_data_json(walks, ro, false));
  EXPECT_EQ(data["state"], json({{"stage", "causal"}, {"seed", "7"}, {"d-out", "3"}, {"qkv-bias", "1"}, {"lang", "zh"}}));
  EXPECT_EQ(data["input"]["embeddings"], json({{0.1, 0.2}, {0.3, 0.4}}));
}

// A bonus stage's page keeps its knobs, and --softmax-dim, so that a change recomputes the
// same configuration.
TEST(WebData, ACliPageKeepsTheBonusKnobsAndTheSoftmaxDim) {
  Options o = parse_walk_options({"--stage", "gqa", "--kv-groups", "1", "--window", "2", "--rope-base", "500",
                                  "--block", "3", "--latent-dim", "2", "--softmax-dim", "1",
                                  "--torch-threads", "3"});
  RenderOptions ro;
  const auto walks = html_walks(o, &ro);
  const json data = json::parse(page_data_json(walks, ro, false));
  // clang-format off
  EXPECT_EQ(data["state"], json({{"stage", "gqa"}, {"kv-groups", "1"}, {"window", "2"}, {"rope-base", "500"},
                                 {"block", "3"}, {"latent-dim", "2"}, {"softmax-dim", "1"},
                                 {"torch-threads", "3"}}));
  // clang-format on
}

// For each option the page's state records, the command line that gives it a value other
// than its default (the value second; a flag alone reads "1"). A new option on the page adds
// its line here.
const std::map<std::string, std::vector<std::string>>& state_samples() {
  static const std::map<std::string, std::vector<std::string>> s = {
      {"stage", {"--stage", "causal"}},
      {"text", {"--text", "Your journey begins"}},
      {"embed-dim", {"--embed-dim", "4", "--text", "Your journey begins"}},
      {"query", {"--query", "1"}},
      {"seed", {"--seed", "7"}},
      {"d-out", {"--d-out", "4"}},
      {"heads", {"--heads", "1"}},
      {"dropout", {"--dropout", "0.25"}},
      {"attn-dropout", {"--attn-dropout", "0.25"}},
      {"batch", {"--batch", "3"}},
      {"qkv-bias", {"--qkv-bias"}},
      {"init", {"--init", "randn"}},
      {"dropout-rng", {"--dropout-rng", "mkl"}},
      {"softmax-dim", {"--softmax-dim", "1"}},
      {"blas-kernel", {"--blas-kernel", "haswell"}},
      {"torch-threads", {"--torch-threads", "3"}},
      {"kv-groups", {"--kv-groups", "1"}},
      {"window", {"--window", "2"}},
      {"rope-base", {"--rope-base", "500"}},
      {"block", {"--block", "3"}},
      {"latent-dim", {"--latent-dim", "2"}},
      {"steps", {"--steps", "3"}},
      {"lr", {"--lr", "0.01"}},
      {"weight-decay", {"--weight-decay", "0.5"}},
      {"optimizer", {"--optimizer", "sgd"}},
      {"grad-step", {"--grad-step", "2"}},
      {"lang", {"--lang", "zh"}},
      {"heatmap-scale", {"--heatmap-scale", "matrix"}},
      {"layer", {"--layer", "1", "--stage", "gpt", "--weights", gpt_model(), "--heads", "2"}},
      {"head", {"--head", "1", "--layer", "0", "--stage", "gpt", "--weights", gpt_model(), "--heads", "2"}},
      {"max-new-tokens", {"--max-new-tokens", "2", "--stage", "gpt", "--weights", gpt_model(), "--heads", "2"}},
  };
  return s;
}

// Every option on the page that a CLI page was made with is in its state, read back by the
// option's row of the table, so that the page's controls start from it and a change
// recomputes the same walk. Only the rows marked not_in_state() (where to read the input
// from, how large it may be: the state holds the input itself) are left out.
TEST(WebData, EveryOptionOnThePageIsInACliPagesState) {
  for (const OptionRow& row : option_table()) {
    if (!row.on_page || !row.in_state) continue;
    const std::string name = row.long_name();
    const auto sample = state_samples().find(name);
    ASSERT_NE(sample, state_samples().end()) << "--" << name << ": add a sample";
    RenderOptions ro;
    const auto walks = html_walks(parse_walk_options(sample->second), &ro);
    const json state = json::parse(page_data_json(walks, ro, false))["state"];
    const std::string value = sample->second.size() > 1 ? sample->second[1] : "1";
    EXPECT_EQ(state.value(name, std::string("(not in the state)")), value) << "--" << name;
  }
}

// Several walks are "all" (the chapter) or "bonus", as --stage chose them.
TEST(WebData, ACliPageOfSeveralStagesKeepsTheirGroup) {
  for (const char* group : {"all", "bonus"}) {
    RenderOptions ro;
    const auto walks = html_walks(parse_walk_options({"--stage", group}), &ro);
    ASSERT_GT(walks.size(), 1u);
    EXPECT_EQ(json::parse(page_data_json(walks, ro, false))["state"]["stage"], group);
  }
}

// A text is kept as the text (the page tokenizes it again), not as the embeddings it made.
TEST(WebData, ACliPageOfATextKeepsTheText) {
  RenderOptions ro;
  const auto walks = html_walks(parse_walk_options({"--stage", "tokens", "--text", "Hello there"}), &ro);
  const json data = json::parse(page_data_json(walks, ro, false));
  EXPECT_EQ(data["state"], json({{"stage", "tokens"}, {"text", "Hello there"}}));
  EXPECT_TRUE(data["input"].is_null());
}

TEST(WebData, OptionErrorsAreTheClis) {
  EXPECT_THROW(parse_walk_options({"--d-out", "0"}), UsageError);
  EXPECT_THROW(parse_walk_options({"--stage", "nope"}), UsageError);
  EXPECT_THROW(parse_walk_options({"--bogus"}), UsageError);
}

TEST(WebData, ScriptDataCannotCloseItsElement) {
  EXPECT_EQ(script_safe(R"({"t": "</script><!--"})"), R"({"t": "\u003c/script>\u003c!--"})");
}

// The page carries the engine's compressed wasm as base64: RFC 4648's test vectors, and every
// byte value (the page decodes it with atob, so it must be the standard alphabet).
TEST(WebData, Base64IsRfc4648) {
  EXPECT_EQ(base64(""), "");
  EXPECT_EQ(base64("f"), "Zg==");
  EXPECT_EQ(base64("fo"), "Zm8=");
  EXPECT_EQ(base64("foo"), "Zm9v");
  EXPECT_EQ(base64("foob"), "Zm9vYg==");
  EXPECT_EQ(base64("fooba"), "Zm9vYmE=");
  EXPECT_EQ(base64("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64(std::string("\xfb\xff\x00", 3)), "+/8A");
}

}  // namespace
}  // namespace attn
