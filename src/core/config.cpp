#include "core/config.h"

namespace attn {

const char* to_string(InitKind k) { return k == InitKind::Rand ? "rand" : "randn"; }
const char* to_string(DropoutKernel k) { return k == DropoutKernel::Default ? "default" : "mkl"; }
const char* to_string(OptimizerKind k) { return k == OptimizerKind::AdamW ? "adamw" : "sgd"; }

}  // namespace attn
