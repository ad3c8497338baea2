#include "render/series_svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "render/render.h"

namespace attn {

std::string series_svg(const Step& step, const std::string& x_title, const std::string& y_title) {
  std::vector<double> v;
  for (float x : step.value.data)
    if (std::isfinite(x)) v.push_back(x);
  if (v.size() != step.value.data.size() || v.empty()) return "";
  // Room on the left for the values, above for the y title (level, so that Chinese reads as
  // written), below for the indices and the x title. Text is 13 units high: a phone draws the plot about 340 px wide,
  // where that is some 9 px.
  constexpr double width = 480, height = 240, left = 64, right = 14, top = 26, bottom = 46, font = 13;
  const double lo = *std::min_element(v.begin(), v.end()), hi = *std::max_element(v.begin(), v.end());
  const double span = hi > lo ? hi - lo : 1.0;
  const auto x_at = [&](size_t i) {
    return v.size() == 1 ? left : left + (width - left - right) * static_cast<double>(i) / static_cast<double>(v.size() - 1);
  };
  const auto y_at = [&](double y) { return top + (height - top - bottom) * (hi - y) / span; };
  std::string points;
  for (size_t i = 0; i < v.size(); ++i) points += fmt::format("{}{:.1f},{:.1f}", i ? " " : "", x_at(i), y_at(v[i]));
  std::string out = fmt::format(
      "<svg class=\"series\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {0} {1}\" "
      "preserveAspectRatio=\"xMinYMin meet\" role=\"img\" aria-label=\"{2}\">\n",
      width, height, html_escape(step.name + ": " + y_title + " / " + x_title));
  // Axes, the first and last index, the highest and lowest value, the axes' titles.
  out += fmt::format("<path d=\"M{0} {1} V{2} H{3}\" fill=\"none\" stroke=\"#888\"/>\n", left, top,
                     height - bottom, width - right);
  out += fmt::format("<g font-size=\"{}\" fill=\"currentColor\">\n", font);
  out += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{:.4f}</text>\n", left - 4, y_at(hi) + 4, hi);
  out += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{:.4f}</text>\n", left - 4, y_at(lo) + 4, lo);
  out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">1</text>\n", left, height - bottom + 16);
  out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", width - right,
                     height - bottom + 16, v.size());
  out += fmt::format("<text class=\"axis-x\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                     (left + width - right) / 2, height - 6, html_escape(x_title));
  out += fmt::format("<text class=\"axis-y\" x=\"4\" y=\"{}\" text-anchor=\"start\">{}</text>\n", font, html_escape(y_title));
  out += "</g>\n";
  out += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"#c0392b\" stroke-width=\"2\"/>\n", points);
  return out + "</svg>\n";
}

}  // namespace attn
