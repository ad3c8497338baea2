#include "render/details.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/number_format.h"

namespace attn {

namespace {

// A shape as Python prints a tuple: (768, 768), (768,)
std::string tuple_str(const Shape& s) {
  std::string out = "(";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + (s.size() == 1 ? ",)" : ")");
}

// One line per parameter, names and shapes padded to the longest, counts grouped by
// thousands; then the total.
void append_table(std::vector<std::string>& lines, const ParameterTable& table) {
  size_t name_width = 0, shape_width = 0;
  for (const auto& row : table.rows) {
    name_width = std::max(name_width, row.name.size());
    shape_width = std::max(shape_width, tuple_str(row.shape).size());
  }
  for (const auto& row : table.rows)
    lines.push_back(fmt::format("  {:<{}}  {:<{}} = {:>9}", row.name, name_width, tuple_str(row.shape),
                                shape_width, grouped(row.count)));
  lines.push_back(fmt::format("  {} = {}", table.total_label, grouped(table.total)));
}

}  // namespace

std::vector<std::string> detail_lines(const Step& step) {
  std::vector<std::string> lines = step.details;
  if (!step.parameter_table.rows.empty()) append_table(lines, step.parameter_table);
  return lines;
}

}  // namespace attn
