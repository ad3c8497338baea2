// The ways of writing chapter 4's slips (rows of diagnoses.cpp's table), each with the
// evidence its message shows, read off the learner's tensors and the chapter's walk.
#pragma once

#include <vector>

#include "check/variant.h"

namespace attn::gpt_slips {

std::vector<Variant> layer_norm_var_unbiased(const DiagnosisInput& in);
std::vector<Variant> layer_norm_wrong_dim(const DiagnosisInput& in);
std::vector<Variant> shortcut_missing(const DiagnosisInput& in);
std::vector<Variant> gelu_exact(const DiagnosisInput& in);
std::vector<Variant> conv1d_not_transposed(const DiagnosisInput& in);

}  // namespace attn::gpt_slips
