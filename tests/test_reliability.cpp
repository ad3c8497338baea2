// Hostile inputs and interruptions (docs/reliability.md): endless streams and oversized
// inputs end in exit 1 within seconds, sizes that cannot fit are refused before allocation,
// a signal during --output leaves the old file whole with nothing beside it, and concurrent
// walks into one --output leave one complete document.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "input/embeddings.h"
#include "input/size_limits.h"
#include "run_process.h"
#include "test_util.h"

namespace fs = std::filesystem;

namespace attn::test {
namespace {

// Runs the binary and checks it ended with exit 1 and one error line naming `source`,
// within `seconds`; returns the message.
std::string expect_quick_input_error(const std::vector<std::string>& args, const std::string& source,
                                     double seconds = 10, const std::string& stdin_text = "") {
  const auto start = std::chrono::steady_clock::now();
  const RunResult r = run_cli(args, stdin_text);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  expect_input_error(r, source, "");
  EXPECT_LT(took, seconds) << describe(r);
  return r.err;
}

// A .npy preamble and header for a float32 array of `shape` (a Python tuple's text).
std::string npy_header(const std::string& shape) {
  std::string h = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
  h.append(63 - (10 + h.size()) % 64, ' ');
  h += '\n';
  std::string out = "\x93NUMPY\x01";
  out += '\0';
  out += static_cast<char>(h.size() & 0xff);
  out += static_cast<char>(h.size() >> 8);
  return out + h;
}

// The sizes of the temporary files (<output>.tmp-XXXXXX) left in dir.
std::vector<uintmax_t> temp_file_sizes(const fs::path& dir) {
  std::vector<uintmax_t> sizes;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().find(".tmp-") != std::string::npos) sizes.push_back(e.file_size());
  return sizes;
}

bool has_temp_files(const fs::path& dir) { return !temp_file_sizes(dir).empty(); }

// ---------------------------------------------------------------------------
// Endless and oversized input

TEST(EndlessInput, DevZeroStopsAtItsFirstChunk) {
  const std::string err = expect_quick_input_error({"--input", "/dev/zero"}, "/dev/zero");
  EXPECT_NE(err.find("line 1, column 1: contains a NUL byte"), std::string::npos) << err;
}

TEST(EndlessInput, DevUrandomStopsAtItsFirstChunk) {
  const std::string err = expect_quick_input_error({"--input", "/dev/urandom"}, "/dev/urandom");
  EXPECT_TRUE(err.find("invalid UTF-8") != std::string::npos || err.find("NUL byte") != std::string::npos) << err;
}

TEST(EndlessInput, DevZeroNamedNpyFailsOnTheMagic) {
  TempDir dir;
  const std::string link = dir.file("zero.npy");
  ASSERT_EQ(::symlink("/dev/zero", link.c_str()), 0);
  const std::string err = expect_quick_input_error({"--input", link}, link);
  EXPECT_NE(err.find("not a NumPy .npy file"), std::string::npos) << err;
}

// A pipe that keeps sending valid text ends at the size limit; the child stops reading and
// the writer (run_process) sees EPIPE, as `yes | attn-walk --input -` would.
TEST(EndlessInput, StdinThatKeepsSendingEndsAtTheLimit) {
  const std::string text = "[[1, 2]]" + std::string(3 << 20, ' ');
  const std::string err =
      expect_quick_input_error({"--input", "-", "--max-input-mb", "1"}, "<stdin>", 10, text);
  EXPECT_NE(err.find("above the limit of 1 MiB"), std::string::npos) << err;
  EXPECT_NE(err.find("--max-input-mb"), std::string::npos) << err;
}

TEST(OversizedInput, FileAboveTheLimitIsRefusedWithTheWayToRaiseIt) {
  TempDir dir;
  const std::string path = dir.write("big.json", "[[1, 2], [3, 4]]" + std::string((2 << 20) + 10, ' '));
  const std::string err = expect_quick_input_error({"--input", path, "--max-input-mb", "2"}, path);
  EXPECT_NE(err.find("the input is 2097178 bytes, above the limit of 2 MiB"), std::string::npos) << err;
  EXPECT_NE(err.find("raise the limit with --max-input-mb 3"), std::string::npos) << err;
  const RunResult ok = run_cli({"--input", path, "--max-input-mb", "3", "--stage", "causal"});
  EXPECT_EQ(ok.exit_code, 0) << describe(ok);
}

TEST(OversizedInput, MaxInputMbIsValidated) {
  expect_option_error(run_cli({"--max-input-mb", "0"}), {"--max-input-mb"});
  expect_option_error(run_cli({"--max-input-mb", "lots"}), {"--max-input-mb"});
}

// The header says 40 GB; the file is a few bytes: refused from the header, nothing read.
TEST(OversizedInput, NpyHeaderIsCheckedBeforeItsData) {
  TempDir dir;
  const std::string path = dir.write("huge.npy", npy_header("(100000000, 100)") + "abc");
  const std::string err = expect_quick_input_error({"--input", path}, path);
  EXPECT_NE(err.find("the input is 40000000128 bytes, above the limit of 256 MiB"), std::string::npos) << err;
  // Within the limit, a short file is truncated, not a hang waiting for data.
  const std::string small = dir.write("short.npy", npy_header("(1000, 100)") + "abc");
  const std::string err2 = expect_quick_input_error({"--input", small}, small);
  EXPECT_NE(err2.find("truncated .npy file: shape (1000, 100) float32 needs 400000 bytes of data, the file has 3"),
            std::string::npos)
      << err2;
}

// ---------------------------------------------------------------------------
// Sizes that cannot fit: refused before allocation, with the bytes needed

TEST(WalkTooLarge, TwoMillionTokensAreRefusedWithTheBytesNeeded) {
  TempDir dir;
  std::string npy = npy_header("(2000000, 1)");
  npy.append(std::string(size_t{2000000} * 4, '\0'));  // 2,000,000 float32 zeros
  const std::string path = dir.write("long.npy", npy);
  const std::string err = expect_quick_input_error({"--input", path, "--stage", "causal"}, path);
  // causal keeps about 44 bytes per element of the (T, T) matrices: 1.76e14 bytes.
  EXPECT_NE(err.find("the causal walk on 2000000 tokens x 1 needs about 176000"), std::string::npos) << err;
  EXPECT_NE(err.find("(2000000, 2000000) attention matrices"), std::string::npos) << err;
  EXPECT_NE(err.find("use fewer tokens"), std::string::npos) << err;
}

TEST(WalkTooLarge, RandomInputAndBenchAreRefusedBeforeAllocating) {
  const std::string err = expect_quick_input_error(
      {"--random-input", "1048576x1", "--stage", "multi-head", "--heads", "1"}, "--random-input 1048576x1");
  EXPECT_NE(err.find("a smaller --batch or fewer --heads"), std::string::npos) << err;
  const std::string bench = expect_quick_input_error({"bench", "--tokens", "1048576", "--d-model", "1", "--heads", "1"},
                                                     "bench");
  EXPECT_NE(bench.find("needs about"), std::string::npos) << bench;
}

TEST(WalkTooLarge, EstimateGrowsWithTokensBatchHeadsAndFormat) {
  WalkSize w{"multi-head", {CostedWalk::MultiHead}, "", 1024, 768, 768, 12, 1};
  const double base = estimate_walk_bytes(w);
  EXPECT_GT(base, 12.0 * 1024 * 1024 * 4);  // at least the 12 heads' attention weights
  EXPECT_LT(base, 4.0e9);                   // GPT-2 size must fit a small machine
  WalkSize more = w;
  more.batch = 2;
  EXPECT_GT(estimate_walk_bytes(more), base);
  more = w;
  more.document = "json";
  EXPECT_GT(estimate_walk_bytes(more), base);
  more = w;
  more.walks = {CostedWalk::DotProduct, CostedWalk::Softmax, CostedWalk::Trainable,
                CostedWalk::Causal, CostedWalk::Dropout, CostedWalk::MultiHead};
  EXPECT_GT(estimate_walk_bytes(more), base);
  EXPECT_GT(available_memory_bytes(), 0.0);
  EXPECT_NO_THROW(check_fits(w, "gpt2"));
}

// The argv fuzzer's entry point checks what run_cli checks, and never prints or runs.
TEST(CheckCli, RefusesWhatRunCliRefuses) {
  EXPECT_NO_THROW(check_cli({}));
  EXPECT_NO_THROW(check_cli({"--help"}));
  EXPECT_NO_THROW(check_cli({"--stage", "multi-head", "--d-out", "4", "--heads", "2"}));
  EXPECT_THROW(check_cli({"--bogus"}), UsageError);
  EXPECT_THROW(check_cli({"--query", "7"}), UsageError);
  EXPECT_THROW(check_cli({"--stage", "all", "--d-out", "3", "--heads", "2"}), UsageError);
  EXPECT_THROW(check_cli({"--random-input", "0x3"}), UsageError);
  EXPECT_THROW(check_cli({"--random-input", "1048576x1"}), InputError);
  EXPECT_THROW(check_cli({"bench", "--d-model", "10", "--heads", "3"}), UsageError);
}

// ---------------------------------------------------------------------------
// Signals and concurrency around --output

// Starts attn-walk with `args`, stdout/stderr to /dev/null, and `env` added.
pid_t spawn(const std::vector<std::string>& args, const std::vector<std::string>& env = {}) {
  std::vector<std::string> argv_strings{kBinary};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  const pid_t pid = ::fork();
  if (pid == 0) {
    for (const auto& e : env) ::putenv(const_cast<char*>(e.c_str()));
    std::vector<char*> argv;
    for (auto& a : argv_strings) argv.push_back(a.data());
    argv.push_back(nullptr);
    const int null = ::open("/dev/null", O_RDWR);
    ::dup2(null, 0);
    ::dup2(null, 1);
    ::dup2(null, 2);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return pid;
}

// SIGINT or SIGTERM while the temporary file is half written (the binary stops itself there
// under ATTN_WALK_TEST_STOP_MID_WRITE): the process dies of the signal, the old file is
// unchanged and no temporary file is left.
void interrupt_mid_write(int sig) {
  TempDir dir;
  const std::string out = dir.file("walk.json");
  const std::string old_doc = "{\"old\": \"document\"}\n";
  dir.write("walk.json", old_doc);
  const pid_t pid = spawn({"--stage", "all", "--format", "json", "--output", out},
                          {"ATTN_WALK_TEST_STOP_MID_WRITE=1"});
  ASSERT_GT(pid, 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, WUNTRACED), pid);
  ASSERT_TRUE(WIFSTOPPED(status)) << "the test hook did not stop the process mid-write";
  // The window is real: a half-written temporary file sits beside the old document.
  EXPECT_TRUE(has_temp_files(dir.path));
  ::kill(pid, sig);
  ::kill(pid, SIGCONT);
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << "status " << status;
  EXPECT_EQ(read_all(out), old_doc);
  EXPECT_FALSE(has_temp_files(dir.path)) << "a temporary file was left behind";
}

TEST(Signals, SigintMidWriteLeavesTheOldFileWhole) { interrupt_mid_write(SIGINT); }
TEST(Signals, SigtermMidWriteLeavesTheOldFileWhole) { interrupt_mid_write(SIGTERM); }

// Without a signal, the stopped write completes: the hook itself changes nothing.
TEST(Signals, ContinuedWriteCompletes) {
  TempDir dir;
  const std::string out = dir.file("walk.txt");
  const pid_t pid = spawn({"--stage", "causal", "--output", out}, {"ATTN_WALK_TEST_STOP_MID_WRITE=1"});
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, WUNTRACED), pid);
  ASSERT_TRUE(WIFSTOPPED(status));
  ::kill(pid, SIGCONT);
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_EQ(read_all(out), run_cli({"--stage", "causal"}).out);
  EXPECT_FALSE(has_temp_files(dir.path));
}

