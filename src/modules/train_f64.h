// chapter 5's loss in float64, for a finite-difference check of one gradient entry.
#pragma once

#include <string>

#include "modules/train.h"

namespace attn {

// The loss of the forward pass `a` (same batch, targets and dropout mask) in float64, with
// parameter `param`'s element `index` (row-major) shifted by delta.
double loss_f64(const AttentionLM& m, const Activations& a, const std::string& param, int64_t index, double delta);
// (loss(+h) - loss(-h)) / 2h: the central difference, off from the derivative by O(h²).
double finite_difference(const AttentionLM& m, const Activations& a, const std::string& param, int64_t index,
                         double h);

}  // namespace attn
