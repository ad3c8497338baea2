// Section 3.3.1: three ways to normalise attention scores, and why PyTorch's softmax
// subtracts the maximum first. Texts: src/lang/ (key "softmax/<step>").
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/number_format.h"
#include "ops/ops.h"
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

// What the naive softmax's output holds once exp has overflowed: every score whose exp is
// inf makes the sum inf, so those entries are inf / inf = nan, and every finite exp divided
// by inf is 0. The text counts both.
void naive_overflow_facts(Walk& walk, Step& big_naive_step, const Tensor& big_naive) {
  int64_t nan = 0, zero = 0;
  for (float v : big_naive.data) {
    if (std::isnan(v)) ++nan;
    else if (v == 0.0f) ++zero;
  }
  walk.vars["n_nan"] = std::to_string(nan);
  walk.vars["n_zero"] = std::to_string(zero);
  if (zero == 0) big_naive_step.variant = "all_nan";
}

// How the stable softmax shares the weight out among large scores: the tokens that get at
// least 1% of it, largest first, and what the others get together.
void big_weights_facts(Walk& walk, Step& big_weights_step, const Tensor& w) {
  std::vector<int64_t> order(static_cast<size_t>(w.numel()));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return w(a) > w(b); });
  size_t shown = 0;
  double rest = 0.0;
  for (int64_t i : order) {
    if (w(i) >= 0.01f) ++shown;
    else rest += w(i);
  }
  auto& v = walk.vars;
  for (size_t k = 0; k < 2 && k < order.size(); ++k) {
    v[fmt::format("w{}_tok", k + 1)] = fmt::format("x({})", order[k] + 1);
    v[fmt::format("w{}", k + 1)] = python_fixed(w(order[k]), 4);
  }
  v["n_shared"] = std::to_string(shown);
  v["rest"] = fmt::format("{:.1e}", rest);
  if (shown != 2) big_weights_step.variant = shown <= 1 ? "one_hot" : "many";
}

}  // namespace

Walk run_softmax(const Config& cfg) {
  Walk walk("softmax", cfg);
  set_common_vars(walk, cfg);
  walk.section = "3.3.1";
  const Tensor& inputs = cfg.inputs;

  const Tensor& attn_scores_2 = walk.add("attn_scores_2", Role::Scores, dot_scores(inputs, query_row(cfg)));

  // 1. Divide by the sum: sums to 1, but is not how attention is normalised.
  const Tensor& tmp = walk.add("attn_weights_2_tmp", div_keepdim(attn_scores_2, sum_all(attn_scores_2)));
  label_last(walk, "Attention weights:");  // print("Attention weights:", attn_weights_2_tmp)
  walk.add("attn_weights_2_tmp_sum", sum_all(tmp));
  label_last(walk, "Sum:");

  // 2. The naive softmax: exp(x) / Σ exp(x). Always positive, but exp can overflow.
  const Tensor& naive = walk.add("attn_weights_2_naive", softmax_naive(attn_scores_2));
  label_last(walk, "Attention weights:");
  walk.add("attn_weights_2_naive_sum", sum_all(naive));
  label_last(walk, "Sum:");

  // 3. torch.softmax: exp(x - max(x)) / Σ exp(x - max(x)), the same values, never overflows.
  const Tensor& stable = walk.add("attn_weights_2", softmax_lastdim(attn_scores_2));
  label_last(walk, "Attention weights:");
  add_check(walk, "softmax_naive_equals_torch_softmax", compare_close(naive, stable));
  walk.add("attn_weights_2_sum", sum_all(stable));
  label_last(walk, "Sum:");

  const Tensor& attn_weights =
      walk.add("attn_weights", Role::Weights, softmax_lastdim(matmul_transposed(inputs, inputs)));
  walk.add("attn_weights_row_sums", sum_lastdim(attn_weights, false));
  add_check(walk, "softmax_rows_sum_to_1", rows_sum_to_one(attn_weights));

  // Beyond the chapter from here on (its texts say so): why the maximum is subtracted,
  // since scores large enough make exp overflow.
  const size_t first_addition = walk.steps.size();
  const double scale = overflow_scale(attn_scores_2);
  walk.vars["big_scale"] = format_number(scale);
  walk.add("overflow_scale", Tensor::scalar(static_cast<float>(scale)));
  Step& overflow_scale_step = walk.last();
  const Tensor& big = walk.add("big_scores_2", mul_scalar(attn_scores_2, scale));
  Step& big_scores_step = walk.last();
  const Tensor& big_naive = walk.add("big_weights_2_naive", softmax_naive(big));
  walk.steps.back().shows_nonfinite = true;  // what this step is for
  naive_overflow_facts(walk, walk.last(), big_naive);
  if (!any_non_finite(big_naive))  // no scale overflowed (e.g. all scores 0): say so
    for (Step* step : {&overflow_scale_step, &big_scores_step, &walk.last()}) step->variant = "no_overflow";
  const Tensor& big_stable = walk.add("big_weights_2", softmax_lastdim(big));
  big_weights_facts(walk, walk.last(), big_stable);
  {
    Comparison c = rows_sum_to_one(big_stable);
    c.passed = c.passed && !any_non_finite(big_stable);
    add_check(walk, "softmax_stays_finite", c);
  }

  // Temperature: dividing the scores (as by sqrt(d_k) later) flattens the weights;
  // multiplying sharpens them.
  walk.add("attn_weights_2_sharp", softmax_lastdim(div_scalar(attn_scores_2, 0.5)));
  walk.add("attn_weights_2_flat", softmax_lastdim(div_scalar(attn_scores_2, 2.0)));
  mark_beyond_chapter(walk, first_addition);
  return walk;
}

}  // namespace attn
