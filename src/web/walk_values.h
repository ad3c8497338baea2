// The values a walk used, by the options' long names, for the page's controls: a box shows the
// value the walk on the page used (its default too, as a value), and the bonus stages' own sizes
// (d_out 8, 4 heads) where the chapter's defaults (2 and 2) would mislead.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "core/walk.h"

namespace attn {

// {"used": {"d-out": "8", "heads": "4", "query": "2", ...},   what the walk used
//  "defaults": {"d-out": "8", "heads": "4"},                  where they are not the table's
//  "tokens": T}
// for the first walk of `walks` (a group walks one input with one Config); {} if none.
nlohmann::json walk_values(const std::vector<Walk>& walks);

}  // namespace attn
