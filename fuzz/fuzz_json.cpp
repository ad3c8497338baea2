// The JSON embeddings loader: any bytes must load or throw InputError, nothing else.
// Read through the real file path (InputStream, chunked checks) at the default size limit
// and at one below the input's size, and parsed directly from memory.
#include <cstdint>
#include <string>

#include "input/embeddings.h"
#include "fuzz_input.h"

namespace {
void expect_input_error_or_success(const std::string& path, uint64_t max_bytes) {
  try {
    const attn::Embeddings e = attn::load_embeddings(path, max_bytes);
    if (e.inputs.numel() == 0 || e.tokens.size() != static_cast<size_t>(e.inputs.size(0))) __builtin_trap();
  } catch (const attn::InputError&) {
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  attn::fuzz::MemFile file(data, size);
  if (!file.ok()) return 0;
  expect_input_error_or_success(file.path(), uint64_t{1} << 20);
  if (size > 1) expect_input_error_or_success(file.path(), size - 1);  // always too large
  try {
    attn::parse_embeddings(std::string(reinterpret_cast<const char*>(data), size), "<fuzz>");
  } catch (const attn::InputError&) {
  }
  return 0;
}
