// The weights readers' messages by id: each error says what it is ("key_missing") and its
// placeholders ({path}, {key}, ...), so that a learner reads it in their language
// ("weights.err.<id>" in src/lang/weights_errors_*.cpp, with the same placeholders); what() is
// the English text, made from the template both share (core/weights_error_templates.h).
#pragma once

#include <map>
#include <string>

#include "core/weights_error_templates.h"

namespace attn {

using WeightsErrorVars = std::map<std::string, std::string>;

// The English text of message `id` with its placeholders filled.
std::string weights_error_english(const std::string& id, const WeightsErrorVars& vars);

// The symbolic name of an errno the readers report ("ENOENT"), or "" for another: an error's
// {reason_id}, beside {reason} (strerror's words), so that the languages say the common ones
// in theirs ("weights.reason.ENOENT"). Likewise {kind_id} and {what_id} of a pickle's objects.
std::string weights_errno_name(int err);

}  // namespace attn
