// Planning a heatmap (shared by the terminal and the HTML page): which steps get one, which
// blocks, rows and columns are drawn on which scale, and the words, captions and colours.
#include "render/heatmap.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace attn {

// ---------------------------------------------------------------- which steps

bool draws_heatmap(Role role) {
  switch (role) {
    case Role::Scores:
    case Role::Weights:
    case Role::DroppedWeights:
    case Role::MaskHidden:
    case Role::MaskKept: return true;
    case Role::Value:
    case Role::Parameter:
    case Role::Series: return false;
  }
  return false;
}

bool wants_heatmap(const Walk& walk, const Step& step) {
  const Shape& s = step.value.shape;
  const int64_t T = walk.config.inputs.shape.size() == 2 ? walk.config.num_tokens() : 0;
  if (T < 1 || s.size() < 2 || s.size() > 4) return false;
  if (s[s.size() - 1] != T || s[s.size() - 2] != T) return false;
  if (step.value.numel() != numel_of(s)) return false;
  return draws_heatmap(step.role);
}

// ---------------------------------------------------------------- the plan

std::vector<std::string> heatmap_labels(const Walk& walk, const HeatmapPlan& plan, bool* are_positions) {
  std::vector<std::string> labels;
  bool positions = true;
  for (int64_t i : plan.index) {
    const std::string position = "x" + std::to_string(i + 1);
    const auto k = static_cast<size_t>(i);
    labels.push_back(k < walk.config.tokens.size() ? sanitize_label(walk.config.tokens[k]) : position);
    positions = positions && labels.back() == position;
  }
  if (are_positions) *are_positions = positions;
  return labels;
}

CellKind cell_kind(float v) {
  if (std::isnan(v)) return CellKind::Invalid;
  if (std::isinf(v)) return v < 0 ? CellKind::Masked : CellKind::Invalid;
  if (v == 0.0f) return CellKind::Zero;
  return CellKind::Value;
}

namespace {

double level(double lo, double hi, float v) {
  if (!std::isfinite(v)) return 0.0;
  return std::clamp((static_cast<double>(v) - lo) / (hi - lo), 0.0, 1.0);
}

// The smallest and largest finite values among a block's drawn cells, exact zeros left out
// (they have their own mark, and a causal matrix's zeros would pin the scale to 0); hi > lo.
std::pair<double, double> block_range(const HeatmapPlan& plan, const HeatmapBlock& blk, const std::vector<float>& data) {
  double lo = INFINITY, hi = -INFINITY;
  for (int64_t i : plan.index)
    for (int64_t j : plan.index) {
      const float x = data[blk.offset + static_cast<size_t>(i * plan.T + j)];
      if (cell_kind(x) != CellKind::Value) continue;
      lo = std::min(lo, static_cast<double>(x));
      hi = std::max(hi, static_cast<double>(x));
    }
  if (!std::isfinite(lo)) lo = 0.0, hi = 1.0;  // nothing finite: any scale
  if (!(hi > lo)) hi = lo + 1.0;               // one value: it takes the scale's low end
  return {lo, hi};
}

}  // namespace

double cell_level(const HeatmapPlan& plan, float v) { return level(plan.lo, plan.hi, v); }
double cell_level(const HeatmapBlock& block, float v) { return level(block.lo, block.hi, v); }

HeatmapPlan plan_heatmap(const Walk& walk, const Step& step, int64_t max_cells, size_t max_blocks,
                         HeatmapScale scale) {
  HeatmapPlan plan;
  const Tensor& v = step.value;
  const Shape& s = v.shape;
  const int64_t T = s.empty() ? 0 : s.back();
  plan.T = T;
  if (s.size() < 2 || T < 1) return plan;
  plan.probabilities = step.role == Role::Weights || step.role == Role::MaskHidden || step.role == Role::MaskKept;
  if (step.role == Role::MaskHidden || step.role == Role::MaskKept) {
    // What a 1 marks; a stage may say more of its mask (swa's banded one): its own legend first.
    const std::string meaning = step.role == Role::MaskHidden ? "mask" : "mask_simple";
    const std::string own = walk.stage + "." + meaning;
    plan.mask_meaning = lang_en().ui.count("heatmap." + own) ? own : meaning;
  }
  if (s.size() == 4 && static_cast<int64_t>(step.head_groups.size()) == s[1] && !step.head_group_text.empty()) {
    plan.head_groups = step.head_groups;
    plan.head_group_text = step.head_group_text;
  }
  max_cells = std::max<int64_t>(2, max_cells);

  // Rows and columns: all of them, or max_cells evenly spaced ones including both ends.
  if (T <= max_cells) {
    for (int64_t i = 0; i < T; ++i) plan.index.push_back(i);
  } else {
    for (int64_t k = 0; k < max_cells; ++k)
      plan.index.push_back(static_cast<int64_t>(
          std::llround(static_cast<double>(k) * static_cast<double>(T - 1) / static_cast<double>(max_cells - 1))));
  }

  const size_t block_size = static_cast<size_t>(T * T);
  const int64_t B = s.size() >= 3 ? s[0] : 1;
  const int64_t H = s.size() == 4 ? s[1] : 1;
  const size_t batch_size = static_cast<size_t>(H) * block_size;
  for (int64_t b = 0; b < B; ++b) {
    if (b > 0 && std::memcmp(v.data.data(), v.data.data() + b * batch_size, batch_size * sizeof(float)) == 0) {
      plan.repeated_batches.push_back(b);
      continue;
    }
    for (int64_t h = 0; h < H; ++h) {
      if (plan.blocks.size() >= max_blocks) {
        ++plan.blocks_left_out;
        continue;
      }
      HeatmapBlock blk;
      blk.batch = s.size() >= 3 ? b : -1;
      blk.head = s.size() == 4 ? h : -1;
      blk.group = plan.head_groups.empty() ? -1 : plan.head_groups[static_cast<size_t>(h)];
      blk.offset = static_cast<size_t>(b) * batch_size + static_cast<size_t>(h) * block_size;
      plan.blocks.push_back(blk);
    }
  }

  // One scale for the step, over the cells drawn; it always includes 0.
  double lo = 0.0, hi = 0.0;
  for (const auto& blk : plan.blocks)
    for (int64_t i : plan.index)
      for (int64_t j : plan.index) {
        const float x = v.data[blk.offset + static_cast<size_t>(i * T + j)];
        switch (cell_kind(x)) {
          case CellKind::Masked: plan.has_masked = true; break;
          case CellKind::Invalid: plan.has_invalid = true; break;
          case CellKind::Zero: plan.has_zero = true; break;
          case CellKind::Value:
            lo = std::min(lo, static_cast<double>(x));
            hi = std::max(hi, static_cast<double>(x));
            break;
        }
      }
  if (!(hi > lo)) hi = lo + 1.0;
  // Softmax weights and 0/1 masks share one fixed 0..1 scale, so a colour means the same
  // value in every matrix of every stage; scores and dropout-scaled weights keep their range.
  if (plan.probabilities && lo >= 0.0 && hi <= 1.0) lo = 0.0, hi = 1.0;
  plan.lo = lo;
  plan.hi = hi;
  plan.per_matrix = scale == HeatmapScale::Matrix;
  for (auto& blk : plan.blocks) {
    if (plan.per_matrix) std::tie(blk.lo, blk.hi) = block_range(plan, blk, v.data);
    else blk.lo = lo, blk.hi = hi;
  }
  return plan;
}

