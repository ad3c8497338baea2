#include "render/series_svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "render/render.h"

namespace attn {

std::string series_svg(const Step& step) {
  std::vector<double> v;
  for (float x : step.value.data)
    if (std::isfinite(x)) v.push_back(x);
  if (v.size() != step.value.data.size() || v.empty()) return "";
  constexpr double width = 480, height = 200, left = 56, right = 12, top = 12, bottom = 28;
  const double lo = *std::min_element(v.begin(), v.end()), hi = *std::max_element(v.begin(), v.end());
  const double span = hi > lo ? hi - lo : 1.0;
  const auto x_at = [&](size_t i) {
    return v.size() == 1 ? left : left + (width - left - right) * static_cast<double>(i) / static_cast<double>(v.size() - 1);
  };
  const auto y_at = [&](double y) { return top + (height - top - bottom) * (hi - y) / span; };
  std::string points;
  for (size_t i = 0; i < v.size(); ++i) points += fmt::format("{}{:.1f},{:.1f}", i ? " " : "", x_at(i), y_at(v[i]));
  std::string out = fmt::format(
      "<svg class=\"series\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" "
      "height=\"{1}\" role=\"img\" aria-label=\"{2}\">\n",
      width, height, html_escape(step.name));
  // Axes, the first and last index, the highest and lowest value.
  out += fmt::format("<path d=\"M{0} {1} V{2} H{3}\" fill=\"none\" stroke=\"#888\"/>\n", left, top,
                     height - bottom, width - right);
  out += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\" font-size=\"11\">{:.4f}</text>\n", left - 4,
                     y_at(hi) + 4, hi);
  out += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\" font-size=\"11\">{:.4f}</text>\n", left - 4,
                     y_at(lo) + 4, lo);
  out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"11\">1</text>\n", left,
                     height - bottom + 16);
  out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"11\">{}</text>\n", width - right,
                     height - bottom + 16, v.size());
  out += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"#c0392b\" stroke-width=\"2\"/>\n", points);
  return out + "</svg>\n";
}

}  // namespace attn
