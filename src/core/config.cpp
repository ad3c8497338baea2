#include "core/config.h"

namespace attn {

const std::vector<EnumName<InitKind>>& enum_names(InitKind) {
  static const std::vector<EnumName<InitKind>> names = {{"rand", InitKind::Rand}, {"randn", InitKind::Randn}};
  return names;
}

const std::vector<EnumName<DropoutKernel>>& enum_names(DropoutKernel) {
  static const std::vector<EnumName<DropoutKernel>> names = {{"default", DropoutKernel::Default},
                                                             {"mkl", DropoutKernel::Mkl}};
  return names;
}

const std::vector<EnumName<OptimizerKind>>& enum_names(OptimizerKind) {
  static const std::vector<EnumName<OptimizerKind>> names = {{"adamw", OptimizerKind::AdamW},
                                                             {"sgd", OptimizerKind::SGD}};
  return names;
}

// The kernels' names as torch/sgemm_order.h spells them; the machine's own choice is the
// option left out, so it has none.
const std::vector<EnumName<BlasKernelChoice>>& enum_names(BlasKernelChoice) {
  static const std::vector<EnumName<BlasKernelChoice>> names = {{"cooperlake", BlasKernelChoice::Cooperlake},
                                                                {"skylakex", BlasKernelChoice::SkylakeX},
                                                                {"haswell", BlasKernelChoice::Haswell}};
  return names;
}

const char* to_string(InitKind k) { return enum_name(k); }
const char* to_string(DropoutKernel k) { return enum_name(k); }
const char* to_string(OptimizerKind k) { return enum_name(k); }

}  // namespace attn
