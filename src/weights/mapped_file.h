// A weights file mapped read-only: the parameters are read where they lie, and pages the model
// never touches are never read. Refuses a directory, an empty file, and anything it cannot map.
// In the page's engine (WebAssembly) the file is the learner's File, which emscripten's WORKERFS
// reads but cannot map: there it is read into the engine's memory once, whole (the only copy;
// WebAssembly addresses nothing outside its own memory).
#pragma once

#include <string>

#include "weights/raw_tensor.h"

namespace attn::weights {

class MappedFile {
 public:
  explicit MappedFile(const std::string& path);  // throws WeightsError naming the path
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  Bytes bytes() const { return {static_cast<const uint8_t*>(addr_), size_}; }

 private:
  void* addr_ = nullptr;
  size_t size_ = 0;
  bool read_ = false;  // read into memory (WebAssembly), not mapped: free(), not munmap()
};

}  // namespace attn::weights
