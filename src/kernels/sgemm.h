// OpenBLAS's sgemm, fast: the kernel and the order of every output's sum that
// torch/sgemm_order.h defines, computed with the register-tiled chains of kernels/gemm.h on
// all threads. The same bits as sgemm_reference().
#pragma once

#include "torch/sgemm_order.h"

namespace attn::kernels {

// C = A @ B [+ bias] for one call. When A's rows end in zeros (causal attention weights),
// those products are skipped, exactly.
void sgemm(const SgemmCall& call);

}  // namespace attn::kernels
