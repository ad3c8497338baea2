// The real attn-walk binary on bad input and bad options: the exit code, a one-line
// "attn-walk: error: ..." on stderr, nothing on stdout, and no output file left behind.
//
// Contract (src/cli/main.cpp): InputError -> "attn-walk: error: " + what() on stderr, exit 1;
// option errors -> "attn-walk: error: ..." naming the option, exit 2.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "input/embeddings.h"
#include "lang/lang.h"
#include "run_process.h"
#include "test_util.h"
#include "web/page_errors.h"

namespace fs = std::filesystem;

namespace {

using attn::test::read_all;
using attn::test::TempDir;

const std::string kTestsDir = ATTN_WALK_TESTS_DIR;
const std::string kDataDir = ATTN_WALK_DATA_DIR;
using attn::test::describe;
using attn::test::expect_input_error;
using attn::test::expect_option_error;
using attn::test::kBinary;
using attn::test::kErrorPrefix;
using attn::test::RunResult;
using attn::test::run_cli;
using attn::test::run_process;
using attn::test::starts_with;

// What the library says about `path`; the CLI must print exactly this.
std::string library_message(const std::string& path) {
  try {
    attn::load_embeddings(path);
  } catch (const attn::InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << path << " loaded without error";
  return "";
}

class CliErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs::exists(kBinary)) << "attn-walk binary not built: " << kBinary;
  }
};

// ---------------------------------------------------------------------------
// Bad input files

TEST_F(CliErrors, EveryBadFixtureExitsOneNamingTheFile) {
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(kTestsDir + "/data/bad"))
    files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 20u);
  for (const auto& path : files) {
    SCOPED_TRACE(path);
    expect_input_error(run_cli({"--input", path}), path, library_message(path));
  }
}

TEST_F(CliErrors, DeepNestingExitsOne) {
  TempDir dir;
  const std::string path = dir.write("deep.json", std::string(100000, '[') + std::string(100000, ']'));
  const RunResult r = run_cli({"--input", path});
  expect_input_error(r, path, library_message(path));
  EXPECT_NE(r.err.find("line 1, column 65"), std::string::npos) << describe(r);
}

TEST_F(CliErrors, MissingFile) {
  const std::string path = kTestsDir + "/data/bad/no-such-file.json";
  expect_input_error(run_cli({"--input", path}), path,
                     path + ": cannot open: No such file or directory");
}

TEST_F(CliErrors, Directory) {
  const std::string path = kTestsDir + "/data/bad";
  const RunResult r = run_cli({"--input", path});
  expect_input_error(r, path, library_message(path));
  EXPECT_NE(r.err.find("Is a directory"), std::string::npos) << describe(r);
}

TEST_F(CliErrors, UnreadableFile) {
  TempDir dir;
  const std::string path = dir.write("secret.json", read_all(kDataDir + "/journey.json"));
  ASSERT_EQ(::chmod(path.c_str(), 0), 0);
  const RunResult r = run_process({"--input", path}, "", /*as_nobody=*/::geteuid() == 0);
  if (r.exit_code == 126 || r.exit_code == 127)
    GTEST_SKIP() << "cannot run attn-walk as an unprivileged user: " << r.err;
  expect_input_error(r, path, path + ": cannot open: Permission denied");
}

// ---------------------------------------------------------------------------
// Standard input

TEST_F(CliErrors, StdinWithDashWorks) {
  const RunResult r = run_cli({"--input", "-"}, read_all(kDataDir + "/journey.json"));
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_FALSE(r.out.empty()) << describe(r);
}

TEST_F(CliErrors, StdinBadInputNamesStdin) {
  const std::string text = "[[0.43, 0.15, 0.89],\n [0.55, 0.87]]\n";
  const RunResult r = run_cli({"--input", "-"}, text);
  expect_input_error(r, "<stdin>", "<stdin>: line 2, column 2: row 2 has 2 numbers, expected 3 "
                                   "like row 1; every row must have the same length (the "
                                   "embedding width)");
}

