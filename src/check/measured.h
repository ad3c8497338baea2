// Mistakes whose number is read off the learner's tensor, as a teacher would: the divisor
// they used (measured from their weights and the chapter's scores, then named among the
// sizes at hand), the row of inputs they picked, the value they typed. Each gives the
// variants (diagnoses.h) that recompute it; diagnose() keeps those that reproduce the dump.
#pragma once

#include <vector>

#include "check/variant.h"

namespace attn {

std::vector<Variant> wrong_divisor(const DiagnosisInput& in);         // attn_scores / T ** 0.5, ...
std::vector<Variant> scaled_after_softmax(const DiagnosisInput& in);  // torch.softmax(s) / d_k ** 0.5
std::vector<Variant> picked_wrong_row(const DiagnosisInput& in);      // query = inputs[2] for x(2)
std::vector<Variant> input_typed_wrong(const DiagnosisInput& in);     // a value of inputs mistyped
// A value of inputs mistyped, read back from the learner's queries, keys and values when
// the inputs themselves are not given: each row solved (least squares) from the stage's
// own matrices, which are probed by running the stage on unit inputs.
std::vector<Variant> input_inferred(const DiagnosisInput& in);

}  // namespace attn
