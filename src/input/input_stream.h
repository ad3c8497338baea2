// Reading an input file or stdin in chunks, never holding more than a set number of bytes.
//
// The loaders pull only what they need to decide (the six magic bytes, a .npy header, the
// next chunk of JSON text) and check it as it arrives, so /dev/zero, /dev/urandom or an
// endless pipe end with a message after a chunk or at the size limit, in bounded memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

namespace attn {

// The default of --max-input-mb: far above any real embedding file (GPT-2's 1024 x 768 is
// about 8 MiB as JSON and 3 MiB as float32 .npy), far below the memory of any machine.
constexpr uint64_t kDefaultMaxInputMb = 256;
constexpr uint64_t kBytesPerMb = uint64_t{1} << 20;

class InputStream {
 public:
  // "-" reads standard input. Throws InputError if the file cannot be opened, is a
  // directory, or is a regular file larger than `max_bytes`.
  InputStream(const std::string& path, uint64_t max_bytes);
  ~InputStream();
  InputStream(const InputStream&) = delete;
  InputStream& operator=(const InputStream&) = delete;

  // How messages name the input: the path, or "<stdin>".
  const std::string& source() const { return source_; }
  // Everything read so far.
  const std::string& bytes() const { return buf_; }
  bool at_end() const { return eof_; }
  // Hands over what was read (the stream is spent).
  std::string take() { return std::move(buf_); }

  // Reads until at least `n` bytes are held or the stream ends; throws the size-limit
  // message if `n` is above the limit and the stream has that much.
  void fill(uint64_t n);
  // Reads one more chunk (up to 64 KiB); false once the stream has ended.
  bool read_chunk();
  // Throws the size-limit message, saying how many bytes the input needs (0: unknown).
  [[noreturn]] void too_large(uint64_t needed = 0) const;
  uint64_t max_bytes() const { return max_bytes_; }

 private:
  std::string source_;
  int fd_ = -1;
  bool owns_fd_ = false;
  bool eof_ = false;
  uint64_t max_bytes_;
  std::string buf_;
};

}  // namespace attn