// ---------------------------------------------------------------- words

std::string heatmap_text(Lang lang, const std::string& key) {
  // The words live with every other text, in src/lang/<language>.cpp.
  return ui_text(lang, "heatmap." + key);
}

std::string block_caption(const HeatmapBlock& block, Lang lang) {
  if (block.head >= 0) return fmt::format(heatmap_text(lang, "batch_head"), block.batch, block.head);
  if (block.batch >= 0) return fmt::format(heatmap_text(lang, "batch"), block.batch);
  return "";
}

std::vector<std::string> heatmap_notes(const HeatmapPlan& plan, Lang lang) {
  std::vector<std::string> notes;
  if (plan.sampled())
    notes.push_back(fmt::format(heatmap_text(lang, "sampled"), plan.T, plan.index.size(), plan.index.size()));
  if (plan.repeated_batches.size() == 1) {
    notes.push_back(fmt::format(heatmap_text(lang, "repeated_one"), plan.repeated_batches[0]));
  } else if (!plan.repeated_batches.empty()) {
    const auto& r = plan.repeated_batches;
    // Repeated batches are usually 1..B-1: show a range rather than a long list.
    const bool contiguous = r.back() - r.front() + 1 == static_cast<int64_t>(r.size());
    std::string list;
    if (contiguous && r.size() > 3) {
      list = fmt::format("{}-{}", r.front(), r.back());
    } else {
      for (size_t i = 0; i < r.size(); ++i) list += (i ? ", " : "") + std::to_string(r[i]);
    }
    notes.push_back(fmt::format(heatmap_text(lang, "repeated_many"), list));
  }
  if (plan.blocks_left_out) notes.push_back(fmt::format(heatmap_text(lang, "left_out"), plan.blocks_left_out));
  return notes;
}

bool starts_group(const HeatmapPlan& plan, size_t i) {
  const HeatmapBlock& b = plan.blocks.at(i);
  if (b.group < 0) return false;
  if (i == 0) return true;
  const HeatmapBlock& prev = plan.blocks[i - 1];
  return prev.group != b.group || prev.batch != b.batch;
}

std::string group_caption(const HeatmapPlan& plan, int64_t group, Lang lang) {
  std::string heads;
  for (size_t h = 0; h < plan.head_groups.size(); ++h)
    if (plan.head_groups[h] == group) heads += (heads.empty() ? "" : ", ") + std::to_string(h);
  return fmt::format(ui_text(lang, plan.head_group_text), group, heads);
}

std::string scale_number(double v) {
  if (v == 0.0) return "0";
  std::string s = fmt::format("{:.4g}", v);
  return s;
}

std::string cell_decimals(double v, int decimals) {
  std::string s = fmt::format("{:.{}f}", v, decimals);
  if (s[0] == '-' && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
  return s;
}

Rgb viridis(double t) {
  // matplotlib's viridis at 0, 0.1, ..., 1.
  // clang-format off
  static const std::array<Rgb, 11> stops = {{{68, 1, 84},     {72, 36, 117},  {65, 68, 135},
                                             {53, 95, 141},   {42, 120, 142}, {33, 145, 140},
                                             {34, 168, 132},  {68, 191, 112}, {122, 209, 81},
                                             {189, 223, 38},  {253, 231, 37}}};
  // clang-format on
  t = std::clamp(std::isfinite(t) ? t : 0.0, 0.0, 1.0) * 10.0;
  const int i = std::min(9, static_cast<int>(t));
  const double f = t - i;
  auto mix = [f](int a, int b) { return static_cast<int>(std::lround(a + (b - a) * f)); };
  return {mix(stops[i].r, stops[i + 1].r), mix(stops[i].g, stops[i + 1].g), mix(stops[i].b, stops[i + 1].b)};
}

}  // namespace attn
