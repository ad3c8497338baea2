// Running the real attn-walk binary in tests: exit code, stdout and stderr apart, stdin fed
// without deadlock, and the checks every error case shares.
//
// Contract (src/cli/main.cpp): InputError -> "attn-walk: error: " + what() on stderr, exit 1;
// option errors -> "attn-walk: error: ..." naming the option, exit 2.
#pragma once

#include <gtest/gtest.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

namespace attn::test {

inline const std::string kBinary = ATTN_WALK_BINARY;
inline const std::string kErrorPrefix = "attn-walk: error: ";
// How long a run may take before it is killed and the test fails: a minute natively, ten under
// an emulator (tests/CMakeLists.txt sets the scale, as it does for ctest's own limits).
#ifndef ATTN_WALK_TEST_TIME_SCALE
#define ATTN_WALK_TEST_TIME_SCALE 1
#endif
inline constexpr int kChildSeconds = 60 * ATTN_WALK_TEST_TIME_SCALE;

struct RunResult {
  int exit_code = -1;  // 128 + signal number if the process was killed
  std::string out;
  std::string err;
};

// Runs the binary with `args`, feeding `stdin_text`, capturing stdout and stderr
// separately. With `as_nobody` (only meaningful for root) the child drops to uid/gid
// 65534 before exec; exit code 126 then means it could not.
inline RunResult run_process(const std::vector<std::string>& args, const std::string& stdin_text,
                             bool as_nobody) {
  RunResult result;
  int in[2], out[2], err[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) {
    ADD_FAILURE() << "pipe2: " << std::strerror(errno);
    return result;
  }

  std::vector<std::string> argv_strings;
  argv_strings.push_back(kBinary);
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_strings) argv.push_back(a.data());
  argv.push_back(nullptr);

  // Writing to a child that exits without reading its stdin must not kill the test.
  // clang-format off
  struct sigaction ignore {}, old_pipe {};
  // clang-format on
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore, &old_pipe);

  const pid_t pid = ::fork();
  if (pid < 0) {
    ::sigaction(SIGPIPE, &old_pipe, nullptr);
    ADD_FAILURE() << "fork: " << std::strerror(errno);
    return result;
  }
  if (pid == 0) {
    ::signal(SIGPIPE, SIG_DFL);
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    if (as_nobody && (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0)) {
      const char msg[] = "run_process: cannot switch to uid 65534\n";
      (void)!::write(2, msg, sizeof msg - 1);
      ::_exit(126);
    }
    ::execv(argv[0], argv.data());
    const std::string msg = "run_process: cannot execute " + kBinary + ": " + std::strerror(errno) + "\n";
    (void)!::write(2, msg.data(), msg.size());
    ::_exit(127);
  }

  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  int in_fd = in[1];
  ::fcntl(in_fd, F_SETFL, ::fcntl(in_fd, F_GETFL) | O_NONBLOCK);
  size_t written = 0;
  if (stdin_text.empty()) {
    ::close(in_fd);
    in_fd = -1;
  }
  int out_fd = out[0], err_fd = err[0];

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kChildSeconds);
  bool timed_out = false;
  while (out_fd >= 0 || err_fd >= 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    pollfd fds[3];
    nfds_t n = 0;
    int idx_in = -1, idx_out = -1, idx_err = -1;
    if (in_fd >= 0) fds[idx_in = static_cast<int>(n++)] = {in_fd, POLLOUT, 0};
    if (out_fd >= 0) fds[idx_out = static_cast<int>(n++)] = {out_fd, POLLIN, 0};
    if (err_fd >= 0) fds[idx_err = static_cast<int>(n++)] = {err_fd, POLLIN, 0};
    const int ready = ::poll(fds, n, static_cast<int>(std::min<long long>(left, 1000)));
    if (ready < 0) {
      if (errno == EINTR) continue;
      ADD_FAILURE() << "poll: " << std::strerror(errno);
      break;
    }
    if (idx_in >= 0 && fds[idx_in].revents != 0) {
      const ssize_t w = ::write(in_fd, stdin_text.data() + written, stdin_text.size() - written);
      if (w > 0) written += static_cast<size_t>(w);
      if ((w < 0 && errno != EAGAIN && errno != EINTR) || written == stdin_text.size()) {
        ::close(in_fd);  // done, or the child closed its stdin (EPIPE)
        in_fd = -1;
      }
    }
    const auto drain = [](int& fd, std::string& into) {
      char buf[65536];
      const ssize_t r = ::read(fd, buf, sizeof buf);
      if (r > 0) {
        into.append(buf, static_cast<size_t>(r));
      } else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
        ::close(fd);
        fd = -1;
      }
    };
    if (idx_out >= 0 && fds[idx_out].revents != 0) drain(out_fd, result.out);
    if (idx_err >= 0 && fds[idx_err].revents != 0) drain(err_fd, result.err);
  }
  for (int fd : {in_fd, out_fd, err_fd})
    if (fd >= 0) ::close(fd);
  if (timed_out) {
    ::kill(pid, SIGKILL);
    ADD_FAILURE() << "attn-walk did not finish within " << kChildSeconds << " s";
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  ::sigaction(SIGPIPE, &old_pipe, nullptr);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

inline RunResult run_cli(std::vector<std::string> args, std::string stdin_text = "") {
  return run_process(args, stdin_text, /*as_nobody=*/false);
}

inline std::string describe(const RunResult& r) {
  return "exit code " + std::to_string(r.exit_code) + "\n--- stdout ---\n" + r.out.substr(0, 2000) +
         "\n--- stderr ---\n" + r.err.substr(0, 2000);
}

inline bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

// Bad input: exit 1, stdout empty, stderr is exactly "attn-walk: error: <message>\n"
// where the message is the library's and starts with the file name.
inline void expect_input_error(const RunResult& r, const std::string& source,
                               const std::string& expected_message) {
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_EQ(r.out, "") << describe(r);
  EXPECT_TRUE(starts_with(r.err, kErrorPrefix + source + ": ")) << describe(r);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "expected one line\n"
                                                             << describe(r);
  if (!expected_message.empty()) {
    EXPECT_EQ(r.err, kErrorPrefix + expected_message + "\n") << describe(r);
  }
}

// Bad option: exit 2, stdout empty, stderr starts with the prefix and names the option.
inline void expect_option_error(const RunResult& r, const std::vector<std::string>& mentions) {
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_EQ(r.out, "") << describe(r);
  EXPECT_TRUE(starts_with(r.err, kErrorPrefix)) << describe(r);
  for (const auto& m : mentions) {
    EXPECT_NE(r.err.find(m), std::string::npos) << "missing " << m << "\n"
                                                << describe(r);
  }
}

}  // namespace attn::test
