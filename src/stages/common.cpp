#include "stages/common.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "ops/ops.h"

namespace attn {

Tensor dot_scores(const Tensor& inputs, const Tensor& query) {
  const int64_t T = inputs.size(0);
  Tensor scores = Tensor::zeros({T});  // (T,)
  for (int64_t i = 0; i < T; ++i) scores(i) = dot(inputs[i], query).item();
  return scores;
}

Tensor loop_context_vectors(const Tensor& attn_weights, const Tensor& inputs) {
  const int64_t T = attn_weights.size(0), d = inputs.size(1);
  Tensor out = Tensor::zeros({T, d});
  for (int64_t q = 0; q < T; ++q)
    for (int64_t i = 0; i < inputs.size(0); ++i)
      for (int64_t k = 0; k < d; ++k) out(q, k) += attn_weights(q, i) * inputs(i, k);
  return out;
}

std::string format_number(double v) {
  // As Python prints a float: 0.5, 2.0, 1.4285714285714286 is shortened to 1.42857.
  std::string s = fmt::format("{:g}", v);
  if (s.find_first_of(".eni") == std::string::npos) s += ".0";
  return s;
}

std::string python_float_str(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

void set_common_vars(Walk& walk, const Config& cfg) {
  auto& v = walk.vars;
  v["query"] = std::to_string(cfg.query);
  v["q"] = std::to_string(cfg.query - 1);  // its 0-based row index
  v["xq"] = fmt::format("x({})", cfg.query);
  v["T"] = std::to_string(cfg.num_tokens());
  v["d_in"] = std::to_string(cfg.d_in());
  v["d_out"] = std::to_string(cfg.d_out);
  v["seed1"] = std::to_string(cfg.seed1);
  v["seed2"] = std::to_string(cfg.seed2);
  v["heads"] = std::to_string(cfg.heads);
  v["head_dim"] = cfg.heads > 0 && cfg.d_out % cfg.heads == 0 ? std::to_string(cfg.d_out / cfg.heads) : "?";
  v["p"] = format_number(cfg.dropout);
  v["keep"] = format_number(1.0 - cfg.dropout);
  v["scale"] = cfg.dropout < 1.0 ? format_number(1.0 / (1.0 - cfg.dropout)) : "inf";
  v["attn_p"] = format_number(cfg.attn_dropout);
  v["batch"] = std::to_string(cfg.batch);
  v["init"] = to_string(cfg.init);
  v["bias_arg"] = cfg.qkv_bias ? ", qkv_bias=True" : "";
}

// ---- checks ----------------------------------------------------------------------------

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Row sums of the last dimension, in double so the check itself adds no rounding.
std::vector<double> row_sums(const Tensor& t) {
  const int64_t n = t.dim() == 0 ? 1 : t.size(-1);
  std::vector<double> sums;
  if (n == 0) return sums;
  for (int64_t start = 0; start < t.numel(); start += n) {
    double s = 0.0;
    for (int64_t k = 0; k < n; ++k) s += t.data[static_cast<size_t>(start + k)];
    sums.push_back(s);
  }
  return sums;
}

double max_row_deviation(const Tensor& t) {
  double worst = 0.0;
  for (double s : row_sums(t)) worst = std::isnan(s) ? kInf : std::max(worst, std::fabs(s - 1.0));
  return worst;
}

}  // namespace

Comparison compare_close(const Tensor& a, const Tensor& b, double rtol, double atol) {
  if (a.shape != b.shape) return {false, kInf};
  double scale = 0.0;  // the size of b's values, so entries that cancel to ~0 are judged fairly
  for (float y : b.data)
    if (std::isfinite(y)) scale = std::max(scale, std::fabs(static_cast<double>(y)));
  Comparison c{true, 0.0};
  for (size_t i = 0; i < a.data.size(); ++i) {
    const double x = a.data[i], y = b.data[i];
    if (x == y) continue;  // also equal infinities
    const double d = std::fabs(x - y);
    if (std::isnan(d)) {
      c.passed = false;
      c.max_diff = kInf;
      continue;
    }
    c.max_diff = std::max(c.max_diff, d);
    if (d > atol + rtol * scale) c.passed = false;
  }
  return c;
}

Comparison rows_sum_to_one(const Tensor& t, double tol) {
  const double worst = max_row_deviation(t);
  return {worst <= tol, worst};
}

Comparison rows_do_not_sum_to_one(const Tensor& t, double tol) {
  const double worst = max_row_deviation(t);
  return {worst > tol, worst};
}

Comparison zero_above_diagonal(const Tensor& t) {
  if (t.dim() < 2 || t.size(-1) != t.size(-2)) return {false, kInf};
  const int64_t T = t.size(-1);
  Comparison c{true, 0.0};
  for (int64_t start = 0; start < t.numel(); start += T * T)
    for (int64_t i = 0; i < T; ++i)
      for (int64_t j = i + 1; j < T; ++j) {
        const double w = t.data[static_cast<size_t>(start + i * T + j)];
        if (w != 0.0) {
          c.passed = false;
          c.max_diff = std::isnan(w) ? kInf : std::max(c.max_diff, std::fabs(w));
        }
      }
  return c;
}

Comparison zero_or_value(const Tensor& t, float kept, double tol) {
  Comparison c{true, 0.0};
  for (float v : t.data) {
    const double d = std::min(std::fabs(static_cast<double>(v)), std::fabs(static_cast<double>(v) - kept));
    if (std::isnan(d)) c.max_diff = kInf;
    else c.max_diff = std::max(c.max_diff, d);
  }
  c.passed = c.max_diff <= tol * (1.0 + std::fabs(static_cast<double>(kept)));
  return c;
}

}  // namespace attn
