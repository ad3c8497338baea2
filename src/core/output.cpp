#include "core/output.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string>
#include <string_view>

namespace attn {

namespace {

bool write_all(int fd, std::string_view content) {
  const char* p = content.data();
  size_t left = content.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  return true;
}

std::string error_text(const std::string& path, const char* what) {
  return path + ": " + what + ": " + std::strerror(errno);
}

// The temporary file being written, so that SIGINT, SIGTERM, SIGHUP or SIGQUIT remove it
// before the process dies: an interrupted run leaves the old file whole and nothing beside
// it. (SIGKILL cannot be caught; its temporary file stays, named <output>.tmp-XXXXXX.)
char g_tmp_name[4096];
volatile sig_atomic_t g_tmp_live = 0;
constexpr int kFatalSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

extern "C" void remove_tmp_and_die(int sig) {
  if (g_tmp_live) ::unlink(g_tmp_name);  // async-signal-safe
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

// Creates the temporary file beside `path` with the signal handlers in place; the
// destructor restores the old handlers once the file is renamed or removed.
class TempFile {
 public:
  explicit TempFile(const std::string& path) {
    const std::string tmpl = path + ".tmp-XXXXXX";
    if (tmpl.size() >= sizeof g_tmp_name) {
      errno = ENAMETOOLONG;
      throw OutputError(error_text(path, "cannot create"));
    }
    // Block the signals while the name is set up, so the handler never sees half of it.
    sigset_t fatal, old_mask;
    sigemptyset(&fatal);
    for (int sig : kFatalSignals) sigaddset(&fatal, sig);
    ::sigprocmask(SIG_BLOCK, &fatal, &old_mask);
    std::memcpy(g_tmp_name, tmpl.c_str(), tmpl.size() + 1);
    fd_ = ::mkstemp(g_tmp_name);
    const int saved = errno;
    if (fd_ >= 0) {
      g_tmp_live = 1;
      for (size_t i = 0; i < std::size(kFatalSignals); ++i) {
        struct sigaction act {};
        ::sigaction(kFatalSignals[i], nullptr, &old_[i]);
        if (old_[i].sa_handler == SIG_IGN) continue;  // e.g. SIGHUP under nohup: stay immune
        act.sa_handler = remove_tmp_and_die;
        sigemptyset(&act.sa_mask);
        ::sigaction(kFatalSignals[i], &act, nullptr);
      }
      name_ = g_tmp_name;
    }
    ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
    errno = saved;
    if (fd_ < 0) throw OutputError(error_text(path, "cannot create"));
  }
  ~TempFile() {
    if (fd_ >= 0) ::close(fd_);
    g_tmp_live = 0;
    for (size_t i = 0; i < std::size(kFatalSignals); ++i) ::sigaction(kFatalSignals[i], &old_[i], nullptr);
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  int fd() const { return fd_; }
  const std::string& name() const { return name_; }
  // Closes the descriptor; false (with errno) if the close reports a write error.
  bool close() {
    const int fd = fd_;
    fd_ = -1;
    return ::close(fd) == 0;
  }
  // The file is gone (renamed or removed): the handler must not unlink the name any more.
  void forget() { g_tmp_live = 0; }

 private:
  int fd_ = -1;
  std::string name_;
  struct sigaction old_[std::size(kFatalSignals)]{};
};

bool write_all(int fd, std::initializer_list<std::string_view> pieces) {
  for (std::string_view piece : pieces)
    if (!write_all(fd, piece)) return false;
  return true;
}

// The test hook of tests/test_reliability.cpp: with ATTN_WALK_TEST_STOP_MID_WRITE set, the
// process stops itself (SIGSTOP) after writing half of the temporary file (half of the
// pieces' total), so a test can send a signal at exactly that point.
bool write_all_maybe_pausing(int fd, std::initializer_list<std::string_view> pieces) {
  static const bool pause = std::getenv("ATTN_WALK_TEST_STOP_MID_WRITE") != nullptr;
  if (!pause) return write_all(fd, pieces);
  size_t total = 0;
  for (std::string_view piece : pieces) total += piece.size();
  size_t before_stop = total / 2;  // bytes still to write before the stop
  bool stopped = false;
  for (std::string_view piece : pieces) {
    if (!stopped && before_stop <= piece.size()) {
      if (!write_all(fd, piece.substr(0, before_stop))) return false;
      ::raise(SIGSTOP);
      piece.remove_prefix(before_stop);
      stopped = true;
    } else if (!stopped) {
      before_stop -= piece.size();
    }
    if (!write_all(fd, piece)) return false;
  }
  return true;
}

}  // namespace

void write_output(const std::string& path, const std::string& content) { write_output_pieces(path, {content}); }

void write_output_pieces(const std::string& path, std::initializer_list<std::string_view> content) {
  if (path == "-") {
    std::fflush(stdout);
    if (!write_all(STDOUT_FILENO, content)) throw OutputError(error_text("<stdout>", "cannot write"));
    return;
  }
  // A device or a pipe (/dev/null, /dev/stdout, a FIFO) is written in place: renaming a
  // file over it would replace the device itself.
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) {
      errno = EISDIR;
      throw OutputError(error_text(path, "cannot write"));
    }
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) throw OutputError(error_text(path, "cannot open"));
    const bool ok = write_all(fd, content);
    const int saved = errno;
    ::close(fd);
    errno = saved;
    if (!ok) throw OutputError(error_text(path, "cannot write"));
    return;
  }
  // mkstemp in the target's directory, so rename() stays on one file system.
  TempFile tmp(path);
  bool ok = write_all_maybe_pausing(tmp.fd(), content) && ::fsync(tmp.fd()) == 0;
  ok = tmp.close() && ok;
  // mkstemp creates 0600; give the file the mode a plain open() would have.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  if (ok) ::chmod(tmp.name().c_str(), 0666 & ~mask);
  if (!ok || ::rename(tmp.name().c_str(), path.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp.name().c_str());
    tmp.forget();
    errno = e;
    throw OutputError(error_text(path, "cannot write"));
  }
  tmp.forget();
}

}  // namespace attn
