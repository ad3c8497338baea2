#include "stages/backward_checks.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attn {

namespace {
constexpr double kNanDifference = std::numeric_limits<double>::infinity();  // the difference a NaN makes
}  // namespace

Comparison rows_sum_to_zero(const Tensor& t, double tol) {
  const int64_t n = t.size(-1);
  double worst = 0.0;
  for (int64_t r = 0; r < t.numel() / n; ++r) {
    double s = 0.0;
    for (int64_t i = 0; i < n; ++i) s += t.data[r * n + i];
    worst = std::isnan(s) ? kNanDifference : std::max(worst, std::fabs(s));  // a NaN row sums to nothing
  }
  return {worst <= tol, worst};
}

Comparison masked_exactly_zero(const Tensor& t) {
  const int64_t T = t.size(-1);
  double worst = 0.0;
  bool all_zero = true;
  for (int64_t k = 0; k < t.numel(); ++k)
    if ((k % T) > (k / T) % T && t.data[k] != 0.0f) {
      all_zero = false;
      worst = std::isnan(t.data[k]) ? kNanDifference : std::max(worst, std::fabs(static_cast<double>(t.data[k])));
    }
  return {all_zero, worst};
}

Comparison gradient_matches(double grad, double fd, double rtol, double atol) {
  const double diff = std::fabs(grad - fd);
  return {diff <= atol + rtol * std::fabs(fd), diff};
}

}  // namespace attn
