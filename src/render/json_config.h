// The "config" object of attn-walk's JSON documents (the walk's and check's).
#pragma once

#include <nlohmann/json.hpp>

#include "core/config_record.h"

namespace attn {

// The record as a JSON object: each dotted key ("bonus.heads") in its nested object, each
// object's keys sorted. The record (request/option_table.h's config_record) names every key.
nlohmann::json config_json(const ConfigRecord& record);

}  // namespace attn
