// A learner's dump: the tensors of their own notebook, by the chapter's step names.
//
// Accepted JSON forms:
//   {"queries": [[...], ...], "attn_weights": [[...], ...], "attn_score_22": 1.2, ...}
//   attn-walk's own --format json output ({"tool": "attn-walk", "steps": [{"name", "data"}]})
// Numbers are stored as float32, as torch.tensor would; "inf", "-inf" and "nan" (strings, as
// attn-walk and tools/attn_walk_dump.py write them) and JSON numbers too large for a float
// are infinities. Every problem throws InputError naming the source and, for syntax
// errors, the line and column; for a bad value, the step and the index inside it.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"

namespace attn {

struct Dump {
  // In the order of the file; names are unique within one stage.
  std::vector<std::pair<std::string, Tensor>> tensors;
  // The stage of each tensor when the dump is attn-walk's own output ("" otherwise).
  std::vector<std::string> stages;
  std::string stage;  // attn-walk's output: its "stage" ("all" for several); else ""
};

// Pure: bytes and the name of their source ("mine.json", "<stdin>") to tensors.
Dump parse_dump(const std::string& text, const std::string& source);

// Read a file ("-" is standard input) and parse it.
Dump load_dump(const std::string& path);

}  // namespace attn
