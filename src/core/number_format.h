// Numbers as the texts and tables write them, for stages (their texts' vars) and renderers
// (PyTorch's print, exercise 3.3's parameter table) alike.
#pragma once

#include <cstdint>
#include <string>

namespace attn {

// 2360064 -> "2,360,064"
std::string grouped(int64_t n);

// Python's "{:.Nf}".format(v) and "{:.Ne}".format(v) (at least two exponent digits, as in C).
// The digits are printf's: glibc's (and musl's, in the web page) round the exact binary value
// correctly, ties to even, like Python's dtoa (tests/libc/compare.sh). A non-finite value is
// spelled as Python spells it: "nan" (never "-nan", which printf and fmt write for a negative
// NaN), "inf", "-inf".
std::string python_fixed(double v, int digits);
std::string python_sci(double v, int digits);

}  // namespace attn
