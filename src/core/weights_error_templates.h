// The weights readers' messages in English, by id: one table, which the readers fill for what()
// (src/weights/weights_errors.h) and src/lang/ says as the English words of "weights.err.<id>"
// (the other languages say each with the same placeholders). Here, in core/, because weights/
// and lang/ may both include core/ and neither the other.
#pragma once

#include <map>
#include <string>

namespace attn {

// Every message's English template, by id: "{path}: cannot open the weights file: {reason}".
const std::map<std::string, std::string>& weights_error_templates();

}  // namespace attn
