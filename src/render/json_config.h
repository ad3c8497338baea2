// The "config" object of attn-walk's JSON documents (the walk's and check's).
#pragma once

#include <nlohmann/json.hpp>

#include "core/config.h"

namespace attn {

nlohmann::json config_json(const Config& c);

}  // namespace attn
