#include "stages/common.h"

#include "ops.h"

namespace attn {

Tensor dot_scores(const Tensor& inputs, const Tensor& query) {
  const int64_t T = inputs.size(0);
  Tensor scores = Tensor::zeros({T});  // (T,)
  for (int64_t i = 0; i < T; ++i) scores(i) = dot(inputs[i], query).item();
  return scores;
}

}  // namespace attn
