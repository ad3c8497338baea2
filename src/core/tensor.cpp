#include "core/tensor.h"

#include <stdexcept>
#include <utility>

namespace attn {

int64_t numel_of(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

Tensor::Tensor(Shape s, std::vector<float> d) : shape(std::move(s)), data(std::move(d)) {
  if (numel_of(shape) != static_cast<int64_t>(data.size()))
    throw std::logic_error("Tensor: data size does not match shape " + shape_str(shape));
}

Tensor Tensor::zeros(Shape s) { return full(std::move(s), 0.0f); }

Tensor Tensor::full(Shape s, float value) {
  const auto n = static_cast<size_t>(numel_of(s));
  return Tensor(std::move(s), std::vector<float>(n, value));
}

int64_t Tensor::size(int64_t d) const {
  if (d < 0) d += dim();
  if (d < 0 || d >= dim()) throw std::logic_error("Tensor::size: dimension out of range");
  return shape[static_cast<size_t>(d)];
}

float Tensor::item() const {
  if (data.size() != 1) throw std::logic_error("Tensor::item: tensor has more than one element");
  return data[0];
}

Tensor Tensor::operator[](int64_t i) const {
  if (dim() == 0) throw std::logic_error("Tensor::operator[]: 0-dim tensor");
  Shape sub(shape.begin() + 1, shape.end());
  const int64_t stride = numel_of(sub);
  auto first = data.begin() + i * stride;
  return Tensor(sub, std::vector<float>(first, first + stride));
}

static std::string join_dims(const Shape& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(s[i]);
  }
  return out;
}

std::string torch_size_str(const Shape& s) { return "torch.Size([" + join_dims(s) + "])"; }

std::string shape_str(const Shape& s) {
  if (s.size() == 1) return "(" + std::to_string(s[0]) + ",)";
  return "(" + join_dims(s) + ")";
}

void shape_error(const char* op, const Shape& a, const Shape& b) {
  throw std::logic_error(std::string(op) + ": incompatible shapes " + shape_str(a) + " and " + shape_str(b));
}

}  // namespace attn
