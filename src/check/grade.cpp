#include "check/grade.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace attn {

const char* to_string(Grade g) {
  switch (g) {
    case Grade::Equal: return "equal";
    case Grade::Close: return "close";
    case Grade::Differs: return "differs";
    default: return "not given";
  }
}

namespace {

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

Difference compare(const Tensor& got, const Tensor& expected, const Tolerance& tol) {
  Difference d;
  if (got.shape != expected.shape) {
    d.grade = Grade::Differs;
    d.shape_differs = true;
    d.max_abs_diff = std::numeric_limits<double>::infinity();
    return d;
  }
  bool bits = true, close = true;
  for (size_t i = 0; i < got.data.size(); ++i) {
    const float a = got.data[i], b = expected.data[i];
    if (same_bits(a, b)) continue;
    bits = false;
    double diff;
    if (std::isnan(a) && std::isnan(b)) continue;  // NaN where PyTorch has NaN
    if (a == b) diff = 0.0;                        // 0.0 and -0.0
    else if (std::isfinite(a) && std::isfinite(b)) diff = std::fabs(static_cast<double>(a) - b);
    else diff = std::numeric_limits<double>::infinity();
    // An infinity or NaN is close only to itself; finite values by torch.allclose's rule.
    if (!std::isfinite(diff) || diff > tol.atol + tol.rtol * std::fabs(static_cast<double>(b))) close = false;
    if (d.index < 0 || diff > d.max_abs_diff) {
      d.max_abs_diff = diff;
      d.index = static_cast<int64_t>(i);
    }
  }
  d.grade = bits ? Grade::Equal : close ? Grade::Close
                                        : Grade::Differs;
  return d;
}

std::vector<StepGrade> grade_walk(const Walk& walk,
                                  const std::vector<std::pair<std::string, Tensor>>& given,
                                  const Tolerance& tol) {
  std::vector<StepGrade> out;
  for (const auto& step : walk.steps) {
    StepGrade g;
    g.name = step.name;
    g.expected_shape = step.value.shape;
    for (const auto& [name, tensor] : given)
      if (name == step.name) {
        g.given_shape = tensor.shape;
        g.diff = compare(tensor, step.value, tol);
      }
    out.push_back(std::move(g));
  }
  return out;
}

std::vector<int64_t> unravel(int64_t flat, const Shape& shape) {
  std::vector<int64_t> idx(shape.size(), 0);
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] == 0) continue;
    idx[d] = flat % shape[d];
    flat /= shape[d];
  }
  return idx;
}

}  // namespace attn
