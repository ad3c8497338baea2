// A tensor as the chapter uses it: float32 values in row-major (C) order plus a shape.
// 0-dim (a scalar), 1-D vectors, 2-D matrices and batches of matrices (3-D, 4-D).
// This is deliberately tiny: the math in ops.h works on it directly, and the
// renderers read `shape` and `data` without knowing anything else.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace attn {

using Shape = std::vector<int64_t>;

struct Tensor {
  Shape shape;              // e.g. {B, T, d_out}; empty for a 0-dim scalar
  std::vector<float> data;  // numel() values, row-major

  Tensor() = default;
  Tensor(Shape s, std::vector<float> d);
  static Tensor zeros(Shape s);
  static Tensor full(Shape s, float value);
  static Tensor scalar(float value) { return Tensor({}, {value}); }

  int64_t dim() const { return static_cast<int64_t>(shape.size()); }
  int64_t numel() const { return static_cast<int64_t>(data.size()); }
  // size(-1) is the last dimension, as in PyTorch.
  int64_t size(int64_t d) const;
  float item() const;  // the single value of a 0-dim (or 1-element) tensor

  // Element access for 1-D and 2-D tensors.
  float& operator()(int64_t i) { return data[static_cast<size_t>(i)]; }
  float operator()(int64_t i) const { return data[static_cast<size_t>(i)]; }
  float& operator()(int64_t i, int64_t j) { return data[static_cast<size_t>(i * shape[1] + j)]; }
  float operator()(int64_t i, int64_t j) const { return data[static_cast<size_t>(i * shape[1] + j)]; }

  // t[i]: the i-th sub-tensor along the first dimension (a copy).
  Tensor operator[](int64_t i) const;
};

int64_t numel_of(const Shape& s);
// "torch.Size([2, 6, 3])"
std::string torch_size_str(const Shape& s);
// "(2, 6, 3)" as a learner reads shapes in the chapter's comments
std::string shape_str(const Shape& s);
// An op handed operands whose shapes do not fit (a bug in the caller, not bad input data).
[[noreturn]] void shape_error(const char* op, const Shape& a, const Shape& b);

}  // namespace attn
