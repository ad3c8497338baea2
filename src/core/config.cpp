#include "core/config.h"

namespace attn {

const char* to_string(InitKind k) { return k == InitKind::Rand ? "rand" : "randn"; }
const char* to_string(DropoutKernel k) { return k == DropoutKernel::Default ? "default" : "mkl"; }

}  // namespace attn