TEST_F(CliErrors, StdinBinaryAndEmpty) {
  expect_input_error(run_cli({"--input", "-"}, std::string("[[1,\0 2]]", 9)), "<stdin>",
                     "<stdin>: line 1, column 5: contains a NUL byte: this looks like a binary "
                     "file, not JSON text");
  const RunResult empty = run_cli({"--input", "-"}, "");
  expect_input_error(empty, "<stdin>", "");
  EXPECT_NE(empty.err.find("empty input"), std::string::npos) << describe(empty);
}

// ---------------------------------------------------------------------------
// Option misuse

TEST_F(CliErrors, UnknownStage) { expect_option_error(run_cli({"--stage", "nope"}), {"--stage"}); }

TEST_F(CliErrors, QueryZero) { expect_option_error(run_cli({"--query", "0"}), {"--query"}); }

TEST_F(CliErrors, QueryPastLastToken) {
  // The built-in journey has 6 tokens.
  expect_option_error(run_cli({"--query", "7"}), {"--query", "7"});
}

TEST_F(CliErrors, QueryPastLastTokenOfInputFile) {
  // tests/data/good/bare.json has 2 rows.
  expect_option_error(run_cli({"--input", kTestsDir + "/data/good/bare.json", "--query", "3"}),
                      {"--query", "3"});
}

TEST_F(CliErrors, UnknownFormat) { expect_option_error(run_cli({"--format", "xml"}), {"--format"}); }

TEST_F(CliErrors, UnknownOption) { expect_option_error(run_cli({"--bogus"}), {"--bogus"}); }

// ---------------------------------------------------------------------------
// --output

TEST_F(CliErrors, OutputWritesTheFile) {
  TempDir dir;
  const std::string out = dir.file("walk.txt");
  const RunResult r = run_cli({"--output", out});
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  ASSERT_TRUE(fs::exists(out)) << describe(r);
  EXPECT_GT(fs::file_size(out), 0u);
}

TEST_F(CliErrors, OutputInMissingDirectoryFails) {
  TempDir dir;
  const std::string out = dir.file("no-such-dir/walk.txt");
  const RunResult r = run_cli({"--output", out});
  EXPECT_TRUE(r.exit_code == 1 || r.exit_code == 2) << describe(r);
  EXPECT_EQ(r.out, "") << describe(r);
  EXPECT_TRUE(starts_with(r.err, kErrorPrefix)) << describe(r);
  EXPECT_NE(r.err.find("no-such-dir"), std::string::npos) << "should name the path\n"
                                                          << describe(r);
  EXPECT_FALSE(fs::exists(out));
  EXPECT_FALSE(fs::exists(dir.file("no-such-dir")));
  // Nothing else (a temporary file, say) is left behind either.
  EXPECT_TRUE(fs::is_empty(dir.path));
}

TEST_F(CliErrors, BadInputDoesNotCreateOutputFile) {
  TempDir dir;
  const std::string out = dir.file("walk.txt");
  const std::string input = kTestsDir + "/data/bad/ragged.json";
  expect_input_error(run_cli({"--input", input, "--output", out}), input, library_message(input));
  EXPECT_FALSE(fs::exists(out));
  EXPECT_TRUE(fs::is_empty(dir.path));

  const std::string json_out = dir.file("walk.json");
  expect_input_error(run_cli({"--input", "-", "--format", "json", "--output", json_out}, "[[1], [2, 3]]"),
                     "<stdin>", "");
  EXPECT_FALSE(fs::exists(json_out));
}

TEST_F(CliErrors, BadInputLeavesExistingOutputFileAlone) {
  TempDir dir;
  const std::string out = dir.write("walk.txt", "previous walk\n");
  const std::string input = kTestsDir + "/data/bad/nan.json";
  expect_input_error(run_cli({"--input", input, "--output", out}), input, library_message(input));
  EXPECT_EQ(read_all(out), "previous walk\n");
}

// ---------------------------------------------------------------------------
// Every option of the chapter-fidelity walks is validated and named on misuse.

