// The docs say what the code does: docs/stages.md lists every step of every stage in order,
// and the README and man page name every stage and option.
#include <gtest/gtest.h>

#include "input/embeddings.h"
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

TEST(Docs, ReadmeAndManPageNameEveryStageAndOption) {
  const std::string readme = read_text(kRoot + "/README.md");
  const std::string man = read_text(kRoot + "/docs/attn-walk.1");
  for (const auto& s : all_stages()) {
    EXPECT_NE(readme.find(std::string("`") + s.name + "`"), std::string::npos) << s.name;
    EXPECT_NE(man.find(std::string(".B ") + s.name), std::string::npos) << s.name;
  }
  for (const char* opt : {"stage", "input", "random-input", "query", "seed", "d-out", "heads", "dropout",
                          "attn-dropout", "batch", "qkv-bias", "init", "dropout-rng", "blas-kernel", "format", "output",
                          "only", "list-stages", "list-steps", "explain", "lang", "heatmap", "color",
                          "step", "stats", "version", "kv-groups", "window", "rope-base", "block", "steps", "lr",
                          "weight-decay", "optimizer",
                          "text", "text-file", "embed-dim", "max-tokens", "max-input-mb", "latent-dim"}) {
    EXPECT_NE(readme.find(std::string("--") + opt), std::string::npos) << "README lacks --" << opt;
    std::string man_opt;
    for (const char* c = opt; *c; ++c) man_opt += (*c == '-') ? std::string("\\-") : std::string(1, *c);
    EXPECT_NE(man.find("\\-\\-" + man_opt), std::string::npos) << "man page lacks --" << opt;
  }
}

}  // namespace
}  // namespace attn
