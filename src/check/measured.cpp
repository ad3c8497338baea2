#include "check/measured.h"

#include <fmt/format.h>

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "check/learner.h"
#include "check/lines.h"

namespace attn {

namespace {

// The chapter's step holding the scores that the weights at `step` are the softmax of.
const char* scores_of(const std::string& stage, const std::string& step, const Config& cfg) {
  if (stage == "trainable" && step == "attn_weights_2") return "attn_scores_2";
  if (stage == "causal" && step == "attn_weights") return "attn_scores";
  if (stage == "causal" && step == "attn_weights_causal") return "masked";
  if (stage == "multi-head" && step == "attn_weights" && cfg.attn_dropout == 0.0) return "attn_scores_masked";
  return nullptr;
}

const Tensor* walk_step(const Walk& walk, const std::string& name) {
  for (const auto& s : walk.steps)
    if (s.name == name) return &s.value;
  return nullptr;
}

// The divisor D of w = softmax(s / D), read off one row: ln w_i - ln w_j = (s_i - s_j) / D
// for the two kept entries farthest apart in score, in the row where they are farthest
// apart (the most digits). 0 if no row has two.
double measured_divisor(const Tensor& scores, const Tensor& weights) {
  const int64_t n = scores.dim() == 0 ? 1 : scores.size(-1);
  double best_spread = 0.0, divisor = 0.0;
  for (int64_t row = 0; row < scores.numel() / std::max<int64_t>(n, 1); ++row) {
    int64_t hi = -1, lo = -1;
    for (int64_t k = row * n; k < (row + 1) * n; ++k) {
      const float s = scores.data[k], w = weights.data[k];
      if (!std::isfinite(s) || !(w > 0.0f) || !std::isfinite(w)) continue;
      if (hi < 0 || s > scores.data[hi]) hi = k;
      if (lo < 0 || s < scores.data[lo]) lo = k;
    }
    if (hi < 0 || hi == lo) continue;
    const double spread = static_cast<double>(scores.data[hi]) - scores.data[lo];
    const double logs = std::log(static_cast<double>(weights.data[hi])) - std::log(static_cast<double>(weights.data[lo]));
    if (spread > best_spread && logs != 0.0) best_spread = spread, divisor = spread / logs;
  }
  return divisor;
}

// What a learner may have divided by, besides the chapter's sqrt(d_k): the number of tokens,
// MultiHeadAttention's d_out, and d_k typed wrong (1 and d_k itself are scale_missing and
// scale_by_d_k). Each is the learner's line lines::softmax_divided writes.
struct Candidate {
  lines::Size size;
  double power, factor;
  std::string expression;  // "√6"
  std::string code;        // "keys.shape[0] ** 0.5"
  std::string what;        // the key of its words in src/lang/ ("check.size.tokens"), or ""
  double value = 0.0;      // factor * size ** power, for this configuration
};

std::vector<Candidate> candidates(const std::string& stage, const Config& cfg, int64_t d_k) {
  const bool mha = stage == "multi-head";
  const int64_t T = cfg.num_tokens();
  const std::string tokens = mha ? "num_tokens" : "keys.shape[0]";
  std::vector<Candidate> out = {
      {lines::Size::Tokens, 0.5, 1.0, fmt::format("√{}", T), tokens + " ** 0.5", "check.size.tokens"},
      {lines::Size::Tokens, 1.0, 1.0, std::to_string(T), tokens, "check.size.tokens"},
      {lines::Size::Dk, 1.0, 2.0, fmt::format("2 · {}", d_k), "keys.shape[-1]**1/2", "check.size.precedence"},
      {lines::Size::Dk, 1.0, 0.5, fmt::format("{} / 2", d_k), "(keys.shape[-1]**1/2)", "check.size.half"},
      {lines::Size::Dk, -0.5, 1.0, fmt::format("1/√{}", d_k), "keys.shape[-1]**-0.5", "check.size.negative_power"}};
  if (mha) {
    out.push_back({lines::Size::DOut, 0.5, 1.0, fmt::format("√{}", cfg.d_out), "self.d_out ** 0.5",
                   "check.size.d_out_all_heads"});
    out.push_back({lines::Size::DOut, 1.0, 1.0, std::to_string(cfg.d_out), "self.d_out", "check.size.d_out_all_heads"});
  }
  for (Candidate& c : out) {
    const double size = c.size == lines::Size::Tokens ? T : c.size == lines::Size::DOut ? cfg.d_out
                                                                                        : d_k;
    c.value = c.factor * std::pow(size, c.power);
  }
  return out;
}

// The variants dividing by each candidate near `measured` (within 2%), with the evidence; by
// every candidate when nothing could be measured (measured 0: the weights were not given).
std::vector<Variant> near(const DiagnosisInput& in, double measured, bool after_softmax, int64_t d_k,
                          const std::vector<Candidate>& cands) {
  std::vector<Variant> out;
  for (const Candidate& c : cands) {
    if (measured > 0.0 && !(std::fabs(c.value - measured) <= 0.02 * measured)) continue;
    Variant v{{}, in.cfg, {}};
    lines::softmax_divided(v.cells, c.size, c.power, c.factor, after_softmax);
    v.vars = {{"value", fmt::format("{:.4g}", c.value)},
              {"expression", c.expression},
              {"code", c.code},
              {"what", c.what},
              {"measured", measured > 0.0 ? fmt::format("{:.4g}", measured) : "-"},
              {"chapter_value", fmt::format("{:.4g}", std::sqrt(static_cast<double>(d_k)))},
              {"d_k", std::to_string(d_k)},
              {"size", std::to_string(c.size == lines::Size::Tokens ? in.cfg.num_tokens()
                                      : c.size == lines::Size::DOut ? in.cfg.d_out
                                                                    : d_k)}};
    if (after_softmax) v.vars["row_sum"] = fmt::format("{:.4g}", 1.0 / c.value);  // softmax(s) / D
    out.push_back(v);
  }
  return out;
}

int64_t d_k_of(const std::string& stage, const Config& cfg) {
  return stage == "multi-head" && cfg.heads > 0 ? cfg.d_out / cfg.heads : cfg.d_out;
}

}  // namespace

// Stages whose attention weights come from scaled scores.
bool scales_scores(const std::string& stage) {
  return stage == "trainable" || stage == "causal" || stage == "dropout" || stage == "multi-head";
}

std::vector<Variant> wrong_divisor(const DiagnosisInput& in) {
  if (!scales_scores(in.stage)) return {};
  // Measured where the learner's weights and the chapter's scores are at hand; else every
  // candidate is tried on the stage.
  const char* scores_step = scores_of(in.stage, in.step, in.cfg);
  const Tensor* scores = scores_step ? walk_step(in.walk, scores_step) : nullptr;
  double measured = 0.0;
  if (scores && scores->shape == in.got.shape) {
    measured = measured_divisor(*scores, in.got);
    if (!(measured > 0.0) || !std::isfinite(measured)) return {};
  }
  const int64_t d_k = d_k_of(in.stage, in.cfg);
  return near(in, measured, false, d_k, candidates(in.stage, in.cfg, d_k));
}

std::vector<Variant> scaled_after_softmax(const DiagnosisInput& in) {
  if (!scales_scores(in.stage)) return {};
  // softmax(s) / D: every row sums to 1 / D. Measured on the weights if given.
  double sum = 0.0;
  if (scores_of(in.stage, in.step, in.cfg) && in.got.shape == in.expected.shape && in.got.dim() > 0) {
    for (int64_t k = 0; k < in.got.size(-1); ++k) sum += in.got.data[k];
    if (!(sum > 0.0) || std::fabs(sum - 1.0) < 1e-4) return {};
  }
  const int64_t d_k = d_k_of(in.stage, in.cfg);
  std::vector<Candidate> cands = candidates(in.stage, in.cfg, d_k);
  cands.push_back({lines::Size::Dk, 0.5, 1.0, fmt::format("√{}", d_k), "keys.shape[-1] ** 0.5", "",
                   std::sqrt(static_cast<double>(d_k))});
  cands.push_back({lines::Size::Dk, 1.0, 1.0, std::to_string(d_k), "keys.shape[-1]", "", static_cast<double>(d_k)});
  return near(in, sum > 0.0 ? 1.0 / sum : 0.0, true, d_k, cands);
}

std::vector<Variant> picked_wrong_row(const DiagnosisInput& in) {
  const int64_t q = in.cfg.query - 1;
  const Tensor& inputs = in.cfg.inputs;
  if (in.stage != "dot-product" && in.stage != "softmax" && in.stage != "trainable") return {};
  // The query itself given (query, x_2): the row it is. Otherwise every other row is tried.
  const bool is_query_row = in.got.shape == in.expected.shape && in.expected.dim() == 1 && inputs.dim() == 2 &&
                            compare(in.expected, inputs[q], in.tol).grade == Grade::Equal;
  std::vector<Variant> out;
  for (int64_t r = 0; r < inputs.size(0); ++r) {
    if (r == q || (is_query_row && compare(in.got, inputs[r], in.tol).grade == Grade::Differs)) continue;
    Variant v{{}, in.cfg, {}};
    v.config.query = r + 1;
    v.vars = {{"row", std::to_string(r)},
              {"x", std::to_string(r + 1)},
              {"token", static_cast<size_t>(r) < in.cfg.tokens.size() ? in.cfg.tokens[r] : ""},
              {"chapter_row", std::to_string(q)},
              {"chapter_x", std::to_string(q + 1)}};
    out.push_back(v);
  }
  return out;
}

std::vector<Variant> input_typed_wrong(const DiagnosisInput& in) {
  const Tensor& inputs = in.cfg.inputs;
  if (inputs.dim() != 2) return {};
  // The inputs themselves, or section 3.5.3's batch of their copies (its first copy).
  const bool batch = in.step == "batch" && in.got.dim() == 3 && in.got.size(0) > 0;
  if (in.step != "inputs" && !batch) return {};
  const Tensor mine = batch ? in.got[0] : in.got;
  if (mine.shape != inputs.shape) return {};
  // The value farthest off, and how many are not close.
  const int64_t d = inputs.size(1);
  int64_t worst = -1, count = 0;
  for (int64_t k = 0; k < inputs.numel(); ++k) {
    const double diff = std::fabs(static_cast<double>(mine.data[k]) - inputs.data[k]);
    if (compare(Tensor({}, {mine.data[k]}), Tensor({}, {inputs.data[k]}), in.tol).grade != Grade::Differs) continue;
    ++count;
    if (worst < 0 || diff > std::fabs(static_cast<double>(mine.data[worst]) - inputs.data[worst])) worst = k;
  }
  if (worst < 0) return {};
  Variant v{{}, in.cfg, {}};
  v.config.inputs = mine;  // the rest of the stage, computed from the learner's inputs
  const int64_t row = worst / d, col = worst % d;
  v.vars = {{"count", std::to_string(count)},
            {"row", std::to_string(row)},
            {"x", std::to_string(row + 1)},
            {"token", static_cast<size_t>(row) < in.cfg.tokens.size() ? in.cfg.tokens[row] : ""},
            {"column", std::to_string(col)},
            {"got", fmt::format("{}", mine.data[worst])},
            {"expected", fmt::format("{}", inputs.data[worst])},
            {"diff", fmt::format("{:.3g}", std::fabs(static_cast<double>(mine.data[worst]) - inputs.data[worst]))}};
  return {v};
}

// ---- the inputs, inferred from the learner's queries, keys and values --------------------

namespace {

// The steps whose row t is an affine function of inputs[t] alone (x @ W.T + b), per stage.
std::vector<std::string> row_steps(const std::string& stage) {
  if (stage == "causal") return {"queries", "keys"};
  if (stage == "trainable") return {"keys", "values"};
  if (stage == "multi-head") return {"keys", "queries", "values"};
  return {};
}

// Row 0 of a step's tensor (its first batch entry), as doubles.
std::vector<double> first_row(const Tensor& t) {
  const int64_t n = t.size(-1);
  return std::vector<double>(t.data.begin(), t.data.begin() + n);
}

// Least squares A x = y in float64 by Eigen's column-pivoting Householder QR; false if A's
// rank is below its columns (the inputs are not determined by the learner's tensors). Its
// threshold is the square root of the 1e-9 the normal equations' pivots were once held to.
bool least_squares(const std::vector<std::vector<double>>& A, const std::vector<double>& y, std::vector<double>& x) {
  const Eigen::Index rows = static_cast<Eigen::Index>(A.size()), n = A.empty() ? 0 : static_cast<Eigen::Index>(A[0].size());
  Eigen::MatrixXd a(rows, n);
  Eigen::VectorXd b(rows);
  for (Eigen::Index r = 0; r < rows; ++r) {
    for (Eigen::Index j = 0; j < n; ++j) a(r, j) = A[static_cast<size_t>(r)][static_cast<size_t>(j)];
    b(r) = y[static_cast<size_t>(r)];
  }
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(a);
  qr.setThreshold(std::sqrt(1e-9));
  if (n == 0 || qr.rank() < n) return false;
  const Eigen::VectorXd solved = qr.solve(b);
  x.assign(solved.data(), solved.data() + n);
  return solved.allFinite();
}

// The value a learner typed, if `v` is it to a few decimals (0.57 for 0.5700001); else `v`.
float as_typed(double v) {
  for (int decimals = 1; decimals <= 6; ++decimals) {
    const double p = std::pow(10.0, decimals), r = std::round(v * p) / p;
    if (std::fabs(r - v) <= 2e-5 * std::max(1.0, std::fabs(v))) return static_cast<float>(r);
  }
  return static_cast<float>(v);
}

}  // namespace

std::vector<Variant> input_inferred(const DiagnosisInput& in) {
  const Tensor& inputs = in.cfg.inputs;
  if (inputs.dim() != 2) return {};
  const int64_t T = inputs.size(0), d_in = inputs.size(1);
  // The learner's row steps, and how many equations they give each row.
  std::vector<std::pair<std::string, const Tensor*>> mine;
  int64_t equations = 0;
  for (const auto& name : row_steps(in.stage))
    for (const auto& [given, tensor] : in.given)
      if (given == name && tensor.dim() >= 2 && tensor.size(-2) == T) {
        mine.emplace_back(name, &tensor);
        equations += tensor.size(-1);
      }
  // More equations than unknowns, or any queries would be explained by some input; a small
  // d_in, as each unknown costs a run of the stage.
  if (mine.empty() || equations <= d_in || d_in > 64) return {};
  // The stage's own computation, probed: with every input row e_j, row 0 of a step is its
  // bias plus the j-th row of its matrix.
  Config probe = in.cfg;
  probe.inputs = Tensor::zeros({T, d_in});
  std::map<std::string, std::vector<double>> bias;
  std::map<std::string, std::vector<std::vector<double>>> rows;  // [j] -> row of the matrix
  for (int64_t j = -1; j < d_in; ++j) {
    for (int64_t t = 0; j >= 0 && t < T; ++t)
      for (int64_t k = 0; k < d_in; ++k) probe.inputs(t, k) = k == j ? 1.0f : 0.0f;
    const LearnerSteps steps = learner_stage(in.stage, probe, Slips{});
    for (const auto& [name, tensor] : mine) {
      const auto it = steps.find(name);
      if (it == steps.end() || it->second.size(-1) != tensor->size(-1)) return {};
      std::vector<double> r = first_row(it->second);
      if (j < 0) {
        bias[name] = r;
        continue;
      }
      for (size_t k = 0; k < r.size(); ++k) r[k] -= bias[name][k];
      rows[name].push_back(r);
    }
  }
  // Each row of the inputs, solved from the learner's tensors (the first batch entry).
  Tensor inferred = inputs;
  int64_t count = 0, worst = -1;
  double worst_diff = 0.0;
  for (int64_t t = 0; t < T; ++t) {
    std::vector<std::vector<double>> A;
    std::vector<double> y, x;
    for (const auto& [name, tensor] : mine) {
      const int64_t n = tensor->size(-1);
      for (int64_t k = 0; k < n; ++k) {
        std::vector<double> a(static_cast<size_t>(d_in));
        for (int64_t j = 0; j < d_in; ++j) a[j] = rows[name][j][k];
        A.push_back(a);
        y.push_back(tensor->data[t * n + k] - bias[name][k]);
      }
    }
    if (!least_squares(A, y, x)) return {};
    for (int64_t j = 0; j < d_in; ++j) {
      const double was = inputs(t, j), diff = std::fabs(x[j] - was);
      if (!(diff <= 1e-4 * std::max(1.0, std::fabs(was)))) {
        inferred(t, j) = as_typed(x[j]);
        ++count;
        if (diff > worst_diff || !std::isfinite(diff)) worst_diff = diff, worst = t * d_in + j;
      }
    }
  }
  if (count == 0 || worst < 0) return {};
  Variant v{{}, in.cfg, {}};
  v.config.inputs = inferred;
  const int64_t row = worst / d_in, col = worst % d_in;
  // A row that is another row of the inputs: that row picked (or pasted) twice.
  std::string same_row;
  for (int64_t r = 0; r < T; ++r)
    if (r != row && compare(inferred[row], inputs[r], in.tol).grade != Grade::Differs) same_row = std::to_string(r);
  std::string from;
  for (const auto& [name, tensor] : mine) from += (from.empty() ? "" : ", ") + name;
  v.vars = {{"count", std::to_string(count)},
            {"from", from},
            {"row", std::to_string(row)},
            {"x", std::to_string(row + 1)},
            {"token", static_cast<size_t>(row) < in.cfg.tokens.size() ? in.cfg.tokens[row] : ""},
            {"column", std::to_string(col)},
            {"got", fmt::format("{}", inferred(row, col))},
            {"expected", fmt::format("{}", inputs(row, col))},
            {"diff", fmt::format("{:.3g}", std::fabs(static_cast<double>(inferred(row, col)) - inputs(row, col)))},
            {"same_row", same_row.empty() ? "" : "check.same_row"},
            {"other_row", same_row}};
  return {v};
}

}  // namespace attn