TEST_F(CliErrors, ModuleOptionsOutOfRange) {
  expect_option_error(run_cli({"--d-out", "0"}), {"--d-out"});
  expect_option_error(run_cli({"--heads", "0"}), {"--heads"});
  expect_option_error(run_cli({"--batch", "0"}), {"--batch"});
  expect_option_error(run_cli({"--dropout", "1.5"}), {"--dropout"});
  expect_option_error(run_cli({"--dropout", "-0.1"}), {"--dropout"});
  expect_option_error(run_cli({"--attn-dropout", "2"}), {"--attn-dropout"});
  expect_option_error(run_cli({"--dropout", "abc"}), {"--dropout"});
  expect_option_error(run_cli({"--seed", "12x"}), {"--seed"});
  expect_option_error(run_cli({"--init", "zeros"}), {"--init"});
  expect_option_error(run_cli({"--dropout-rng", "intel"}), {"--dropout-rng"});
  expect_option_error(run_cli({"--lang", "fr"}), {"--lang"});
  expect_option_error(run_cli({"--color", "sometimes"}), {"--color"});
}

// A closed set (an enum bound by its names) refuses a misspelling where it is parsed, naming
// the option, the text given and the names it takes.
TEST_F(CliErrors, ClosedSetsNameTheOptionTheTextAndTheChoices) {
  expect_option_error(run_cli({"--init", "randm"}), {"--init: randm not in {rand,randn}"});
  expect_option_error(run_cli({"--dropout-rng", "intel"}), {"--dropout-rng: intel not in {default,mkl}"});
  expect_option_error(run_cli({"--optimizer", "adam"}), {"--optimizer: adam not in {adamw,sgd}"});
  expect_option_error(run_cli({"--format", "xml"}), {"--format: xml not in {text,json,json-compact,html}"});
  expect_option_error(run_cli({"--heatmap-scale", "log"}), {"--heatmap-scale: log not in {fixed,matrix}"});
  expect_option_error(run_cli({"--color", "sometimes"}), {"--color: sometimes not in {auto,always,never}"});
  expect_option_error(run_cli({"bench", "--format", "html"}), {"--format: html not in {text,json}"});
  expect_option_error(run_cli({"check", "-", "--format", "xml"}), {"--format: xml not in {text,json,html}"});
  expect_option_error(run_cli({"--stage", "dot-prod"}),
                      {"--stage: dot-prod not in {tokens,dot-product,softmax,trainable,causal,dropout,multi-head,"
                       "efficient,kv-cache,gqa,swa,rope,flash,mla,backward,gpt,all,bonus}"});
  expect_option_error(run_cli({"--blas-kernel", "zen"}), {"--blas-kernel: zen not in {cooperlake,skylakex,haswell}"});
  expect_option_error(run_cli({"check", "-", "--blas-kernel", "Haswell"}),
                      {"--blas-kernel: Haswell not in {cooperlake,skylakex,haswell}"});
  // The names are what the enums hold: each one still runs.
  for (const char* scale : {"fixed", "matrix"}) {
    const RunResult r = run_cli({"--stage", "causal", "--heatmap", "--heatmap-scale", scale, "--color", "never"});
    EXPECT_EQ(r.exit_code, 0) << describe(r);
  }
  const RunResult sgd = run_cli({"--stage", "backward", "--optimizer", "sgd", "--steps", "2", "--format", "json"});
  EXPECT_EQ(sgd.exit_code, 0) << describe(sgd);
  EXPECT_NE(sgd.out.find("\"optimizer\":\"sgd\""), std::string::npos) << sgd.out.substr(0, 600);
}

