#include "core/tensor_summary.h"

#include <vector>

namespace attn {

namespace {

// Appends the shown entries of the sub-tensor at `offset` whose dimensions are shape[d:].
void append_shown(const Tensor& t, size_t d, int64_t offset, std::vector<float>& out) {
  const int64_t n = t.shape[d];
  if (d + 1 == t.shape.size()) {
    for (int64_t i = 0; i < n; ++i) {
      if (print_cuts(n) && i == kPrintEdgeItems) i = n - kPrintEdgeItems;  // skip the middle
      out.push_back(t.data[static_cast<size_t>(offset + i)]);
    }
    return;
  }
  const int64_t stride = numel_of(Shape(t.shape.begin() + static_cast<int64_t>(d) + 1, t.shape.end()));
  for (int64_t i = 0; i < n; ++i) {
    if (print_cuts(n) && i == kPrintEdgeItems) i = n - kPrintEdgeItems;
    append_shown(t, d + 1, offset + i * stride, out);
  }
}

}  // namespace

Tensor shown_part(const Tensor& t) {
  if (t.dim() == 0 || t.numel() == 0) return t;
  Shape shape = t.shape;
  for (auto& s : shape)
    if (print_cuts(s)) s = 2 * kPrintEdgeItems;
  std::vector<float> data;
  data.reserve(static_cast<size_t>(numel_of(shape)));
  append_shown(t, 0, 0, data);
  return Tensor(std::move(shape), std::move(data));
}

}  // namespace attn
