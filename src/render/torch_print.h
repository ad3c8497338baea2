// str(tensor) exactly as PyTorch prints it (torch/_tensor_str.py, default print options):
// precision 4, threshold 1000, edgeitems 3, linewidth 80.
#pragma once

#include <string>
#include <vector>

#include "core/tensor.h"

namespace attn {

// "tensor([[0.2961, 0.5166], ...]" + suffixes + ")".
// Suffixes ("grad_fn=<MmBackward0>", "requires_grad=True") are placed as PyTorch's
// _add_suffixes places them: on the last line if it stays within 80 columns,
// otherwise on a new line indented 7 spaces.
// With int64, the values (whole numbers, exact in float32) print as an int64 tensor's do:
// torch.tensor([7120, 7002, 4940,  351,  530, 2239]).
std::string torch_str(const Tensor& t, const std::vector<std::string>& suffixes = {}, bool int64 = false);
// The same for a tensor of `shape` of which only `shown` is at hand: all of it, or, when
// print() summarises that shape, shown_part() of it (tensor_summary.h).
std::string torch_str_shown(const Tensor& shown, const Shape& shape,
                            const std::vector<std::string>& suffixes = {}, bool int64 = false);

// As print(parameter) shows an nn.Parameter: "Parameter containing:\n" + torch_str(...).
std::string torch_parameter_str(const Tensor& t, const std::vector<std::string>& suffixes = {});

}  // namespace attn
