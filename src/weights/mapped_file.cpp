#include "weights/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "weights/gpt_weights.h"

namespace attn::weights {

MappedFile::MappedFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    throw WeightsError("cannot_open", {{"path", path}, {"reason", std::strerror(err)}, {"reason_id", weights_errno_name(err)}});
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    throw WeightsError("cannot_read", {{"path", path}, {"reason", std::strerror(err)}, {"reason_id", weights_errno_name(err)}});
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw WeightsError("is_directory", {{"path", path}});
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw WeightsError("not_regular_file", {{"path", path}});
  }
  if (st.st_size == 0) {
    ::close(fd);
    throw WeightsError("empty_file", {{"path", path}});
  }
  size_ = static_cast<size_t>(st.st_size);
#ifdef __EMSCRIPTEN__
  // The page's engine: WORKERFS (src/render/page/worker.js) has no mmap. Read the file in 16 MiB
  // pieces, each a slice of the learner's File copied straight into this buffer, so that no
  // second whole copy of a 650 MB file is ever made.
  addr_ = std::malloc(size_);
  if (!addr_) {
    ::close(fd);
    throw WeightsError("no_memory", {{"path", path}, {"bytes", std::to_string(size_)}});
  }
  read_ = true;
  for (size_t done = 0; done < size_;) {
    const ssize_t got = ::read(fd, static_cast<char*>(addr_) + done, std::min<size_t>(size_ - done, size_t{16} << 20));
    if (got <= 0) {
      const int err = got < 0 ? errno : EIO;
      ::close(fd);
      std::free(addr_);  // a constructor that throws runs no destructor
      throw WeightsError("cannot_read", {{"path", path}, {"reason", std::strerror(err)}, {"reason_id", weights_errno_name(err)}});
    }
    done += static_cast<size_t>(got);
  }
  ::close(fd);
  return;
#endif
  addr_ = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
  const int err = errno;
  ::close(fd);  // the mapping stays valid
  if (addr_ == MAP_FAILED) {
    addr_ = nullptr;
    throw WeightsError("cannot_map", {{"path", path}, {"reason", std::strerror(err)}, {"reason_id", weights_errno_name(err)}});
  }
}

MappedFile::~MappedFile() {
  if (read_) std::free(addr_);
  else if (addr_) ::munmap(addr_, size_);
}

}  // namespace attn::weights
