// The JSON output's "config": what a walk's Config records, key by key. The request layer
// builds it from the option table (request/option_table.h: each row's .records keys, and the
// input's own); the renderers write it as it is and know no key.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace attn {

// A recorded value: null (an option not given that has no default), or a JSON scalar.
using RecordValue = std::variant<std::nullptr_t, bool, int64_t, uint64_t, double, std::string>;

struct RecordedValue {
  std::string key;  // nested objects' keys joined by dots: "bonus.latent_dim"
  RecordValue value;
};
// In the table's order (the input's keys first); the JSON writes each object's keys sorted.
using ConfigRecord = std::vector<RecordedValue>;

}  // namespace attn
