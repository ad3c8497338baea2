// Grading a learner's tensors against the walk's, step by step in the stage's order.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "core/walk.h"

namespace attn {

// torch.allclose's rule, element by element: |got - expected| <= atol + rtol * |expected|.
// NaN matches NaN, and an infinity matches the same infinity.
struct Tolerance {
  double rtol = 1e-5;
  double atol = 1e-6;
};

enum class Grade {
  Equal,
  Close,
  Differs,
  NotGiven
};
const char* to_string(Grade g);  // "equal", "close", "differs", "not given"

struct Difference {
  Grade grade = Grade::NotGiven;
  bool shape_differs = false;
  double max_abs_diff = 0.0;  // infinity where NaN meets a number or infinities differ
  int64_t index = -1;         // flat index of the largest difference (-1: none, or shapes differ)
};

// Compare a learner's tensor with the expected one: same float32 bits, within tolerance, or not.
Difference compare(const Tensor& got, const Tensor& expected, const Tolerance& tol);

struct StepGrade {
  std::string name;
  Difference diff;
  Shape expected_shape, given_shape;  // given_shape is empty when not given
};

// Every step of the walk, in its order, graded against `given` (name -> tensor).
std::vector<StepGrade> grade_walk(const Walk& walk,
                                  const std::vector<std::pair<std::string, Tensor>>& given,
                                  const Tolerance& tol);

// Flat index -> multi-index for a shape: 7 in (2, 2, 3) -> {1, 0, 1}.
std::vector<int64_t> unravel(int64_t flat, const Shape& shape);

}  // namespace attn
