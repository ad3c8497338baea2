// Whether a learner's dump contradicts a recomputed mistake, over the whole dump: each given
// tensor must be what the mistaken code gives, or, in a class typed on its own and not
// computed from the part of the stage that differs, the chapter's (a learner may make a
// mistake in one class and not in another). A tensor that neither explains contradicts it.
#pragma once

#include "check/learner.h"
#include "check/variant.h"

namespace attn {

bool consistent(const DiagnosisInput& in, const LearnerSteps& steps);

}  // namespace attn