// An option that no stage of --stage uses is not misuse (--stage all takes knobs only some of
// its stages use) but a note on stderr, naming the option and the stages it changes.
// With --lang zh the command line's own words are Chinese too: an option's error is said as the
// page says it (web/page_errors.h), between the prefix and the usage hint in Chinese, and so is
// the note on an option the stage does not use; exit codes and stdout as in English.
TEST_F(CliErrors, AChineseCommandLineSaysItsErrorsAndNotesInChinese) {
  using attn::Lang;
  const std::string en_prefix = attn::ui_text(Lang::En, "cli.error"), zh_prefix = attn::ui_text(Lang::Zh, "cli.error");
  const std::string en_hint = "\n" + attn::ui_text(Lang::En, "cli.usage_hint") + "\n";
  ASSERT_NE(en_prefix, zh_prefix);
  for (const std::vector<std::string>& misuse : {std::vector<std::string>{"--stage", "multi-head", "--heads", "3", "--d-out", "2"},
                                                 std::vector<std::string>{"--heads", "abc"},
                                                 std::vector<std::string>{"--stage", "nope"}}) {
    const RunResult en = run_cli(misuse);
    std::vector<std::string> zh_args = misuse;
    zh_args.insert(zh_args.end(), {"--lang", "zh"});
    const RunResult zh = run_cli(zh_args);
    EXPECT_EQ(en.exit_code, 2) << describe(en);
    EXPECT_EQ(zh.exit_code, 2) << describe(zh);
    EXPECT_EQ(zh.out, "");
    ASSERT_TRUE(en.err.rfind(en_prefix, 0) == 0 && en.err.size() > en_hint.size() &&
                en.err.compare(en.err.size() - en_hint.size(), en_hint.size(), en_hint) == 0)
        << describe(en);
    const std::string message = en.err.substr(en_prefix.size(), en.err.size() - en_prefix.size() - en_hint.size());
    const std::string zh_message = attn::page_error(message, Lang::Zh).text;
    EXPECT_NE(zh_message, message);
    EXPECT_EQ(zh.err, zh_prefix + zh_message + "\n" + attn::ui_text(Lang::Zh, "cli.usage_hint") + "\n");
  }
  // --lang=zh, written with its equals sign, is read as well.
  const RunResult joined = run_cli({"--heads", "abc", "--lang=zh"});
  EXPECT_EQ(joined.err.rfind(zh_prefix, 0), 0u) << describe(joined);
  const RunResult note = run_cli({"--stage", "causal", "--lr", "0.1", "--lang", "zh"});
  EXPECT_EQ(note.exit_code, 0) << describe(note);
  EXPECT_EQ(note.err, attn::ui_text(Lang::Zh, "cli.note") +
                          attn::fill_placeholders(attn::ui_text(Lang::Zh, "cli.unused_option"),
                                                  {{"option", "lr"}, {"stage", "causal"}, {"only", "backward"}}) +
                          "\n");
  EXPECT_EQ(note.err.find("does not change"), std::string::npos);
}

TEST_F(CliErrors, AnOptionTheStageDoesNotUseGivesANote) {
  const RunResult r = run_cli({"--stage", "causal", "--lr", "0.1"});
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_FALSE(r.out.empty());
  EXPECT_EQ(r.err, "attn-walk: note: --lr does not change --stage causal (only backward)\n");
  // Used by one of the stages of all: no note.
  const RunResult all = run_cli({"--stage", "all", "--dropout", "0.25"});
  EXPECT_EQ(all.exit_code, 0) << describe(all);
  EXPECT_EQ(all.err, "");
  // Options every stage reads, and the defaults: no note.
  const RunResult plain = run_cli({"--stage", "causal", "--format", "json", "--seed", "5"});
  EXPECT_EQ(plain.err, "");
  const RunResult window = run_cli({"--stage", "dot-product", "--window", "2"});
  EXPECT_EQ(window.exit_code, 0);
  EXPECT_EQ(window.err, "attn-walk: note: --window does not change --stage dot-product (only swa)\n");
  // --seed draws --random-input's and --text's embeddings: then every stage uses it.
  const RunResult seeded = run_cli({"--stage", "dot-product", "--seed", "5"});
  EXPECT_NE(seeded.err.find("note: --seed does not change --stage dot-product"), std::string::npos) << seeded.err;
  const RunResult drawn = run_cli({"--stage", "dot-product", "--seed", "5", "--random-input", "4x3"});
  EXPECT_EQ(drawn.exit_code, 0) << describe(drawn);
  EXPECT_EQ(drawn.err, "");
}

// A range reads as a person writes it, not as C's %f of the bounds; nan is in no range.
TEST_F(CliErrors, RangesReadAsAPersonWritesThem) {
  expect_option_error(run_cli({"--dropout", "1.5"}), {"--dropout: must be a number from 0 to 1, got 1.5"});
  expect_option_error(run_cli({"--attn-dropout", "nan"}), {"--attn-dropout: must be a number from 0 to 1, got nan"});
  expect_option_error(run_cli({"--d-out", "0"}), {"--d-out: must be a whole number from 1 to 65536, got 0"});
  expect_option_error(run_cli({"--d-out", "two"}), {"--d-out: must be a whole number from 1 to 65536, got 'two'"});
  expect_option_error(run_cli({"--rope-base", "0.5"}), {"--rope-base: must be a number from 1 to 1e12, got 0.5"});
  expect_option_error(run_cli({"check", "dump.json", "--atol", "-1"}), {"--atol: must be a number ≥ 0, got -1"});
  expect_option_error(run_cli({"bench", "--threads", "2000"}), {"--threads: must be a whole number from 0 to 1024"});
}

