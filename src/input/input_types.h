// What every reader in input/ returns and throws: the embeddings a walk starts from, and the
// error for bad input data. Apart from embeddings.h so that the readers it dispatches to
// (npy.h, input_stream, size_limits, the JSON readers' shared embeddings_detail.h) include
// these without including it back.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace attn {

// Bad input data (exit code 1). The message is complete and ready for stderr.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

namespace input_detail {
// Every reader's stop: "<source>: <message>", thrown as an InputError.
[[noreturn]] inline void fail(const std::string& source, const std::string& message) {
  throw InputError(source + ": " + message);
}
}  // namespace input_detail

struct Embeddings {
  std::vector<std::string> tokens;
  Tensor inputs;  // (T, d_in), float32 as torch.tensor(...) would store it
};

}  // namespace attn