// The same for a document written in pieces (bench's .npy: its header, then the tensor's
// floats from where they lie): the stop falls inside the second piece, and the file ends
// as the one written without the hook.
TEST(Signals, ContinuedWriteOfPiecesCompletes) {
  TempDir dir;
  const std::vector<std::string> bench = {"bench", "--tokens", "9", "--d-model", "8", "--heads", "2",
                                          "--repeat", "1", "--threads", "1", "--no-probe", "--save-output"};
  auto args = [&](const std::string& out) {
    std::vector<std::string> a = bench;
    a.push_back(out);
    return a;
  };
  ASSERT_EQ(run_cli(args(dir.file("plain.npy"))).exit_code, 0);
  const std::string plain = read_all(dir.file("plain.npy"));
  ASSERT_EQ(plain.size(), 128u + 9 * 8 * sizeof(float));  // the half, 208, lies in the floats
  const pid_t pid = spawn(args(dir.file("paused.npy")), {"ATTN_WALK_TEST_STOP_MID_WRITE=1"});
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, WUNTRACED), pid);
  ASSERT_TRUE(WIFSTOPPED(status));
  // The half-written temporary file beside the target.
  EXPECT_EQ(temp_file_sizes(dir.path), std::vector<uintmax_t>{plain.size() / 2});
  ::kill(pid, SIGCONT);
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_EQ(read_all(dir.file("paused.npy")), plain);
  EXPECT_FALSE(has_temp_files(dir.path));
}

// 20 walks with 20 seeds race into one file: it ends as exactly one of their documents.
TEST(Concurrency, TwentyWalksIntoOneOutputLeaveOneCompleteDocument) {
  TempDir dir;
  const std::string out = dir.file("walk.json");
  constexpr int kWalks = 20;
  std::vector<pid_t> pids;
  for (int i = 0; i < kWalks; ++i)
    pids.push_back(spawn({"--stage", "all", "--format", "json", "--seed", std::to_string(i), "--output", out}));
  for (const pid_t pid : pids) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  }
  const std::string doc = read_all(out);
  int matches = 0;
  for (int i = 0; i < kWalks; ++i) {
    const RunResult r = run_cli({"--stage", "all", "--format", "json", "--seed", std::to_string(i)});
    ASSERT_EQ(r.exit_code, 0);
    matches += r.out == doc;
  }
  EXPECT_EQ(matches, 1) << "the file is not one walk's whole document (" << doc.size() << " bytes)";
  EXPECT_FALSE(has_temp_files(dir.path));
}

}  // namespace
}  // namespace attn::test
