// The weights readers' errors in each language (src/weights/weights_errors.h gives each its id
// and placeholders; weights/ may include only core/, so the request and the page say them).
#pragma once

#include <map>
#include <string>

#include "lang/lang.h"

namespace attn {

LangTable weights_errors_en();  // weights_errors_en.cpp
LangTable weights_errors_zh();  // weights_errors_zh.cpp

// A weights reader's error in `lang`: its "weights.err.<id>" filled with `vars` (a placeholder
// with an id beside it, {reason} and {reason_id} "ENOENT", said in the language's words:
// "weights.reason.ENOENT"), or `english`, the reader's own message, for English and for an
// error without an id.
std::string weights_error_text(Lang lang, const std::string& id, std::map<std::string, std::string> vars,
                               const std::string& english);

}  // namespace attn
