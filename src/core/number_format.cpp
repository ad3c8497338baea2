#include "core/number_format.h"

#include <cmath>
#include <cstdio>

namespace attn {

std::string grouped(int64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && digits[i - 1] != '-' && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

namespace {

std::string nonfinite(double v) {
  if (std::isnan(v)) return "nan";
  return v > 0 ? "inf" : "-inf";
}

std::string printf_double(const char* spec, int digits, double v) {
  char buf[512];  // "%.0f" of DBL_MAX has 309 digits; the floats printed here have at most 39
  std::snprintf(buf, sizeof buf, spec, digits, v);
  return buf;
}

}  // namespace

std::string python_fixed(double v, int digits) {
  return std::isfinite(v) ? printf_double("%.*f", digits, v) : nonfinite(v);
}

std::string python_sci(double v, int digits) {
  return std::isfinite(v) ? printf_double("%.*e", digits, v) : nonfinite(v);
}

}  // namespace attn
