// The request layer (src/request/): the option table is the one source of the binding, the
// Config and the page's state, each row's "stages" says truly which stages it changes, and a
// stage's misuse rule is applied wherever a walk is made.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "render/json_config.h"
#include "request/option_table.h"
#include "request/request.h"
#include "stages/stages.h"

namespace attn {
namespace {

// What a walk computed: every step's name, shape and values (not the config it prints, which
// every knob changes, nor the words).
std::string computed(const std::vector<Walk>& walks) {
  std::ostringstream out;
  for (const auto& w : walks)
    for (const auto& s : w.steps) {
      out << s.name << ':';
      for (int64_t d : s.value.shape) out << d << ',';
      for (float v : s.value.data) {
        uint32_t bits;
        std::memcpy(&bits, &v, 4);
        out << bits << ' ';
      }
      out << '\n';
    }
  return out.str();
}

// A stage that refuses the options (its misuse rule) computes nothing: the same for any value.
std::string walk(std::vector<std::string> args) {
  WalkRequest r = parse_walk_options(args).walk;
  r.keep_all_values = true;
  RenderOptions ro;
  try {
    return computed(make_walks(r, &ro));
  } catch (const UsageError& e) {
    return std::string("refused: ") + e.what();
  }
}

bool listed(const OptionRow& row, const std::string& stage) {
  if (row.stages == "*") return true;
  std::istringstream names(row.stages);
  for (std::string n; names >> n;)
    if (n == stage) return true;
  return false;
}

// A value for each knob that differs from its default, and the options it needs beside it to
// show (torch-threads matters only with --softmax-dim 1 and more columns than one thread's
// share). A new knob adds its line here.
struct Sample {
  std::vector<std::string> with;  // the option and its value ("--qkv-bias" alone for a flag)
  std::vector<std::string> base;  // given to both walks
};
std::string gpt_model() { return std::string(ATTN_WALK_TESTS_DIR) + "/data/gpt/book.safetensors"; }
const std::map<std::string, Sample>& samples() {
  static const std::map<std::string, Sample> s = {
      {"query", {{"--query", "3"}, {}}},
      {"seed", {{"--seed", "7"}, {}}},
      {"d-out", {{"--d-out", "16"}, {}}},
      {"heads", {{"--heads", "1"}, {"--d-out", "8", "--kv-groups", "1", "--weights", gpt_model()}}},
      {"dropout", {{"--dropout", "0.25"}, {}}},
      {"attn-dropout", {{"--attn-dropout", "0.25"}, {}}},
      {"batch", {{"--batch", "3"}, {}}},
      {"qkv-bias", {{"--qkv-bias"}, {}}},
      {"init", {{"--init", "randn"}, {}}},
      {"dropout-rng", {{"--dropout-rng", "mkl"}, {"--attn-dropout", "0.5"}}},
      {"blas-kernel", {{"--blas-kernel", "haswell"}, {"--random-input", "24x64"}}},  // K >= 8: Haswell's two chains
      {"softmax-dim", {{"--softmax-dim", "1"}, {}}},
      {"torch-threads", {{"--torch-threads", "3"}, {"--softmax-dim", "1", "--random-input", "200x3", "--block", "4"}}},
      {"kv-groups", {{"--kv-groups", "1"}, {}}},
      {"window", {{"--window", "2"}, {}}},
      {"rope-base", {{"--rope-base", "500"}, {"--d-out", "16", "--heads", "2"}}},  // head_dim 8: four frequencies
      {"block", {{"--block", "3"}, {}}},
      {"latent-dim", {{"--latent-dim", "2"}, {}}},
      {"steps", {{"--steps", "3"}, {}}},
      {"lr", {{"--lr", "0.01"}, {}}},
      {"weight-decay", {{"--weight-decay", "0.5"}, {}}},
      {"optimizer", {{"--optimizer", "sgd"}, {}}},
      {"grad-step", {{"--grad-step", "2"}, {"--steps", "3"}}},
      {"random-input", {{"--random-input", "6x3"}, {}}},
      {"text", {{"--text", "Your journey begins with one step"}, {"--weights", gpt_model(), "--heads", "2"}}},
      {"embed-dim", {{"--embed-dim", "4"}, {"--text", "Your journey starts with one step"}}},
      // --stage gpt: the book's test model (2 heads, which its file cannot tell)
      {"weights", {{"--weights", gpt_model()}, {"--heads", "2"}}},
      {"layer", {{"--layer", "1"}, {"--weights", gpt_model(), "--heads", "2"}}},
      {"head", {{"--head", "1"}, {"--weights", gpt_model(), "--heads", "2", "--layer", "0"}}},
      {"max-new-tokens", {{"--max-new-tokens", "2"}, {"--weights", gpt_model(), "--heads", "2"}}},
  };
  return s;
}

TEST(OptionTable, EachKnobHasASample) {
  for (const auto& row : option_table())
    if (row.in_config()) EXPECT_TRUE(samples().count(row.long_name())) << row.long_name() << ": add a sample";
}

// The keys of a JSON object, nested ones joined by dots ("bonus.latent_dim").
void flat_keys(const nlohmann::json& object, const std::string& prefix, std::set<std::string>* keys) {
  for (const auto& [key, value] : object.items()) {
    if (value.is_object()) {
      flat_keys(value, prefix + key + ".", keys);
    } else {
      keys->insert(prefix + key);
    }
  }
}

// The JSON output's "config" is generated from the table: it holds exactly the keys the rows
// record (each row of a Config field names its keys) and the input's own, each once, and the
// walks that make_walks hands to the renderers carry it.
TEST(OptionTable, TheJsonConfigHoldsTheKeysTheRowsRecord) {
  std::set<std::string> expected;
  for (const auto& k : input_config_keys()) expected.insert(k.key);
  EXPECT_EQ(expected, (std::set<std::string>{"input", "num_tokens", "d_in", "blas_threads"}));
  for (const auto& key : recorded_config_keys()) EXPECT_TRUE(expected.insert(key).second) << key << " recorded twice";
  std::set<std::string> written;
  const WalkRequest r = parse_walk_options({}).walk;
  const Config c = make_config(r, load_input(r));
  flat_keys(config_json(config_record(c)), "", &written);
  EXPECT_EQ(written, expected);
  RenderOptions ro;
  const auto walks = make_walks(r, &ro);
  ASSERT_FALSE(walks.empty());
  EXPECT_EQ(config_json(walks.front().config_record), config_json(config_record(walks.front().config)));
  EXPECT_EQ(nlohmann::json::parse(render_json(walks)).at("config"), config_json(config_record(c)));
  // Every row that fills a Config field records it.
  for (const auto& row : option_table())
    if (row.in_config())
      EXPECT_FALSE(row.recorded_as.empty()) << "--" << row.long_name() << " sets the Config but records no key";
}

// A row that records a key adds it to the JSON's "config" with no other edit: a bare key
// records the row's field (an enum by its name; null while an option without a default is not
// given), RECORD-style readers another field.
TEST(OptionTable, ARowThatRecordsAKeyAddsItToTheJsonConfig) {
  std::vector<OptionRow> rows = option_table();
  OptionRow lr;
  lr.names = "--test-lr";
  lr.field = [](Options& o) -> double& { return o.walk.train.lr; };
  lr.records({"train.test_lr", {"test.steps_twice", [](const Config& c) -> RecordValue { return 2 * c.train.steps; }}},
             nullptr);
  OptionRow init;
  init.names = "--test-init";
  init.field = [](Options& o) -> InitKind& { return o.walk.init; };
  init.records({"test.init"}, nullptr);
  OptionRow layer;
  layer.names = "--test-layer";
  layer.field = [](Options& o) -> int64_t& { return o.walk.gpt.layer; };
  layer.no_default().records({"test.layer"}, nullptr);
  rows.insert(rows.end(), {lr, init, layer});

  Config c;
  c.inputs = Tensor::zeros({2, 3});
  c.train.lr = 0.25;
  c.train.steps = 7;
  c.init = InitKind::Randn;
  const nlohmann::json with = config_json(config_record(c, rows));
  EXPECT_EQ(with.at("train").at("test_lr"), 0.25);
  EXPECT_EQ(with.at("test").at("steps_twice"), 14);
  EXPECT_EQ(with.at("test").at("init"), "randn");
  EXPECT_TRUE(with.at("test").at("layer").is_null());  // not given
  c.gpt.layer = 3;
  EXPECT_EQ(config_json(config_record(c, rows)).at("test").at("layer"), 3);
  // Everything else is the table's own record.
  nlohmann::json without = with;
  without["train"].erase("test_lr");
  without.erase("test");
  c.gpt.layer = -1;
  EXPECT_EQ(without, config_json(config_record(c)));
}

// A bare key reads its row's field from a request holding the Config: the field must be one of
// the Config's (a field of the request alone would always record its default).
TEST(OptionTable, BareKeysRecordFieldsOfTheConfig) {
  Options o;
  const char* begin = reinterpret_cast<const char*>(static_cast<Config*>(&o.walk));
  for (const auto& row : option_table())
    for (const auto& k : row.recorded_as)
      if (!k.value) {
        const char* at = std::visit([&o](auto field) { return reinterpret_cast<const char*>(&field(o)); }, row.field);
        EXPECT_TRUE(at >= begin && at < begin + sizeof(Config)) << "--" << row.long_name() << " records " << k.key;
      }
}

// --stage's names are the stages' own (core/stage_place.h), in their order, then the groups.
TEST(OptionTable, StageChoicesAreTheStagesThenTheGroups) {
  std::vector<std::string> expected;
  for (const auto& p : stage_places()) expected.push_back(p.name);
  expected.insert(expected.end(), {"all", "bonus"});
  EXPECT_EQ(enum_choices<StageChoice>(), expected);
  StageChoice c = StageChoice::Tokens;
  EXPECT_TRUE(parse_stage_choice("kv-cache", &c));
  EXPECT_EQ(c, StageChoice::KvCache);
  EXPECT_FALSE(parse_stage_choice("kv_cache", &c));
  EXPECT_EQ(parse_walk_options({"--stage", "gpt"}).walk.stage, StageChoice::Gpt);
  EXPECT_EQ(parse_walk_options({"--blas-kernel", "skylakex"}).walk.blas_kernel, BlasKernelChoice::SkylakeX);
  EXPECT_EQ(parse_walk_options({}).walk.blas_kernel, BlasKernelChoice::Machine);
  EXPECT_THROW(parse_walk_options({"--stage", "Causal"}), UsageError);
  EXPECT_THROW(parse_walk_options({"--blas-kernel", "zen"}), UsageError);
}

// The JSON output's "config" records every knob: each row's sample changes it.
TEST(OptionTable, TheJsonConfigRecordsEveryKnob) {
  const auto config_of = [](const std::vector<std::string>& args) {
    const WalkRequest r = parse_walk_options(args).walk;
    return config_json(config_record(make_config(r, load_input(r)))).dump();
  };
  for (const auto& [name, sample] : samples()) {
    std::vector<std::string> with = sample.base;
    with.insert(with.end(), sample.with.begin(), sample.with.end());
    EXPECT_NE(config_of(sample.base), config_of(with)) << "--" << name << " is not in the JSON's config";
  }
}

// Each row's "stages" is exactly the stages whose computed tensors its sample changes.
TEST(OptionTable, StagesNamedAreTheStagesChanged) {
  for (const auto& [name, sample] : samples()) {
    const OptionRow* row = find_option(name);
    ASSERT_NE(row, nullptr) << name;
    std::string changed, named;  // in all_stages()' order
    for (const auto& stage : all_stages()) {
      std::vector<std::string> base = sample.base;
      // A stage that does not take --weights refuses it (make_walks): the sample's --weights,
      // there for the stages that do, is left out of its walks.
      if (!listed(*find_option("weights"), stage.name))
        for (auto at = base.begin(); at != base.end(); ++at)
          if (*at == "--weights" && at + 1 != base.end()) {
            base.erase(at, at + 2);
            break;
          }
      base.insert(base.end(), {"--stage", stage.name});
      std::vector<std::string> with = base;
      with.insert(with.end(), sample.with.begin(), sample.with.end());
      // A stage that refuses the sample (its misuse rule) is not one the option changes.
      const std::string with_walk = walk(with);
      if (with_walk.rfind("refused: ", 0) != 0 && walk(base) != with_walk)
        changed += std::string(changed.empty() ? "" : " ") + stage.name;
      if (listed(*row, stage.name)) named += std::string(named.empty() ? "" : " ") + stage.name;
    }
    EXPECT_EQ(named, changed) << "--" << name << ": the row says \"" << row->stages << "\"";
  }
}

// The Config is built from the rows: each knob's value reaches its field, and the page's
// state (from_config) reads it back.
TEST(OptionTable, EveryKnobReachesTheConfigAndReadsBack) {
  const Config defaults;
  for (const auto& [name, sample] : samples()) {
    if (name == "random-input" || name == "text" || name == "embed-dim") continue;  // the input, not a knob
    const OptionRow* row = find_option(name);
    ASSERT_NE(row, nullptr) << name;
    if (!row->from_config) continue;
    std::vector<std::string> args = sample.base;
    args.insert(args.end(), sample.with.begin(), sample.with.end());
    const WalkRequest r = parse_walk_options(args).walk;
    Config c;
    c.inputs = Tensor::zeros({6, 3});
    set_knobs(r, c);
    const std::string value = sample.with.size() > 1 ? sample.with[1] : "1";
    EXPECT_EQ(row->from_config(c), value) << name;
    EXPECT_NE(row->from_config(defaults), value) << name;
  }
}

TEST(OptionTable, NamesAreUniqueAndEveryRowIsBound) {
  std::set<std::string> names;
  for (const auto& row : option_table()) EXPECT_TRUE(names.insert(row.long_name()).second) << row.long_name();
  CLI::App app;
  Options o;
  bind_options(app, o, OptionScope::Walk);
  for (const auto& name : names) EXPECT_NE(app.get_option_no_throw("--" + name), nullptr) << name;
  CLI::App check;
  bind_options(check, o, OptionScope::Check);
  EXPECT_NE(check.get_option_no_throw("--seed"), nullptr);
  EXPECT_EQ(check.get_option_no_throw("--kv-groups"), nullptr);  // check grades the chapter's stages
}

TEST(OptionTable, GivenOptionsAreMarked) {
  const Options o = parse_walk_options({"--seed", "5", "--text", "hi"});
  EXPECT_TRUE(o.walk.seed_given);
  EXPECT_TRUE(o.walk.text.given);
  EXPECT_FALSE(o.walk.d_out_given);
  EXPECT_FALSE(o.walk.query_given);
}

// The format of the command line decides what the walk keeps only through set_document.
TEST(Request, TheDocumentSetsWhatTheWalkKeeps) {
  Options o;
  set_document(o);
  EXPECT_FALSE(o.walk.keep_all_values);
  EXPECT_FALSE(o.walk.explain);
  o.format = Format::Html;
  set_document(o);
  EXPECT_TRUE(o.walk.keep_all_values);
  EXPECT_TRUE(o.walk.explain);
  Options heat;
  heat.walk.heatmap = true;
  set_document(heat);
  EXPECT_TRUE(heat.walk.keep_all_values);
}

TEST(Request, TheConfigIsWholeForText) {
  WalkRequest r = parse_walk_options({"--text", "Hi", "--stage", "causal"}).walk;
  const Config c = make_config(r, load_input(r));
  EXPECT_EQ(c.input_name, "--text");
  EXPECT_EQ(c.text, "Hi");
  EXPECT_EQ(c.token_ids, std::vector<int64_t>{17250});
  EXPECT_EQ(c.query, 1);  // one token: x(1) is the query
  EXPECT_TRUE(c.summaries_only);
}

// A caller told of a walk's progress (the page's engine) hears of every step as it is recorded,
// in order, and of the wrapper's heads one by one while its step is computed, before the step.
TEST(Request, ProgressIsEveryStepAndTheWrappersHeads) {
  WalkRequest r = parse_walk_options({"--stage", "multi-head", "--d-out", "6", "--heads", "3"}).walk;
  std::vector<std::string> heard;
  r.on_step = [&](const std::string& stage, const std::string& step) { heard.push_back(stage + " " + step); };
  r.on_part = [&](const std::string& stage, const std::string& step, int64_t part, int64_t parts) {
    heard.push_back(stage + " " + step + " " + std::to_string(part) + "/" + std::to_string(parts));
  };
  RenderOptions ro;
  const std::vector<Walk> walks = make_walks(r, &ro);
  std::vector<std::string> steps;
  for (const auto& w : walks)
    for (const auto& s : w.steps) steps.push_back(w.stage + " " + s.name);
  std::vector<std::string> heard_steps;
  for (const auto& h : heard)
    if (h.find('/') == std::string::npos) heard_steps.push_back(h);
  EXPECT_EQ(heard_steps, steps);
  const auto at = [&](const std::string& h) { return std::find(heard.begin(), heard.end(), h) - heard.begin(); };
  const auto wrapper_step = at("multi-head wrapper_context_vecs");
  ASSERT_LT(wrapper_step, static_cast<std::ptrdiff_t>(heard.size()));
  for (int h = 1; h <= 3; ++h)
    EXPECT_EQ(heard[static_cast<size_t>(wrapper_step - 4 + h)], "multi-head wrapper_context_vecs " + std::to_string(h) + "/3")
        << h;
  EXPECT_EQ(std::count_if(heard.begin(), heard.end(), [](const std::string& h) { return h.find('/') != std::string::npos; }), 3);
}

// The chapter's multi-head rule is the stage's own, as the bonus stages' are.
TEST(Request, MultiHeadMisuseIsTheStagesRule) {
  const StageInfo* mh = find_stage("multi-head");
  ASSERT_NE(mh, nullptr);
  ASSERT_NE(mh->misuse, nullptr);
  Config c;
  c.d_out = 3;
  c.heads = 2;
  EXPECT_NE(mh->misuse(c).find("--heads"), std::string::npos);
  c.d_out = 4;
  EXPECT_EQ(mh->misuse(c), "");
  WalkRequest r = parse_walk_options({"--stage", "all", "--d-out", "5", "--heads", "2"}).walk;
  EXPECT_THROW(make_config(r, load_input(r)), UsageError);
  r.stage = StageChoice::Causal;
  EXPECT_NO_THROW(make_config(r, load_input(r)));
}

}  // namespace
}  // namespace attn
