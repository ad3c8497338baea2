// The same loss in float64 (its products by Eigen, the rest as plain loops), for the
// finite-difference check of a gradient: independent of every float32 kernel above.
#include "modules/train_f64.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <Eigen/Dense>

namespace attn {

namespace {

using Vec = std::vector<double>;
using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

Vec to_f64(const Tensor& t) { return Vec(t.data.begin(), t.data.end()); }

// y (rows, out) = x (rows, in) @ W.T + b, by Eigen in float64.
Vec linear_f64(const Vec& x, int64_t rows, int64_t in, const Vec& w, int64_t out, const Vec* b) {
  const Eigen::Map<const RowMajor> X(x.data(), rows, in), W(w.data(), out, in);
  RowMajor y = X * W.transpose();
  if (b) y.rowwise() += Eigen::Map<const Eigen::RowVectorXd>(b->data(), out);
  return Vec(y.data(), y.data() + rows * out);
}

}  // namespace

double loss_f64(const AttentionLM& m, const Activations& a, const std::string& param, int64_t index, double delta) {
  const MultiHeadAttention& mha = m.mha;
  const int64_t B = a.batch.size(0), T = a.batch.size(1), d_in = a.batch.size(2);
  const int64_t d = mha.d_out, H = mha.num_heads, hd = mha.head_dim, V = m.out_head.weight.size(0);
  // Every parameter in double, the one named shifted by delta.
  auto weights = [&](const char* name, const Tensor& t) {
    Vec v = to_f64(t);
    if (param == name) v.at(static_cast<size_t>(index)) += delta;
    return v;
  };
  const Vec wq = weights("W_query.weight", mha.W_query.weight), wk = weights("W_key.weight", mha.W_key.weight);
  const Vec wv = weights("W_value.weight", mha.W_value.weight), wo = weights("out_proj.weight", mha.out_proj.weight);
  const Vec wh = weights("out_head.weight", m.out_head.weight), bo = weights("out_proj.bias", *mha.out_proj.bias);
  Vec bq, bk, bv;
  if (mha.W_query.bias) {
    bq = weights("W_query.bias", *mha.W_query.bias);
    bk = weights("W_key.bias", *mha.W_key.bias);
    bv = weights("W_value.bias", *mha.W_value.bias);
  }
  const Vec x = to_f64(a.batch);
  const int64_t rows = B * T;
  const Vec q = linear_f64(x, rows, d_in, wq, d, bq.empty() ? nullptr : &bq);
  const Vec k = linear_f64(x, rows, d_in, wk, d, bk.empty() ? nullptr : &bk);
  const Vec v = linear_f64(x, rows, d_in, wv, d, bv.empty() ? nullptr : &bv);
  // Causal softmax of q·k / sqrt(hd) per head, the same dropout mask, then the context.
  const double scale = 1.0 / std::sqrt(static_cast<double>(hd));
  const double keep_scale = a.p > 0.0 ? 1.0 / (1.0 - a.p) : 1.0;
  Vec ctx(static_cast<size_t>(rows * d), 0.0);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t i = 0; i < T; ++i) {
        Vec w(static_cast<size_t>(i + 1));
        double max = -std::numeric_limits<double>::infinity(), sum = 0.0;
        for (int64_t j = 0; j <= i; ++j) {
          double s = 0.0;
          for (int64_t c = 0; c < hd; ++c) s += q[(b * T + i) * d + h * hd + c] * k[(b * T + j) * d + h * hd + c];
          w[j] = s * scale;
          max = std::max(max, w[j]);
        }
        for (int64_t j = 0; j <= i; ++j) sum += (w[j] = std::exp(w[j] - max));
        for (int64_t j = 0; j <= i; ++j) {
          double wij = w[j] / sum;
          if (!a.keep.empty()) wij *= a.keep[static_cast<size_t>(((b * H + h) * T + i) * T + j)] ? keep_scale : 0.0;
          for (int64_t c = 0; c < hd; ++c) ctx[(b * T + i) * d + h * hd + c] += wij * v[(b * T + j) * d + h * hd + c];
        }
      }
  const Vec out = linear_f64(ctx, rows, d, wo, d, &bo);
  const Vec logits = linear_f64(out, rows, d, wh, V, nullptr);
  // cross_entropy: the mean (or, reduction="sum", the sum) of log(sum exp) - logit[target],
  // taken of softmax(logits) when the learner put a softmax first.
  double loss = 0.0;
  Vec row(static_cast<size_t>(V));
  for (int64_t r = 0; r < rows; ++r) {
    std::copy(logits.begin() + r * V, logits.begin() + (r + 1) * V, row.begin());
    if (a.softmax_before_cross_entropy) {
      const double m = *std::max_element(row.begin(), row.end());
      double s = 0.0;
      for (double& x : row) s += (x = std::exp(x - m));
      for (double& x : row) x /= s;
    }
    const double max = *std::max_element(row.begin(), row.end());
    double sum = 0.0;
    for (double x : row) sum += std::exp(x - max);
    loss += max + std::log(sum) - row[static_cast<size_t>(a.targets[static_cast<size_t>(r)])];
  }
  return a.loss_reduction_sum ? loss : loss / static_cast<double>(rows);
}

double finite_difference(const AttentionLM& m, const Activations& a, const std::string& param, int64_t index,
                         double h) {
  return (loss_f64(m, a, param, index, h) - loss_f64(m, a, param, index, -h)) / (2.0 * h);
}

}  // namespace attn
