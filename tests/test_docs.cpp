// The docs say what the code does: docs/stages.md lists every step of every stage in order,
// the README and man page name every stage, and their option lists and the completions are
// what `make docs` writes from the options' declarations.
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <regex>
#include <set>

#include "check/diagnoses.h"
#include "cli/docs.h"
#include "render/json_config.h"
#include "request/option_table.h"
#include "render/render.h"
#include "input/embeddings.h"
#include "request/option_table.h"
#include "stages/stages.h"
#include "test_util.h"

namespace attn {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const std::string kRoot = std::string(ATTN_WALK_TESTS_DIR) + "/..";

TEST(Docs, StagesMdListsEveryStepInOrder) {
  const std::string doc = read_text(kRoot + "/docs/stages.md");
  ASSERT_FALSE(doc.empty());
  const Config cfg = test::book_config();
  for (const auto& s : all_stages()) {
    const size_t section = doc.find(std::string("## `") + s.name + "`");
    ASSERT_NE(section, std::string::npos) << s.name;
    const Walk walk = s.run(cfg);
    size_t pos = section;
    for (size_t i = 0; i < walk.steps.size(); ++i) {
      const std::string row = "| " + std::to_string(i + 1) + " | `" + walk.steps[i].name + "` |";
      const size_t found = doc.find(row, pos);
      EXPECT_NE(found, std::string::npos) << s.name << ": " << row;
      if (found != std::string::npos) pos = found;
    }
  }
}

TEST(Docs, ReadmeAndManPageNameEveryStage) {
  const std::string readme = read_text(kRoot + "/README.md");
  const std::string man = read_text(kRoot + "/docs/attn-walk.1");
  for (const auto& s : all_stages()) {
    EXPECT_NE(readme.find(std::string("`") + s.name + "`"), std::string::npos) << s.name;
    EXPECT_NE(man.find(std::string(".B ") + s.name), std::string::npos) << s.name;
  }
}

// Each generated part of a committed file is what the options generate now: an option added,
// renamed or removed without `make docs` fails here, naming the file and the part.
TEST(Docs, GeneratedPartsAreWhatTheOptionsGenerate) {
  for (const auto& doc : generated_docs()) {
    const std::string committed = read_text(kRoot + "/" + doc.file);
    ASSERT_FALSE(committed.empty()) << doc.file;
    std::string regenerated;
    ASSERT_NO_THROW(regenerated = with_generated(committed, doc)) << doc.file;
    if (committed == regenerated) continue;
    // The part alone, so that the failure shows the lines that differ rather than the file.
    std::string part = committed;
    if (!doc.region.empty()) {
      const size_t from = committed.find('\n', committed.find("BEGIN GENERATED " + doc.region)) + 1;
      part = committed.substr(from, committed.rfind('\n', committed.find("END GENERATED " + doc.region)) + 1 - from);
    }
    EXPECT_EQ(part, doc.text) << doc.file << (doc.region.empty() ? "" : ": " + doc.region)
                              << " differs from what the options generate: run make docs";
  }
}

// The generated parts name every option of the table, in each file's spelling, and carry
// none that is gone: a planted option shows up, a dropped one would be missed.
TEST(Docs, GeneratedPartsNameEveryOptionOfTheTable) {
  std::map<std::string, std::string> text;  // the file's generated text
  for (const auto& doc : generated_docs()) text[doc.file] += doc.text;
  for (const auto& row : option_table()) {
    const std::string name = "--" + row.long_name();
    std::string man_name;
    for (char c : name) man_name += c == '-' ? std::string("\\-") : std::string(1, c);
    EXPECT_NE(text["docs/attn-walk.1"].find("\\fB" + man_name + "\\fR"), std::string::npos) << name;
    EXPECT_NE(text["README.md"].find("`" + name), std::string::npos) << name;
    const std::string& bash = text["completions/attn-walk.bash"];
    EXPECT_TRUE(bash.find(" " + name + " ") != std::string::npos || bash.find(" " + name + "\"") != std::string::npos)
        << name;
    EXPECT_NE(text["completions/attn-walk.fish"].find(" -l " + row.long_name() + " "), std::string::npos) << name;
    const std::string& zsh = text["completions/attn-walk.zsh"];
    EXPECT_TRUE(zsh.find("'" + name + "[") != std::string::npos || zsh.find("," + name + "}'[") != std::string::npos)
        << name;
  }
  // Nothing else in the README's table: each row's option is one of the table's.
  const std::string& readme = text["README.md"];
  for (size_t at = readme.find("\n| `--"); at != std::string::npos; at = readme.find("\n| `--", at + 1)) {
    const size_t from = at + 6, to = readme.find_first_of(" `", from);
    const std::string name = readme.substr(from, to - from);
    EXPECT_TRUE(find_option(name) || name == "help") << "the README's table names --" << name;
  }
}

// Each completion in completions/ is written by `make docs` and installed (CMakeLists.txt), for
// bash, fish and zsh.
TEST(Docs, EveryCompletionIsGeneratedAndInstalled) {
  std::set<std::string> generated, shells;
  for (const auto& doc : generated_docs()) generated.insert(doc.file);
  const std::string cmake = read_text(kRoot + "/CMakeLists.txt");
  for (const auto& e : std::filesystem::directory_iterator(kRoot + "/completions")) {
    const std::string file = "completions/" + e.path().filename().string();
    EXPECT_TRUE(generated.count(file)) << file << " is not written by make docs";
    EXPECT_NE(cmake.find("install(FILES " + file + " "), std::string::npos) << file << " is not installed";
    shells.insert(e.path().extension().string());
  }
  EXPECT_EQ(shells, (std::set<std::string>{".bash", ".fish", ".zsh"}));
}

// A missing marker is an error naming the file, not a silent skip.
TEST(Docs, AMissingMarkerIsNamed) {
  const GeneratedDoc doc{"docs/x.1", "options", "new\n"};
  EXPECT_THROW(with_generated("no markers here\n", doc), std::runtime_error);
  EXPECT_EQ(with_generated("a\n.\\\" BEGIN GENERATED options\nold\n.\\\" END GENERATED options\nb\n", doc),
            "a\n.\\\" BEGIN GENERATED options\nnew\n.\\\" END GENERATED options\nb\n");
}

// ---- Counts and lists the docs state, against what they count --------------------------------

// The number written before `after` in `text` ("39 of them" -> 39), or -1.
long number_before(const std::string& text, const std::string& after) {
  std::smatch m;
  if (!std::regex_search(text, m, std::regex("(\\d+) " + after))) return -1;
  return std::stol(m[1]);
}

TEST(Docs, ReadmeCountsAreTheRegistrysAndTheTrees) {
  const std::string readme = read_text(kRoot + "/README.md");
  // check's known mistakes, counted by the registry itself.
  EXPECT_EQ(number_before(readme, "of them: `W_query`"), static_cast<long>(known_mistakes().size()));
  // The walk goldens: one file per configuration.
  long walks = 0;
  for (const auto& e : std::filesystem::directory_iterator(kRoot + "/tests/golden/walks"))
    walks += e.path().extension() == ".json";
  EXPECT_EQ(number_before(readme, "configurations \\(seeds"), walks);
  // The printer's goldens.
  const auto prints = nlohmann::json::parse(read_text(kRoot + "/tests/golden/print_cases.json"));
  EXPECT_EQ(number_before(readme, "tensors printed by PyTorch"), static_cast<long>(prints.size()));
}

// "one file per stage (or part) and language": every English text file has its Chinese twin.
TEST(Docs, EveryTextFileHasATwinInEachLanguage) {
  const std::string readme = read_text(kRoot + "/README.md");
  ASSERT_NE(readme.find("src/lang/*.cpp           every text a learner reads, one file per stage (or part) "
                        "and language"),
            std::string::npos);
  std::set<std::string> en, zh;
  for (const auto& e : std::filesystem::directory_iterator(kRoot + "/src/lang")) {
    const std::string name = e.path().filename().string();
    if (name.size() > 7 && name.compare(name.size() - 7, 7, "_en.cpp") == 0) en.insert(name.substr(0, name.size() - 7));
    if (name.size() > 7 && name.compare(name.size() - 7, 7, "_zh.cpp") == 0) zh.insert(name.substr(0, name.size() - 7));
  }
  EXPECT_FALSE(en.empty());
  EXPECT_EQ(en, zh);
}

// The README's line for src/kernels/ names every instruction set the folder has kernels for.
TEST(Docs, TheKernelsLineNamesEveryInstructionSet) {
  const std::string readme = read_text(kRoot + "/README.md");
  const size_t at = readme.find("\nsrc/kernels/ ");
  ASSERT_NE(at, std::string::npos);
  const std::string line = readme.substr(at + 1, readme.find('\n', at + 1) - at - 1);
  const std::map<std::string, std::string> names = {{"avx2", "AVX2"}, {"avx512", "AVX-512"}, {"simd128", "SIMD128"}};
  for (const auto& e : std::filesystem::directory_iterator(kRoot + "/src/kernels")) {
    const std::string stem = e.path().stem().string();
    const std::string isa = stem.substr(stem.rfind('_') + 1);
    if (names.count(isa)) EXPECT_NE(line.find(names.at(isa)), std::string::npos) << e.path() << ": " << line;
  }
}

// Every file of the repository the docs name by its path exists (a moved file is renamed there).
TEST(Docs, EveryPathTheDocsNameExists) {
  std::vector<std::string> docs = {"README.md"};
  for (const auto& e : std::filesystem::directory_iterator(kRoot + "/docs"))
    if (e.path().extension() == ".md") docs.push_back("docs/" + e.path().filename().string());
  const std::regex path(R"(\b(?:src|tests|tools|docs|cmake|fuzz|data)/[A-Za-z0-9_./-]+)"
                        R"(\.(?:cpp|h|py|md|sh|js|json|cjs)\b)");
  for (const auto& doc : docs) {
    const std::string text = read_text(kRoot + "/" + doc);
    for (std::sregex_iterator m(text.begin(), text.end(), path), end; m != end; ++m)
      EXPECT_TRUE(std::filesystem::exists(kRoot + "/" + m->str())) << doc << " names " << m->str();
  }
}

// docs/json-schema.md names every field of the JSON output: each key of "config" (nested ones
// under their object) and each key a step of any stage carries.
TEST(Docs, JsonSchemaNamesEveryField) {
  const std::string schema = read_text(kRoot + "/docs/json-schema.md");
  const Config cfg = test::book_config();
  const nlohmann::json config = config_json(config_record(cfg));
  for (const auto& [key, value] : config.items()) {
    EXPECT_NE(schema.find("\"" + key + "\""), std::string::npos) << "config." << key;
    if (value.is_object())
      for (const auto& [inner, unused] : value.items())
        EXPECT_NE(schema.find("`" + inner + "`"), std::string::npos) << "config." << key << "." << inner;
  }
  std::set<std::string> step_keys;
  std::vector<Walk> walks;
  for (const auto& s : all_stages()) walks.push_back(s.run(cfg));
  for (auto& w : walks)
    for (auto& step : w.steps) step.explanation = "x";  // as with --explain
  const auto doc = nlohmann::json::parse(render_json(walks));
  std::set<std::string> roles;
  for (const auto& step : doc.at("steps")) {
    for (const auto& [key, unused] : step.items()) step_keys.insert(key);
    if (step.contains("role")) roles.insert(step.at("role").get<std::string>());
  }
  EXPECT_TRUE(step_keys.count("series"));  // the backward stage's losses
  // Each role the stages record is described by its JSON name: "scores", "mask_kept", ...
  EXPECT_GE(roles.size(), 7u);
  for (const auto& role : roles) EXPECT_NE(schema.find("`\"" + role + "\"`"), std::string::npos) << "role " << role;
  for (const auto& key : step_keys)
    EXPECT_NE(schema.find("`steps[]." + key + "`"), std::string::npos) << "steps[]." << key;
}

}  // namespace
}  // namespace attn
