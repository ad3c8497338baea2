// Option parsing and validation: the fuzzer's bytes, split at NUL bytes, are argv. Every
// argv must be accepted or refused with UsageError (exit 2) or InputError (exit 1, e.g. a
// walk too large for memory); nothing is run, printed or written (attn::check_cli).
#include <cstdint>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "input/embeddings.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> args(1);
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == '\0') {
      if (args.size() == 64) break;
      args.emplace_back();
    } else {
      args.back() += static_cast<char>(data[i]);
    }
  }
  if (args.size() == 1 && args[0].empty()) args.clear();
  try {
    attn::check_cli(args);
  } catch (const attn::UsageError&) {
  } catch (const attn::InputError&) {
  }
  return 0;
}
