// Attention matrices drawn in the terminal, with token labels; and the plan (which
// blocks, which rows and columns, which scale) that the HTML renderer's SVG heatmaps share.
//
// Which steps get a heatmap (wants_heatmap), all three must hold:
//   1. the tensor has 2, 3 or 4 dimensions and its last two are (T, T), where
//      T = walk.config.num_tokens(): one row and one column per input token;
//   2. its role (Step::role, set by the stage that records it) is attention between tokens:
//        Scores          scores before or after masking ("attn_scores", "attn_scores_masked", "masked")
//        Weights         softmax weights, causal or not ("attn_weights", "masked_simple_norm")
//        DroppedWeights  dropout applied to a (T, T) matrix ("dropout_ones", "dropout_attn_weights")
//        MaskHidden      a 0/1 mask whose 1 hides a cell ("mask")
//        MaskKept        a 0/1 mask whose 1 keeps a cell ("mask_simple")
//   3. nothing else: a (T, T) tensor that only happens to be square (inputs with d_in == T,
//      "a_at_a_T" of the chapter's fixed example, sa_v1_output with d_out == T) is a
//      Role::Value, not attention between tokens, and gets no heatmap.
//
// How a step is drawn (plan_heatmap):
//   - every (T, T) block: a 2-D tensor is one block; (B, T, T) is labelled "batch b";
//     (B, H, T, T) is labelled "batch b, head h"; when the step groups its heads
//     (Step::head_groups), each block knows its group and each group gets a caption that
//     names it and its heads, drawn before (terminal) or around (HTML) its blocks;
//   - a batch that is bit-for-bit the same as batch 0 (the chapter stacks copies of the
//     same inputs) is drawn once, with a note naming the batches left out;
//   - at most `max_blocks` blocks are drawn, with a note saying how many were left out;
//   - T > max_cells: max_cells evenly spaced rows and columns (always the first and the
//     last), each cell a real entry of the matrix, with a note; rows keep their indices;
//   - with HeatmapScale::Matrix (--heatmap-scale matrix), each matrix on its own scale,
//     from its smallest to its largest finite value (exact zeros, marked apart, left out), so that a 12-token causal walk's small
//     weights are told apart; each block then has its own legend;
//   - otherwise one colour scale per step (so heads compare): from min(0, smallest finite value) to
//     max(0, largest finite value); softmax weights and 0/1 masks (Role::Weights,
//     Role::MaskHidden, Role::MaskKept) use the fixed scale 0..1 instead, so one colour
//     is one value in every matrix; the masks' legend says what a 1 marks; -inf cells ("masked") and exact zeros ("zero": what
//     softmax makes of -inf, or what a 0 in a mask or a dropout leaves) are marked apart
//     from small weights.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "render/display_width.h"  // clean_utf8, sanitize_label, display_width, fit_width, glyphs
#include "render/render.h"

namespace attn {

// True for steps worth a heatmap: (..., T, T) attention scores, weights and masks (rule above).
bool wants_heatmap(const Walk& walk, const Step& step);
// True for the roles drawn as heatmaps (rule 2 above).
bool draws_heatmap(Role role);

// The heatmap of every (T, T) block of the step, or "" if it has none. Colour (256-colour
// backgrounds) when opts.color, otherwise the shading ramp ░▒▓█ with ·· for exact zeros
// and ×× for -inf. Labels are the walk's tokens, padded and cut by display width
// (CJK characters take two columns).
std::string render_heatmap(const Walk& walk, const Step& step, const RenderOptions& opts);

// ---- Shared with the HTML renderer (and the tests) ----

enum class CellKind {
  Value,
  Zero,
  Masked,
  Invalid  // NaN or +inf
};

// --heatmap-scale fixed|matrix (see above)
enum class HeatmapScale {
  Fixed,
  Matrix
};

struct HeatmapBlock {
  double lo = 0.0, hi = 1.0;  // the block's colour scale: the plan's, or its own (Matrix)
  int64_t batch = -1;         // -1 when the tensor has no such dimension
  int64_t head = -1;
  int64_t group = -1;  // Step::head_groups[head], or -1
  size_t offset = 0;   // index into step.value.data of the block's [0][0]
};

struct HeatmapPlan {
  int64_t T = 0;
  // clang-format off
  std::vector<int64_t> index;              // the rows (and columns) drawn, 0-based
  std::vector<HeatmapBlock> blocks;        // the blocks drawn, in order
  std::vector<int64_t> repeated_batches;   // batches equal to batch 0, not drawn
  size_t blocks_left_out = 0;              // beyond max_blocks
  double lo = 0.0, hi = 1.0;               // the colour scale (of every block unless per_matrix)
  bool per_matrix = false;                 // each block on its own scale (HeatmapBlock::lo, hi)
  bool has_zero = false, has_masked = false, has_invalid = false;  // among the cells drawn
  // clang-format on
  // Softmax weights or a 0/1 mask: drawn on the fixed scale 0..1 when every value is in it.
  bool probabilities = false;
  // "mask" (Role::MaskHidden, triu: 1 = hidden) or "mask_simple" (Role::MaskKept, tril: 1 =
  // kept), or the stage's own ("swa.mask"): the legend's key, else "".
  std::string mask_meaning;
  // Step::head_groups and Step::head_group_text (empty: no groups).
  std::vector<int64_t> head_groups;
  std::string head_group_text;
  bool sampled() const { return static_cast<int64_t>(index.size()) < T; }
};

// Requires wants_heatmap(walk, step) (or at least a (..., T, T) tensor of 2-4 dims).
HeatmapPlan plan_heatmap(const Walk& walk, const Step& step, int64_t max_cells, size_t max_blocks,
                         HeatmapScale scale = HeatmapScale::Fixed);

// The sanitized tokens of the rows (and columns) the plan draws; *are_positions is set
// when they are just x1, x2, ... (then a position number in front would repeat them).
std::vector<std::string> heatmap_labels(const Walk& walk, const HeatmapPlan& plan, bool* are_positions);

CellKind cell_kind(float v);
// Where v falls on the plan's scale, or on the block's, in [0, 1].
double cell_level(const HeatmapPlan& plan, float v);
double cell_level(const HeatmapBlock& block, float v);

// "batch 0, head 1" (or "" for a 2-D step), in the chosen language.
std::string block_caption(const HeatmapBlock& block, Lang lang);
// The notes a plan needs (sampling, repeated batches, blocks left out), in the chosen language.
std::vector<std::string> heatmap_notes(const HeatmapPlan& plan, Lang lang);
// True if blocks[i] is the first block of its head group (in its batch); then
// group_caption() names the group and lists its heads ("K/V group 0, shared by heads 0, 1").
bool starts_group(const HeatmapPlan& plan, size_t i);
std::string group_caption(const HeatmapPlan& plan, int64_t group, Lang lang);
// Short words of the heatmap legends: "rows", "masked", "zero", "invalid", "scale", "title".
std::string heatmap_text(Lang lang, const std::string& key);
// A number on a legend: 4 significant digits, no trailing zeros ("0.1921", "1", "-0.05").
std::string scale_number(double v);
// A number in a cell: `decimals` fixed decimals, and a value that rounds to zero written as
// zero ("0.00", never "-0.00").
std::string cell_decimals(double v, int decimals);

// Viridis, t in [0, 1] -> {r, g, b}.
struct Rgb {
  int r, g, b;
};
Rgb viridis(double t);

}  // namespace attn
