// The backward stage's computed checks (a learner can trust them because they can fail).
#pragma once

#include "core/tensor.h"
#include "stages/common.h"

namespace attn {

// Every row of a softmax input's gradient sums to 0 (within tol); max_diff = the largest |sum|.
Comparison rows_sum_to_zero(const Tensor& t, double tol);
// Every entry above the diagonal of each (T, T) block is exactly 0; max_diff = the largest |entry|.
Comparison masked_exactly_zero(const Tensor& t);
// A float32 gradient against a float64 finite difference: |grad - fd| <= atol + rtol * |fd|.
Comparison gradient_matches(double grad, double fd, double rtol, double atol);

}  // namespace attn
