#include "torch/fma32.h"

#include <limits>

namespace attn::detail {

float fma32_near_tie(double xy, float z, double s) {
  const float f = static_cast<float>(s);                           // s rounded to nearest, ties to even
  if (!std::isfinite(s) || static_cast<double>(f) == s) return f;  // inf or NaN; or s is a float
  // The exact error of s = xy + z (Knuth's two-sum, exact in round-to-nearest): the exact
  // result is s + err, with |err| at most half an ulp of s.
  const double z_part = s - xy;
  const double err = (xy - (s - z_part)) + (static_cast<double>(z) - z_part);
  if (err == 0) return f;
  // The float on the other side of s, and the tie between the two (exact in double). Past the
  // largest float the other side is infinity, whose tie with it is 2^128 - 2^103.
  const float inf = std::numeric_limits<float>::infinity();
  const float other = std::isinf(f) ? std::copysign(std::numeric_limits<float>::max(), f)
                                    : std::nextafter(f, static_cast<double>(f) < s ? inf : -inf);
  const double tie = std::isinf(f) ? std::copysign(0x1.ffffffp127, s)
                                   : (static_cast<double>(f) + static_cast<double>(other)) / 2;
  // Not on the tie: s and the exact result round to the same float (every tie is a double, so
  // none lies between them).
  if (s != tie) return f;
  // On it: the exact result is on err's side.
  return (err > 0) == (other > f) ? other : f;
}

}  // namespace attn::detail
