// The lines under a step's tensor, the same in text, JSON and HTML.
#pragma once

#include <string>
#include <vector>

#include "core/walk.h"

namespace attn {

// The step's details, then its parameter table (if any) in aligned columns:
//   "  W_query.weight   (768, 768) =   589,824"  ...  "  total = 2,360,064"
std::vector<std::string> detail_lines(const Step& step);

}  // namespace attn