// --seed abc says what a seed is, on the walk, check and bench alike.
TEST_F(CliErrors, SeedSaysWhatASeedIs) {
  const std::string what = "--seed: must be a whole number from 0 to 2^64-1, the argument of torch.manual_seed";
  expect_option_error(run_cli({"--seed", "abc"}), {what, "got 'abc'"});
  expect_option_error(run_cli({"check", "dump.json", "--seed", "1.5"}), {what, "got '1.5'"});
  expect_option_error(run_cli({"bench", "--seed", "x"}), {what, "got 'x'"});
  EXPECT_EQ(run_cli({"--seed", "abc"}).err.find("Could not convert"), std::string::npos);
}

TEST_F(CliErrors, NegativeSeedWrapsAsTorchManualSeedDoes) {
  // torch.manual_seed(-1) uses 2**64 - 1; the generator then keeps the low 32 bits.
  const RunResult neg = run_cli({"--stage", "trainable", "--seed", "-1"});
  const RunResult wrapped = run_cli({"--stage", "trainable", "--seed", "18446744073709551615"});
  EXPECT_EQ(neg.exit_code, 0) << describe(neg);
  EXPECT_EQ(neg.out, wrapped.out);
}

TEST_F(CliErrors, HeadsMustDivideDOutForMultiHead) {
  expect_option_error(run_cli({"--stage", "multi-head", "--d-out", "2", "--heads", "3"}),
                      {"--heads", "divisible"});
  expect_option_error(run_cli({"--stage", "all", "--d-out", "5", "--heads", "2"}), {"--heads"});
  // Other stages have no heads, so the pair is fine there.
  EXPECT_EQ(run_cli({"--stage", "causal", "--d-out", "2", "--heads", "3"}).exit_code, 0);
}

TEST_F(CliErrors, OnlyNamesAnUnknownStep) {
  expect_option_error(run_cli({"--stage", "causal", "--only", "masked,nope"}), {"--only", "nope"});
}

TEST_F(CliErrors, RandomInputIsValidated) {
  expect_option_error(run_cli({"--random-input", "0x5"}), {"--random-input"});
  expect_option_error(run_cli({"--random-input", "12"}), {"--random-input"});
  expect_option_error(run_cli({"--random-input", "4x3x2"}), {"--random-input"});
  expect_option_error(run_cli({"--random-input", "4x3", "--input", kDataDir + "/journey.json"}),
                      {"--random-input", "--input"});
}

TEST_F(CliErrors, BenchValidatesItsOptions) {
  expect_option_error(run_cli({"bench", "--d-model", "768", "--heads", "5"}), {"--heads"});
  expect_option_error(run_cli({"bench", "--tokens", "0"}), {"--tokens"});
  expect_option_error(run_cli({"bench", "--format", "xml"}), {"--format"});
}

// ---------------------------------------------------------------------------
// What a well-made CLI does besides walking.

TEST_F(CliErrors, HelpHasExamplesAndExitCodes) {
  const RunResult r = run_cli({"--help"});
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_NE(r.out.find("Examples:"), std::string::npos) << describe(r);
  EXPECT_NE(r.out.find("--stage causal"), std::string::npos) << describe(r);
  EXPECT_NE(r.out.find("Exit codes"), std::string::npos) << describe(r);
  EXPECT_EQ(r.err, "");
}

