// attn-walk check --format html: the report as one self-contained HTML fragment, for a
// notebook's output cell (python/attn_walk shows it) or any page. It loads nothing: its
// style is inline, every text is escaped.
#pragma once

#include <string>

#include "check/check.h"
#include "lang/lang.h"

namespace attn {

// <div class="attn-walk-check">: a heading, the verdict (the first step that differs, or
// that every tensor given matches), a table of the steps with their marks (✓ ≈ ✗ ·), the
// rows around the first difference from both tensors (cells that are not close marked),
// the walk's own checks on the learner's tensor, and each cause with its message.
std::string render_check_html(const CheckReport& r, Lang lang);

}  // namespace attn
