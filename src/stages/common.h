// Small pieces more than one stage repeats from the chapter, and the comparisons the
// walk's checks are built from.
#pragma once

#include <algorithm>
#include <string>

#include "core/config.h"
#include "core/number_format.h"  // grouped()
#include "core/tensor.h"
#include "core/walk.h"
#include "modules/chapter.h"
#include "torch/torch_random.h"

namespace attn {

// attn_scores_2[i] = torch.dot(x_i, query) for every row x_i of inputs, as section 3.3.1 loops.
Tensor dot_scores(const Tensor& inputs, const Tensor& query);

// The chapter's default query x(2), or whichever --query chose.
inline Tensor query_row(const Config& cfg) { return cfg.inputs[cfg.query - 1]; }

// z(i) = Σ_j attn_weights[i, j] · inputs[j], element by element as section 3.3.1 loops,
// for every query i. (T, T) weights and (T, d) inputs give (T, d).
Tensor loop_context_vectors(const Tensor& attn_weights, const Tensor& inputs);

// The placeholders every stage's texts may use ({query}, {xq}, {T}, {d_in}, {d_out},
// {seed1}, {seed2}, {heads}, {head_dim}, {p}, {attn_p}, {scale}, {batch}, {init},
// {bias_arg}, ...). Stages add their own ({d_k}, {sqrt_d_k}, ...) after this.
void set_common_vars(Walk& walk, const Config& cfg);

// A rate or scale as the chapter's Python prints it, shortened: 0.5, 0.0, 2.0, 1.42857.
std::string format_number(double v);

// The notebook prints the latest step with a label: print("Sum:", t).
inline void label_last(Walk& walk, std::string label) { walk.steps.back().print_label = std::move(label); }

// The notebook prints the latest step's shape under it: print("keys.shape:", keys.shape)
// shows "keys.shape: torch.Size([6, 2])"; with no label, print(batch.shape).
inline void print_shape_last(Walk& walk, const std::string& label) {
  const std::string size = torch_size_str(walk.steps.back().shape());
  walk.steps.back().details.push_back(label.empty() ? size : label + " " + size);
}

// --softmax-dim 1 (config.h): say so, once per walk that runs CausalAttention.
inline void note_causal_softmax(Walk& walk, const Config& cfg) {
  if (cfg.causal_softmax.dim != 1) return;
  walk.vars["torch_threads"] = std::to_string(cfg.causal_softmax.torch_threads);
  walk.notes.push_back("note.softmax_dim1");
}

// Steps [first, end) are attn-walk's own demonstrations, not the chapter's.
inline void mark_beyond_chapter(Walk& walk, size_t first) {
  for (size_t i = first; i < walk.steps.size(); ++i) walk.steps[i].beyond_chapter = true;
}

// A Python float as print() shows it: the shortest decimal that reads back as the same
// double, whole numbers with ".0" ("1.0", "0.9999999999999999", "2.5e-05").
std::string python_float_str(double v);

// ---- checks ----------------------------------------------------------------------------
// Every comparison returns whether it holds and the largest absolute difference it found
// (infinity for a shape mismatch or a NaN), so a check can fail and say by how much.
struct Comparison {
  bool passed = false;
  double max_diff = 0.0;
};

// Equal up to float32 rounding, like torch.allclose(a, b, rtol, atol) but with rtol relative
// to the largest |b| (so values that cancel to nearly 0 are not held to a tighter bound):
// same shape and |a - b| <= atol + rtol * max|b| everywhere.
Comparison compare_close(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-6);
// Every row (the last dimension) sums to 1 within tol; max_diff = max |row sum - 1|.
Comparison rows_sum_to_one(const Tensor& t, double tol = 1e-5);
// At least one row sum is farther than tol from 1; max_diff = max |row sum - 1|.
Comparison rows_do_not_sum_to_one(const Tensor& t, double tol = 1e-5);
// Every (T, T) block in the last two dimensions is exactly 0 above the diagonal;
// max_diff = the largest |w[i, j]| with j > i.
Comparison zero_above_diagonal(const Tensor& t);
// Every value is 0 or `kept` (what dropout leaves), within tol relative to kept;
// max_diff = the largest distance of a value from the nearer of the two.
Comparison zero_or_value(const Tensor& t, float kept, double tol = 1e-6);

// Both comparisons hold; the larger difference.
inline Comparison both(const Comparison& a, const Comparison& b) {
  return {a.passed && b.passed, std::max(a.max_diff, b.max_diff)};
}

inline void add_check(Walk& walk, std::string id, const Comparison& c) {
  walk.add_check(std::move(id), c.passed, c.max_diff);
}

}  // namespace attn
