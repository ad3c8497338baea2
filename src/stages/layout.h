// How PyTorch lays a view out in memory: its strides, and whether it is contiguous. attn-walk's
// tensors are always stored row by row; this models the views the chapter makes (view,
// transpose, contiguous) so a walk can show stride() and is_contiguous() as PyTorch reports them.
#pragma once

#include <fmt/format.h>

#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"

namespace attn {

struct Layout {
  Shape shape;
  std::vector<int64_t> stride;
};

// A new tensor (or .contiguous(), or .view() of a contiguous one): row by row.
inline Layout contiguous_layout(const Shape& shape) {
  Layout l{shape, std::vector<int64_t>(shape.size(), 1)};
  for (size_t d = shape.size(); d-- > 1;) l.stride[d - 1] = l.stride[d] * shape[d];
  return l;
}

// .transpose(a, b): the same memory, two dimensions and their strides swapped.
inline Layout transposed(Layout l, size_t a, size_t b) {
  std::swap(l.shape[a], l.shape[b]);
  std::swap(l.stride[a], l.stride[b]);
  return l;
}

// As torch's is_contiguous(): row-by-row strides, ignoring dimensions of size 1.
inline bool is_contiguous(const Layout& l) {
  const Layout c = contiguous_layout(l.shape);
  for (size_t d = 0; d < l.shape.size(); ++d)
    if (l.shape[d] != 1 && l.stride[d] != c.stride[d]) return false;
  return true;
}

// "stride() = (12, 4, 1), is_contiguous() = True", as Python prints them.
inline std::string layout_line(const Layout& l) {
  return fmt::format("stride() = ({}{}), is_contiguous() = {}", fmt::join(l.stride, ", "),
                     l.stride.size() == 1 ? "," : "", is_contiguous(l) ? "True" : "False");
}

}  // namespace attn