TEST_F(CliErrors, VersionPrintsTheVersion) {
  const RunResult r = run_cli({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, std::string("attn-walk ") + ATTN_WALK_VERSION + "\n");
}

TEST_F(CliErrors, ListStagesAndSteps) {
  const RunResult stages = run_cli({"--list-stages"});
  EXPECT_EQ(stages.exit_code, 0);
  for (const char* s : {"dot-product", "softmax", "trainable", "causal", "dropout", "multi-head"})
    EXPECT_NE(stages.out.find(s), std::string::npos) << s;
  const RunResult steps = run_cli({"--stage", "causal", "--list-steps"});
  EXPECT_EQ(steps.exit_code, 0);
  EXPECT_NE(steps.out.find("\nmask_simple\n"), std::string::npos) << steps.out;
  EXPECT_NE(steps.out.find("\nattn_weights_causal\n"), std::string::npos) << steps.out;
  // Stages that repeat their steps (per generated token, per block of keys) list each name once.
  for (const char* stage : {"kv-cache", "flash", "all"}) {
    const RunResult r = run_cli({"--stage", stage, "--list-steps"});
    EXPECT_EQ(r.exit_code, 0) << stage;
    std::set<std::string> seen;
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) EXPECT_TRUE(seen.insert(line).second) << stage << ": " << line;
    EXPECT_GT(seen.size(), 3u) << stage;
    if (std::string(stage) == "kv-cache") EXPECT_EQ(seen.count("keys_new"), 1u);
  }
}

