#pragma once
// A step's role by name, as JSON writes it (steps[].role, docs/json-schema.md).

#include "core/walk.h"

namespace attn {

// "value", "parameter", "scores", "weights", "dropped_weights", "mask_hidden", "mask_kept",
// "series" (core/walk.cpp). A switch with no default: a new role without a name is -Wswitch,
// an error there.
const char* role_name(Role r);

}  // namespace attn
