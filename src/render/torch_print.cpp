// A port of PyTorch 1.13's torch/_tensor_str.py for float32 CPU tensors with the default
// print options. The functions below carry the names of their Python originals
// (_Formatter, get_summarized_data, _vector_str, _tensor_str_with_formatter, _add_suffixes,
// _str_intern) so the two can be read side by side. Where PyTorch has a quirk, we keep it:
// the goal is output that is identical byte for byte, not output that is "nicer".
#include "render/torch_print.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/number_format.h"
#include "core/tensor_summary.h"

namespace attn {
namespace {

// PRINT_OPTS with profile="default".
constexpr int kPrecision = 4;
// threshold 1000 and edgeitems 3: tensor_summary.h
constexpr int kLineWidth = 80;

// ---------------------------------------------------------------------------------------------
// PyTorch formats the *double* value of each float32 (tensor.tolist() / item()) with Python's
// str.format, for three specs: "{:.0f}", "{:.4f}", "{:W.4e}": python_fixed and python_sci
// (core/number_format.h).

// Python's // for a positive divisor (C++ / truncates toward zero instead).
int floor_div(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

std::string pad_left(const std::string& s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

// ---------------------------------------------------------------------------------------------
// _Formatter: decides once, from the values that will be shown, how every value prints.
class Formatter {
 public:
  // An integer tensor (int64 token ids) prints every shown value as f"{value}", padded to
  // the widest of them: no trailing dot, no scientific mode.
  Formatter(const std::vector<float>& shown, bool int64) : int64_(int64) {
    if (int64_) {
      for (float f : shown) max_width_ = std::max(max_width_, python_fixed(static_cast<double>(f), 0).size());
      return;
    }
    // Only nonzero finite values take part. Zeros, infinities and NaNs never widen a column
    // and never switch modes, which is why a row of "0." or "-inf" can overflow its width.
    std::vector<double> vals;
    for (float f : shown)
      if (std::isfinite(f) && f != 0.0f) vals.push_back(static_cast<double>(f));
    if (vals.empty()) return;  // "no valid number, do nothing": int mode, width 1

    double abs_min = std::fabs(vals[0]), abs_max = abs_min;
    for (double v : vals) {
      abs_min = std::min(abs_min, std::fabs(v));
      abs_max = std::max(abs_max, std::fabs(v));
    }
    for (double v : vals) {
      if (v != std::ceil(v)) {
        int_mode_ = false;
        break;
      }
    }

    // The ratio is taken in double, on the float32 values widened: 1e-4f is a little below
    // 1e-4 in double, so it already counts as "small" and selects scientific notation.
    const bool wide_range = abs_max / abs_min > 1000.0 || abs_max > 1.0e8;
    if (int_mode_) {
      // Whole numbers print as "2.": the trailing dot (the +1) marks a float tensor.
      sci_mode_ = wide_range;
      for (double v : vals) {
        const size_t len = sci_mode_ ? python_sci(v, kPrecision).size() : python_fixed(v, 0).size() + 1;
        max_width_ = std::max(max_width_, len);
      }
    } else {
      sci_mode_ = wide_range || abs_min < 1.0e-4;
      for (double v : vals) {
        const size_t len =
            sci_mode_ ? python_sci(v, kPrecision).size() : python_fixed(v, kPrecision).size();
        max_width_ = std::max(max_width_, len);
      }
    }
  }

  size_t width() const { return max_width_; }

  // Format one value and left-pad it to the common width. Values wider than the width
  // (zeros as "-0.0000", "-inf", "nan") are not truncated, just left unpadded.
  std::string format(float value) const {
    const double v = static_cast<double>(value);
    std::string ret;
    if (int64_) {
      ret = python_fixed(v, 0);
    } else if (sci_mode_) {
      ret = python_sci(v, kPrecision);
    } else if (int_mode_) {
      ret = python_fixed(v, 0);
      if (std::isfinite(v)) ret += ".";  // no "inf." / "nan."
    } else {
      ret = python_fixed(v, kPrecision);
    }
    return pad_left(ret, max_width_);
  }

 private:
  bool int64_ = false;
  bool int_mode_ = true;
  bool sci_mode_ = false;
  size_t max_width_ = 1;
};

// ---------------------------------------------------------------------------------------------
// get_summarized_data: the values a summarised print will show (tensor_summary.h: in every
// dimension longer than 2 * edgeitems only the first and last edgeitems entries). The
// formatter is built from these alone, so a huge value hidden behind "..." does not change
// the format. What follows prints from that part alone: `shown` holds the entries in order,
// and cut[d] says that dimension d of the real tensor was longer, so "..." marks its middle.
struct Shown {
  const Tensor& values;   // the shown entries, shape min(size, 6) per dimension when cut
  std::vector<bool> cut;  // per dimension: summarised ("..." after the first edgeitems)
  int64_t stride(size_t d) const {
    return numel_of(Shape(values.shape.begin() + static_cast<int64_t>(d) + 1, values.shape.end()));
  }
};

// _vector_str: one 1-D row, wrapped so that each line holds as many elements as fit in the
// line width at this indentation.
std::string vector_str(const Shown& t, size_t d, int64_t offset, int indent, const Formatter& fmt) {
  // Each element is counted with its ", " separator.
  const int element_length = static_cast<int>(fmt.width()) + 2;
  // Python: max(1, int(math.floor((linewidth - indent) / element_length))).
  const int64_t elements_per_line = std::max(1, floor_div(kLineWidth - indent, element_length));

  std::vector<std::string> data;
  const int64_t n = t.values.shape[d];
  for (int64_t i = 0; i < n; ++i) {
    // The ellipsis is an element like any other (with a leading space, ignoring the width),
    // so it takes a slot when the row is split into lines.
    if (t.cut[d] && i == kPrintEdgeItems) data.push_back(" ...");
    data.push_back(fmt.format(t.values.data[static_cast<size_t>(offset + i)]));
  }

  const std::string line_sep = ",\n" + std::string(static_cast<size_t>(indent + 1), ' ');
  std::string s = "[";
  for (size_t i = 0; i < data.size(); ++i) {
    if (i > 0) s += (static_cast<int64_t>(i) % elements_per_line == 0) ? line_sep : ", ";
    s += data[i];
  }
  return s + "]";
}

// _tensor_str_with_formatter: recurse over the first dimension. Sub-tensors are joined by
// "," plus (dim - 1) newlines, so the 2-D blocks of a 3-D tensor have a blank line between
// them. A summarised dimension shows "..." in place of its hidden middle.
std::string tensor_str_with_formatter(const Shown& t, size_t d, int64_t offset, int indent,
                                      const Formatter& fmt) {
  const size_t dim = t.values.shape.size() - d;
  if (dim == 0) return fmt.format(t.values.data[static_cast<size_t>(offset)]);  // _scalar_str
  if (dim == 1) return vector_str(t, d, offset, indent, fmt);

  std::vector<std::string> slices;
  const int64_t n = t.values.shape[d], stride = t.stride(d);
  for (int64_t i = 0; i < n; ++i) {
    if (t.cut[d] && i == kPrintEdgeItems) slices.push_back("...");
    slices.push_back(tensor_str_with_formatter(t, d + 1, offset + i * stride, indent + 1, fmt));
  }

  const std::string sep = "," + std::string(dim - 1, '\n') +
                          std::string(static_cast<size_t>(indent + 1), ' ');
  std::string s = "[";
  for (size_t i = 0; i < slices.size(); ++i) {
    if (i > 0) s += sep;
    s += slices[i];
  }
  return s + "]";
}

// _tensor_str: the bracketed contents, without "tensor(" and the suffixes. `shown` is the
// whole tensor, or for a summarised print (more than 1000 elements in `shape`) the part
// shown_part() keeps.
std::string tensor_str(const Tensor& shown, const Shape& shape, int indent, bool int64) {
  if (numel_of(shape) == 0) return "[]";
  const bool summarize = print_summarizes(shape);
  Shown t{shown, std::vector<bool>(shape.size(), false)};
  for (size_t d = 0; d < shape.size(); ++d) t.cut[d] = summarize && print_cuts(shape[d]);
  const Formatter fmt(shown.data, int64);
  return tensor_str_with_formatter(t, 0, 0, indent, fmt);
}

// _add_suffixes: each suffix goes after ", " on the last line if it fits, otherwise on a new
// line indented like the tensor. PyTorch's last_line_len is len(s) - s.rfind("\n") + 1, which is
// two more than the real length of the last line (and, with no newline, rfind is -1, so again
// len + 2). We keep the overcount: it decides where grad_fn=<...> lands.
std::string add_suffixes(const std::string& tensor_str, const std::vector<std::string>& suffixes,
                         int indent) {
  const size_t nl = tensor_str.rfind('\n');
  const int64_t rfind = nl == std::string::npos ? -1 : static_cast<int64_t>(nl);
  int64_t last_line_len = static_cast<int64_t>(tensor_str.size()) - rfind + 1;

  std::string out = tensor_str;
  for (const std::string& suffix : suffixes) {
    const auto suffix_len = static_cast<int64_t>(suffix.size());
    if (last_line_len + suffix_len + 2 > kLineWidth) {
      out += ",\n" + std::string(static_cast<size_t>(indent), ' ') + suffix;
      last_line_len = indent + suffix_len;
    } else {
      out += ", " + suffix;
      last_line_len += suffix_len + 2;
    }
  }
  return out + ")";
}

}  // namespace

// _str_intern for a dense float32 (or int64) CPU tensor: no device or dtype suffix applies.
std::string torch_str_shown(const Tensor& shown, const Shape& shape,
                            const std::vector<std::string>& suffixes, bool int64) {
  const std::string prefix = "tensor(";
  const int indent = static_cast<int>(prefix.size());

  std::vector<std::string> all_suffixes;
  // An empty tensor shows its shape unless it is 1-D (to match NumPy), before any grad suffix.
  if (numel_of(shape) == 0 && shape.size() != 1) all_suffixes.push_back("size=" + shape_str(shape));
  all_suffixes.insert(all_suffixes.end(), suffixes.begin(), suffixes.end());

  return add_suffixes(prefix + tensor_str(shown, shape, indent, int64), all_suffixes, indent);
}

std::string torch_str(const Tensor& t, const std::vector<std::string>& suffixes, bool int64) {
  if (print_summarizes(t.shape)) return torch_str_shown(shown_part(t), t.shape, suffixes, int64);
  return torch_str_shown(t, t.shape, suffixes, int64);
}

// nn.Parameter.__repr__ prepends one line; the tensor itself still prints as "tensor(".
std::string torch_parameter_str(const Tensor& t, const std::vector<std::string>& suffixes) {
  return "Parameter containing:\n" + torch_str(t, suffixes);
}

}  // namespace attn