TEST_F(CliErrors, OnlyKeepsTheNamedSteps) {
  const RunResult r = run_cli({"--stage", "causal", "--only", "mask,masked"});
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_NE(r.out.find("] mask "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("] masked "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("] queries "), std::string::npos) << r.out;
}

TEST_F(CliErrors, DashOutputIsStdout) {
  const RunResult r = run_cli({"--stage", "causal", "--output", "-"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("attn_weights_causal"), std::string::npos);
}

TEST_F(CliErrors, MklDropoutSaysWhyMasksDiffer) {
  const RunResult def = run_cli({"--stage", "dropout"});
  const RunResult mkl = run_cli({"--stage", "dropout", "--dropout-rng", "mkl"});
  EXPECT_EQ(mkl.exit_code, 0) << describe(mkl);
  EXPECT_NE(mkl.out.find("MKL"), std::string::npos) << mkl.out;
  EXPECT_NE(def.out, mkl.out);
}

TEST_F(CliErrors, NoColorUnlessAskedOnAPipe) {
  const RunResult plain = run_cli({"--stage", "causal"});
  EXPECT_EQ(plain.out.find('\033'), std::string::npos) << "no ANSI escapes when stdout is a pipe";
  const RunResult always = run_cli({"--stage", "causal", "--color", "always"});
  EXPECT_NE(always.out.find('\033'), std::string::npos) << "--color always forces escapes";
}

TEST_F(CliErrors, StatsReportTimeAndPeakMemoryOnStderr) {
  const RunResult r = run_cli({"--stage", "causal", "--stats", "--format", "json"});
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(r.out.front(), '{');
  EXPECT_NE(r.err.find("causal on 6 tokens x 3"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("peak memory"), std::string::npos) << r.err;
}

TEST_F(CliErrors, OutputToADeviceWritesIntoIt) {
  // Renaming a temporary file over /dev/null would replace the device (as root).
  const RunResult r = run_cli({"--stage", "causal", "--output", "/dev/null"});
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  struct stat st;
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "/dev/null is no longer a character device";
}

TEST_F(CliErrors, OutputToAFifoStreamsIntoIt) {
  TempDir dir;
  const std::string fifo = dir.file("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { got = read_all(fifo); });
  const RunResult r = run_cli({"--stage", "causal", "--format", "json", "--output", fifo});
  reader.join();
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_NE(got.find("\"attn_weights_causal\""), std::string::npos);
  struct stat st;
  ASSERT_EQ(::stat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

TEST_F(CliErrors, OutputToADirectoryFails) {
  TempDir dir;
  const RunResult r = run_cli({"--output", dir.path.string()});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find(dir.path.string()), std::string::npos) << describe(r);
}

// ---------------------------------------------------------------------------
// The bonus stages (beyond chapter 3): their group, their options

TEST_F(CliErrors, ListStagesShowsTheChapterThenTheBonusGroup) {
  const RunResult r = run_cli({"--list-stages"});
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  const size_t chapter = r.out.find("chapter 3 (--stage all");
  const size_t bonus = r.out.find("beyond chapter 3 (--stage bonus");
  ASSERT_NE(chapter, std::string::npos) << r.out;
  ASSERT_NE(bonus, std::string::npos) << r.out;
  EXPECT_LT(chapter, bonus);
  EXPECT_LT(r.out.find("\n  multi-head "), bonus) << r.out;
}

TEST_F(CliErrors, BonusOptionsOutOfRangeExitTwo) {
  expect_option_error(run_cli({"--kv-groups", "0"}), {"--kv-groups"});
  expect_option_error(run_cli({"--latent-dim", "0"}), {"--latent-dim"});
  expect_option_error(run_cli({"--window", "0"}), {"--window"});
  expect_option_error(run_cli({"--block", "-1"}), {"--block"});
  expect_option_error(run_cli({"--rope-base", "0.5"}), {"--rope-base"});
  expect_option_error(run_cli({"--rope-base", "nan"}), {"--rope-base"});
  expect_option_error(run_cli({"--stage", "everything"}), {"--stage"});
}

}  // namespace

// ---------------------------------------------------------------------------
// --text and --text-file (src/text/): bad text exits 1 saying what and where, with nothing
// on stdout; misuse of the options exits 2.

TEST_F(CliErrors, TextEmptyOrOnlyWhitespace) {
  expect_input_error(run_cli({"--text", ""}), "--text", "--text: the text is empty; give a sentence to tokenize");
  expect_input_error(run_cli({"--text", " \n\t\xE3\x80\x80"}), "--text",
                     "--text: the text is only whitespace; give a sentence to tokenize");
  expect_input_error(run_cli({"--text", "-"}, "\n"), "<stdin>", "<stdin>: the text is empty; give a sentence to tokenize");
}

TEST_F(CliErrors, TextInvalidUtf8NamesTheByteOffset) {
  TempDir dir;
  const std::string path = dir.write("notes.txt", "caf\xC3 au lait");
  expect_input_error(run_cli({"--text-file", path}), path, path + ": byte 3: invalid UTF-8 (byte 0xc3)");
  expect_input_error(run_cli({"--text", "-"}, "ok \xFF"), "<stdin>", "<stdin>: byte 3: invalid UTF-8 (byte 0xff)");
}

TEST_F(CliErrors, TextLongerThanMaxTokensSaysHowToRaiseIt) {
  const RunResult r = run_cli({"--text", "one two three four", "--max-tokens", "3"});
  expect_input_error(r, "--text", "");
  EXPECT_NE(r.err.find("4 tokens, more than --max-tokens 3"), std::string::npos) << describe(r);
  EXPECT_NE(r.err.find("raise the limit with --max-tokens 4"), std::string::npos) << describe(r);
}

TEST_F(CliErrors, TextFileMissingOrADirectory) {
  TempDir dir;
  expect_input_error(run_cli({"--text-file", dir.file("missing.txt")}), dir.file("missing.txt"), "");
  expect_input_error(run_cli({"--text-file", dir.path.string()}), dir.path.string(), "");
}

TEST_F(CliErrors, TextExcludesTheOtherInputs) {
  expect_option_error(run_cli({"--text", "hi", "--input", kDataDir + "/journey.json"}), {"--text", "--input"});
  expect_option_error(run_cli({"--text", "hi", "--random-input", "3x2"}), {"--text", "--random-input"});
  expect_option_error(run_cli({"--text", "hi", "--text-file", "x"}), {"--text", "--text-file"});
  expect_option_error(run_cli({"--text", "hi", "--embed-dim", "0"}), {"--embed-dim"});
}

TEST_F(CliErrors, TextFromStdinWalksItsPieces) {
  const RunResult r = run_cli({"--text", "-", "--stage", "causal", "--format", "json", "--only", "token_ids,pieces"},
                              "Your journey starts with one step\n");
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["text"], "Your journey starts with one step");
  EXPECT_EQ(doc["token_ids"], nlohmann::json::parse("[7120, 7002, 4940, 351, 530, 2239]"));
  EXPECT_EQ(doc["pieces"][1], "\xC2\xB7journey");
  EXPECT_EQ(doc["tokens"], doc["pieces"]);
  EXPECT_EQ(doc["steps"][0]["name"], "pieces");
  EXPECT_EQ(doc["steps"][0]["data"], doc["pieces"]);
  EXPECT_EQ(doc["steps"][1]["data"], doc["token_ids"]);
}
