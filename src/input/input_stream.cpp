#include "input/input_stream.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "input/input_types.h"

namespace attn {

namespace {

constexpr size_t kChunk = size_t{1} << 16;

using input_detail::fail;

}  // namespace

InputStream::InputStream(const std::string& path, uint64_t max_bytes)
    : source_(path == "-" ? "<stdin>" : path), max_bytes_(max_bytes) {
  if (path == "-") {
    fd_ = STDIN_FILENO;
  } else {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) fail(source_, std::string("cannot open: ") + std::strerror(errno));
    owns_fd_ = true;
  }
  struct stat st {};
  if (::fstat(fd_, &st) != 0) fail(source_, std::string("cannot open: ") + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) fail(source_, std::string("cannot open: ") + std::strerror(EISDIR) + "; give a JSON file");
  // A regular file's size is known up front: refuse it before reading a byte.
  if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > max_bytes_) too_large(static_cast<uint64_t>(st.st_size));
  // One buffer for the whole input, so growing it never holds two copies: a file's size, or
  // for a stream the limit (address space only; pages are touched as data arrives).
  buf_.reserve(static_cast<size_t>(S_ISREG(st.st_mode) ? static_cast<uint64_t>(st.st_size) + 1 : max_bytes_ + 1));
}

InputStream::~InputStream() {
  if (owns_fd_) ::close(fd_);
}

bool InputStream::read_chunk() {
  if (eof_) return false;
  if (buf_.size() > max_bytes_) too_large();
  // Read at most one byte past the limit: that byte is what proves the input too large.
  const size_t want = static_cast<size_t>(std::min<uint64_t>(kChunk, max_bytes_ + 1 - buf_.size()));
  const size_t old = buf_.size();
  // A file that grew since fstat: grow geometrically, never past the limit.
  if (buf_.capacity() < old + want)
    buf_.reserve(static_cast<size_t>(std::min<uint64_t>(std::max<uint64_t>(2 * buf_.capacity(), old + want), max_bytes_ + 1)));
  buf_.resize(old + want);
  ssize_t n;
  do {
    n = ::read(fd_, &buf_[old], want);
  } while (n < 0 && errno == EINTR);
  if (n < 0) {
    const int err = errno;
    buf_.resize(old);
    fail(source_, std::string("cannot read: ") + std::strerror(err));
  }
  buf_.resize(old + static_cast<size_t>(n));
  if (n == 0) eof_ = true;
  if (buf_.size() > max_bytes_) too_large();
  return n > 0;
}

void InputStream::fill(uint64_t n) {
  if (n > max_bytes_) {
    // Read up to the limit first: a shorter stream gets its own (truncation) message.
    while (buf_.size() <= max_bytes_ && read_chunk()) {
    }
    if (!eof_) too_large(n);
    return;
  }
  while (buf_.size() < n && read_chunk()) {
  }
}

void InputStream::too_large(uint64_t needed) const {
  const uint64_t mb = max_bytes_ / kBytesPerMb;
  const std::string size = needed ? fmt::format("{} bytes", needed) : fmt::format("more than {} MiB", mb);
  fail(source_, fmt::format("the input is {}, above the limit of {} MiB; if this really is your embeddings file, "
                            "raise the limit with --max-input-mb {}",
                            size, mb, needed ? (needed + kBytesPerMb - 1) / kBytesPerMb : 4 * std::max<uint64_t>(mb, 1)));
}

}  // namespace attn
