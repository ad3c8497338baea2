// Whether a learner's dump contradicts a recomputed mistake, over the whole dump: each given
// tensor must be what the mistaken code gives, or, in a class typed on its own and not
// computed from the part of the stage that differs, the chapter's (a learner may make a
// mistake in one class and not in another). A tensor that neither explains contradicts it.
#pragma once

#include "check/learner.h"
#include "check/variant.h"

namespace attn {

bool consistent(const DiagnosisInput& in, const LearnerSteps& steps);

// A whole notebook (in.others): the mistake, written as `v` writes it, against the other
// stages' tensors that the same part of the notebook computes. Those parts are section 3.5.1's
// cells (the causal stage, and the causal weights the dropout stage takes from them and drops
// out), the CausalAttention class (the dropout stage's, run again by the wrapper and exercise
// 3.2), and sa_v2's parameters: section 3.5.1 computes its queries and keys with sa_v2's own
// W_query and W_key, so a mistake there leaves sa_v2's parameters as the dump holds them, and a
// mistake that changes them (in the SelfAttention_v2 class, or its seed) shows in every use of
// them, sa_v2 and exercise 3.1's v2 (the same class) as well as 3.5.1. Each such tensor must be
// what the mistaken code gives there. Tensors of other parts may hold other mistakes: they are
// their own stage's report.
bool consistent_elsewhere(const DiagnosisInput& in, const Variant& v);

}  // namespace attn
