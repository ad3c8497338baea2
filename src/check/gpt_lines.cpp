#include "check/gpt_lines.h"

#include <cmath>
#include <utility>

#include "modules/gpt.h"
#include "ops/ops.h"
#include "torch/torch_kernels.h"

namespace attn::lines {

namespace {

// The book's LayerNorm with the mean and variance taken over dimension `dim` of x, the
// variance divided by n - correction: x.mean(dim, keepdim=True) as sum_out's cascade (a
// dimension that is not the innermost summed down its columns) then / n; x.var(dim,
// keepdim=True) by Welford's running mean and M2 in double (WelfordOps), M2 / (n - correction)
// rounded once; then (x - mean) / torch.sqrt(var + eps), scale * norm_x + shift.
Tensor learner_layer_norm(const Tensor& x, const MatView& scale, const MatView& shift, int64_t dim, int64_t correction) {
  const int64_t nd = x.dim();
  if (dim < 0) dim += nd;
  if (dim < 0 || dim >= nd) shape_error("layer_norm", x.shape, {dim});
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= x.size(d);
  for (int64_t d = dim + 1; d < nd; ++d) inner *= x.size(d);
  const int64_t n = x.size(dim);
  // The last dimension: the book's own mean (mean_lastdim); another: its columns' sums, / n.
  Tensor mean = inner == 1 ? mean_lastdim(x) : Tensor::zeros({outer * inner});
  Tensor var = Tensor::zeros({outer * inner});
  for (int64_t o = 0; o < outer; ++o) {
    const float* block = x.data.data() + o * n * inner;
    if (inner > 1) kernels::column_sums(block, n, inner, mean.data.data() + o * inner);
    for (int64_t i = 0; i < inner; ++i) {
      double m = 0.0, m2 = 0.0;
      for (int64_t k = 0; k < n; ++k) {
        const double value = block[k * inner + i];
        const double delta = value - m;
        m += delta / static_cast<double>(k + 1);
        m2 += delta * (value - m);
      }
      const double divisor = n > correction ? static_cast<double>(n - correction) : 0.0;
      var.data[o * inner + i] = static_cast<float>(m2 / divisor);
    }
  }
  if (inner > 1) div_scalar_(mean, static_cast<double>(n));
  const float eps = static_cast<float>(1e-5);
  Tensor norm_x = x;
  for (int64_t idx = 0; idx < x.numel(); ++idx) {
    const int64_t o = idx / (n * inner), i = idx % inner, r = o * inner + i;
    norm_x.data[idx] = (x.data[idx] - mean.data[r]) / std::sqrt(var.data[r] + eps);
  }
  return add_vector(mul_vector(scale, norm_x), shift);
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

void layer_norm_unbiased(Cells& c) {
  c.gpt.layer_norm = [](const Tensor& x, const MatView& scale, const MatView& shift) {
    return learner_layer_norm(x, scale, shift, -1, 1);
  };
}

void layer_norm_over_dim(Cells& c, int64_t dim) {
  c.gpt.layer_norm = [dim](const Tensor& x, const MatView& scale, const MatView& shift) {
    return learner_layer_norm(x, scale, shift, dim, 0);
  };
}

void shortcut_left_out(Cells& c, int which) {
  c.gpt.shortcut = [which](const Tensor& x, const Tensor& shortcut, int at) {
    return which == 0 || which == at ? x : book::shortcut(x, shortcut, at);
  };
}

void gelu_exact(Cells& c) {
  c.gpt.gelu = [](const Tensor& x) {
    Tensor out = x;
    for (float& v : out.data) v = static_cast<float>(0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0))));
    return out;
  };
}

void conv1d_not_transposed(Cells& c, std::vector<std::string> names) {
  c.gpt.param = [names = std::move(names)](const std::string& name, const ParamView& p) {
    MatView m = book::param(name, p);
    const bool square = p.shape.size() == 2 && p.shape[0] == p.shape[1];
    if (p.transposed && square)
      for (const std::string& tail : names)
        // Hugging Face's (in, out) read as (out, in); a third of c_attn keeps its stride, 3 * emb
        // between rows, as the learner's q_w (a chunk of c_attn, not its .T) has.
        if (ends_with(name, tail)) m.transposed = false;
    return m;
  };
}

}  // namespace attn::lines
