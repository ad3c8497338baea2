#include "output.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

namespace attn {

namespace {

bool write_all(int fd, const std::string& content) {
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

}  // namespace

void write_output(const std::string& path, const std::string& content) {
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
  std::string tmpl = path + ".tmp-XXXXXX";
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  const int fd = ::mkstemp(name.data());
  if (fd < 0) throw OutputError(error_text(path, "cannot create"));
  const std::string tmp(name.data());
  const bool ok = write_all(fd, content) && ::fsync(fd) == 0;
  const int saved = errno;
  ::close(fd);
  if (!ok) {
    ::unlink(tmp.c_str());
    errno = saved;
    throw OutputError(error_text(path, "cannot write"));
  }
  // mkstemp creates 0600; give the file the mode a plain open() would have.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::chmod(tmp.c_str(), 0666 & ~mask);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    errno = e;
    throw OutputError(error_text(path, "cannot write"));
  }
}

}  // namespace attn
