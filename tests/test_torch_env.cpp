// Every PyTorch-driven script chooses OpenBLAS's kernel before PyTorch loads it (issue 12,
// point 6): a script under tests/ that imports torch imports torch_env first, in its own
// process and in any child it starts with `python -c`; golden generators refuse to run on a
// CPU that cannot run the reference kernel. No PyTorch is needed to check this.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

#include "test_util.h"

namespace attn {
namespace {

TEST(TorchEnv, EveryPyTorchScriptImportsTorchEnvBeforeTorch) {
  namespace fs = std::filesystem;
  const std::regex import_torch(R"((^|\n)[ \t]*import torch\b)");
  size_t scripts = 0;
  for (const auto& e : fs::recursive_directory_iterator(test::tests_dir())) {
    if (e.path().extension() != ".py" || e.path().filename() == "torch_env.py") continue;
    const std::string text = test::read_all(e.path().string());
    // Each block of Python that imports torch (the file, or a child's source in a string)
    // has torch_env before its first `import torch`.
    std::smatch m;
    std::string rest = text;
    size_t offset = 0;
    while (std::regex_search(rest, m, import_torch)) {
      const size_t at = offset + static_cast<size_t>(m.position(0));
      const size_t env = text.rfind("import torch_env", at);
      // The nearest preceding torch_env import must not be before an earlier block's end:
      // a child source (r"""...""") starts after the last triple quote before `at`.
      const size_t block = text.rfind("\"\"\"", at);
      const bool in_child = block != std::string::npos && text.compare(block - 1, 4, "r\"\"\"") == 0;
      EXPECT_NE(env, std::string::npos) << e.path() << ": import torch without torch_env";
      if (env != std::string::npos && in_child) EXPECT_GT(env, block) << e.path() << ": a child imports torch first";
      ++scripts;
      offset = at + static_cast<size_t>(m.length(0));
      rest = text.substr(offset);
    }
    // Indirect users (torch_walk, make_goldens) get it through the modules they import.
  }
  EXPECT_GE(scripts, 6u);
  for (const char* generator : {"make_goldens.py", "make_print_goldens.py", "make_rng_goldens.py"}) {
    const std::string text = test::read_all(test::tests_dir() + "/golden/" + generator);
    EXPECT_NE(text.find("torch_env.require_bit_exact("), std::string::npos) << generator;
  }
  const std::string env = test::read_all(test::tests_dir() + "/golden/torch_env.py");
  EXPECT_NE(env.find("os.environ[\"OPENBLAS_CORETYPE\"] = REFERENCE_KERNEL"), std::string::npos);
  EXPECT_NE(env.find("avx512_bf16"), std::string::npos);
}

}  // namespace
}  // namespace attn
