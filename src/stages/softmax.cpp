// Section 3.3.1: three ways to normalise attention scores, and why PyTorch's softmax
// subtracts the maximum first.
#include <fmt/format.h>

#include <cmath>

#include "ops.h"
#include "stages/common.h"
#include "stages/stages.h"

namespace attn {

namespace {

bool any_non_finite(const Tensor& t) {
  for (float v : t.data)
    if (!std::isfinite(v)) return true;
  return false;
}

// The smallest power of ten that makes the naive softmax overflow (exp > FLT_MAX)
// for these scores; 100 if no scale does (e.g. all scores are zero).
double overflow_scale(const Tensor& scores) {
  for (int k = 1; k <= 38; ++k) {
    const double scale = std::pow(10.0, k);
    const Tensor scaled = mul_scalar(scores, scale);
    if (any_non_finite(scaled)) break;
    if (any_non_finite(softmax_naive(scaled))) return scale;
  }
  return 100.0;
}

}  // namespace

Walk run_softmax(const Config& cfg) {
  Walk walk("softmax", cfg);
  const Tensor& inputs = cfg.inputs;

  const Tensor& attn_scores_2 = walk.add(
      "attn_scores_2", fmt::format("attention scores of the query x({})", cfg.query),
      dot_scores(inputs, query_row(cfg)));

  // 1. Divide by the sum: sums to 1, but is not how attention is normalised.
  const Tensor& tmp = walk.add("attn_weights_2_tmp", "attn_scores_2 / attn_scores_2.sum()",
                               div_keepdim(attn_scores_2, sum_all(attn_scores_2)));
  walk.add("attn_weights_2_tmp_sum", "its sum", sum_all(tmp));

  // 2. The naive softmax: exp(x) / Σ exp(x). Always positive, but exp can overflow.
  const Tensor& naive = walk.add("attn_weights_2_naive", "softmax_naive: exp(x) / exp(x).sum()",
                                 softmax_naive(attn_scores_2));
  walk.add("attn_weights_2_naive_sum", "its sum", sum_all(naive));

  // 3. torch.softmax: exp(x - max(x)) / Σ exp(x - max(x)), the same values, never overflows.
  const Tensor& stable = walk.add("attn_weights_2", "torch.softmax(attn_scores_2, dim=0)",
                                  softmax_lastdim(attn_scores_2));
  walk.add("attn_weights_2_sum", "its sum", sum_all(stable));

  const Tensor& attn_weights = walk.add(
      "attn_weights", "torch.softmax(inputs @ inputs.T, dim=-1) for every query",
      softmax_lastdim(matmul(inputs, transpose2d(inputs))));
  walk.add("attn_weights_row_sums", "every row sums to 1", sum_lastdim(attn_weights, false));

  // Why the maximum is subtracted: make the scores large enough and exp overflows.
  const double scale = overflow_scale(attn_scores_2);
  walk.add("overflow_scale", "a scale that makes exp(score) overflow float32",
           Tensor::scalar(static_cast<float>(scale)));
  const Tensor& big = walk.add("big_scores_2", fmt::format("attn_scores_2 * {:g}", scale),
                               mul_scalar(attn_scores_2, scale));
  walk.add("big_weights_2_naive", "softmax_naive(big_scores_2): exp overflows to inf, inf/inf is nan",
           softmax_naive(big));
  walk.add("big_weights_2", "torch.softmax(big_scores_2, dim=0): still finite, sums to 1",
           softmax_lastdim(big));

  // Temperature: dividing the scores (as by sqrt(d_k) later) flattens the weights;
  // multiplying sharpens them.
  walk.add("attn_weights_2_sharp", "torch.softmax(attn_scores_2 / 0.5): sharper, closer to one-hot",
           softmax_lastdim(div_scalar(attn_scores_2, 0.5)));
  walk.add("attn_weights_2_flat", "torch.softmax(attn_scores_2 / 2.0): flatter, closer to uniform",
           softmax_lastdim(div_scalar(attn_scores_2, 2.0)));
  return walk;
}

}  // namespace attn
