#include "check/gpt_diagnoses.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "check/gpt_lines.h"

namespace attn::gpt_slips {

namespace {

std::string g4(double v) { return fmt::format("{:.4g}", v); }

const Tensor* walk_step(const Walk& walk, const std::string& name) {
  for (const auto& s : walk.steps)
    if (s.name == name) return &s.value;
  return nullptr;
}

bool is_norm(const std::string& name) {
  const auto ends = [&](const char* tail) {
    const std::string t = tail;
    return name.size() >= t.size() && name.compare(name.size() - t.size(), t.size(), t) == 0;
  };
  return name == "final_norm" || ends(".norm1") || ends(".norm2");
}

// A LayerNorm's output the learner gave that differs from the chapter's, with its scale and
// shift and the chapter's output: the first in the walk's order.
struct GivenNorm {
  std::string name;
  const Tensor *got = nullptr, *expected = nullptr, *scale = nullptr, *shift = nullptr;
};
GivenNorm first_given_norm(const DiagnosisInput& in) {
  for (const auto& step : in.walk.steps) {
    if (!is_norm(step.name)) continue;
    for (const auto& [name, t] : in.given)
      if (name == step.name && t.shape == step.value.shape &&
          compare(t, step.value, in.tol).grade == Grade::Differs) {
        GivenNorm g{name, &t, &step.value, walk_step(in.walk, name + ".scale"), walk_step(in.walk, name + ".shift")};
        if (g.scale && g.shift) return g;
      }
  }
  return {};
}

// The learner's normalised values (out - shift) / scale, element by element, in double.
std::vector<double> normalised(const Tensor& out, const Tensor& scale, const Tensor& shift) {
  const int64_t n = scale.numel();
  std::vector<double> z(static_cast<size_t>(out.numel()));
  for (int64_t i = 0; i < out.numel(); ++i)
    z[i] = (static_cast<double>(out.data[i]) - shift.data[i % n]) / static_cast<double>(scale.data[i % n]);
  return z;
}

double median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

int64_t emb_dim(const DiagnosisInput& in) { return in.cfg.gpt.params ? in.cfg.gpt.params->cfg.emb_dim : 0; }

double l2(const Tensor& t) {
  double s = 0;
  for (const float v : t.data) s += static_cast<double>(v) * v;
  return std::sqrt(s);
}

}  // namespace

// x.var(dim=-1, keepdim=True): unbiased=True, PyTorch's default, divides by emb_dim - 1.
// Evidence: how much smaller than the chapter's the learner's normalised values are (the
// median ratio), against sqrt((n - 1) / n), where the variance is much larger than eps.
std::vector<Variant> layer_norm_var_unbiased(const DiagnosisInput& in) {
  const int64_t n = emb_dim(in);
  if (n < 2) return {};
  Variant v{{}, in.cfg, {{"n", std::to_string(n)}, {"n_minus_1", std::to_string(n - 1)}, {"book_ratio", g4(std::sqrt(static_cast<double>(n - 1) / static_cast<double>(n)))}, {"measured", "check.gpt.norm_not_given"}}};
  lines::layer_norm_unbiased(v.cells);
  const GivenNorm g = first_given_norm(in);
  if (g.got) {
    const std::vector<double> zg = normalised(*g.got, *g.scale, *g.shift), ze = normalised(*g.expected, *g.scale, *g.shift);
    std::vector<double> ratios;
    for (size_t i = 0; i < zg.size(); ++i)
      if (std::fabs(ze[i]) > 1e-3) ratios.push_back(zg[i] / ze[i]);
    v.vars["measured"] = "check.gpt.norm_ratio";
    v.vars["norm"] = g.name;
    v.vars["ratio"] = g4(median(ratios));
  }
  return {v};
}

// x.mean(dim=1, keepdim=True) and x.var(dim=1, ...) (or dim=0): the book's 2-D examples of
// section 4.2 normalise dim=1, their last; the model's inputs are (batch, num_tokens, emb_dim).
// Evidence: the learner's normalised values have mean 0 over that dimension, not over a row.
std::vector<Variant> layer_norm_wrong_dim(const DiagnosisInput& in) {
  std::vector<Variant> out;
  const GivenNorm g = first_given_norm(in);
  for (const int64_t dim : {1, 0}) {
    Variant v{{}, in.cfg, {{"dim", std::to_string(dim)}, {"over", dim == 1 ? "check.gpt.over_tokens" : "check.gpt.over_batch"}, {"measured", "check.gpt.norm_not_given"}}};
    lines::layer_norm_over_dim(v.cells, dim);
    if (g.got && g.got->dim() == 3) {
      const std::vector<double> z = normalised(*g.got, *g.scale, *g.shift);
      const int64_t B = g.got->size(0), T = g.got->size(1), E = g.got->size(2);
      double row_mean = 0, dim_mean = 0;  // the largest |mean| over a row, and over `dim`
      for (int64_t b = 0; b < B; ++b)
        for (int64_t t = 0; t < T; ++t) {
          double s = 0;
          for (int64_t e = 0; e < E; ++e) s += z[(b * T + t) * E + e];
          row_mean = std::max(row_mean, std::fabs(s / static_cast<double>(E)));
        }
      const int64_t n = dim == 1 ? T : B;
      for (int64_t o = 0; o < (dim == 1 ? B : 1); ++o)
        for (int64_t i = 0; i < (dim == 1 ? E : T * E); ++i) {
          double s = 0;
          for (int64_t k = 0; k < n; ++k) s += dim == 1 ? z[(o * T + k) * E + i] : z[k * T * E + i];
          dim_mean = std::max(dim_mean, std::fabs(s / static_cast<double>(n)));
        }
      v.vars["measured"] = "check.gpt.norm_means";
      v.vars["norm"] = g.name;
      v.vars["row_mean"] = g4(row_mean);
      v.vars["dim_mean"] = g4(dim_mean);
    }
    out.push_back(std::move(v));
  }
  return out;
}

// x = self.att(x) (or self.ff(x)) with no x = x + shortcut after it. Evidence: the size of
// what was not added back in block 0 (its input, or the first shortcut's sum), from the walk.
std::vector<Variant> shortcut_missing(const DiagnosisInput& in) {
  std::vector<Variant> out;
  const Tensor* input = walk_step(in.walk, "emb_sum");
  const Tensor* x1 = walk_step(in.walk, "trf_blocks.0.shortcut1");
  for (const int which : {1, 2, 0}) {
    const char* names[] = {"check.gpt.shortcut_both", "check.gpt.shortcut_first", "check.gpt.shortcut_second"};
    Variant v{{}, in.cfg, {{"which", names[which]}}};
    if (input) v.vars["input_norm"] = g4(l2(*input));
    if (x1) v.vars["x1_norm"] = g4(l2(*x1));
    lines::shortcut_left_out(v.cells, which);
    out.push_back(std::move(v));
  }
  return out;
}

// nn.GELU() (or 0.5 * x * (1 + torch.erf(x / math.sqrt(2)))) in place of the book's tanh form.
// Evidence: how far the two forms are apart on the chapter's GELU inputs of block 0 (the
// largest gap and the input where it is), and the learner's largest difference at this step.
std::vector<Variant> gelu_exact(const DiagnosisInput& in) {
  Variant v{{}, in.cfg, {}};
  lines::gelu_exact(v.cells);
  double gap = 0, at = 0;
  if (const Tensor* h = walk_step(in.walk, "trf_blocks.0.ff.layers.0"))
    for (const float xf : h->data) {
      const double x = xf;
      const double exact = 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
      const double tanh_form = 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
      if (std::fabs(exact - tanh_form) > gap) gap = std::fabs(exact - tanh_form), at = x;
    }
  v.vars["gap"] = g4(gap);
  v.vars["at_x"] = g4(at);
  double largest = 0;
  if (in.got.shape == in.expected.shape)
    for (int64_t i = 0; i < in.got.numel(); ++i)
      largest = std::max(largest, std::fabs(static_cast<double>(in.got.data[i]) - in.expected.data[i]));
  v.vars["largest"] = g4(largest);
  return {v};
}

// load_weights_into_gpt with assign(left, params[...]) where assign(left, params[...].T)
// belongs, for Hugging Face's square Conv1D weights (assign's shape check lets those pass):
// c_proj's (out_proj), c_attn's three chunks (W_query, W_key, W_value), or all four.
std::vector<Variant> conv1d_not_transposed(const DiagnosisInput& in) {
  if (!in.cfg.gpt.params) return {};
  const WeightsFormat f = in.cfg.gpt.params->format;
  if (f != WeightsFormat::HfSafetensors && f != WeightsFormat::HfPth) return {};
  const int64_t e = emb_dim(in);
  const std::vector<std::pair<std::vector<std::string>, const char*>> ways = {
      {{".att.out_proj.weight"}, "out_proj.weight = c_proj.weight"},
      {{".att.W_query.weight", ".att.W_key.weight", ".att.W_value.weight"}, "W_query/W_key/W_value.weight = q_w/k_w/v_w"},
      {{".att.out_proj.weight", ".att.W_query.weight", ".att.W_key.weight", ".att.W_value.weight"},
       "W_query/W_key/W_value.weight = q_w/k_w/v_w, out_proj.weight = c_proj.weight"},
  };
  std::vector<Variant> out;
  for (const auto& [names, which] : ways) {
    out.push_back({{}, in.cfg, {{"which", which}, {"emb", std::to_string(e)}, {"ff", std::to_string(4 * e)}}});
    lines::conv1d_not_transposed(out.back().cells, names);
  }
  return out;
}

}  // namespace attn::gpt_slips
