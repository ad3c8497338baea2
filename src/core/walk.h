// A walk is what a stage produces: an ordered list of named steps, each holding
// one tensor. Stages only record steps; renderers (src/render/) present them.
#pragma once

#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "core/config.h"
#include "core/config_record.h"
#include "core/tensor.h"

namespace attn {

// A table of counts shown under a step: exercise 3.3's parameters, one row per parameter
// (its name, its shape, how many numbers it holds) and their total. The stage fills in the
// numbers; renderers lay them out (render/details.h).
struct ParameterTable {
  struct Row {
    std::string name;   // "W_query.weight"
    Shape shape;        // {768, 768}
    int64_t count = 0;  // 589824
  };
  std::vector<Row> rows;  // empty: the step has no table
  int64_t total = 0;
  std::string total_label;  // the word "total", filled by localize() (src/lang/)
};

// What a step is, for the renderers that draw more than its print (heatmaps, a plot, the
// "Parameter containing:" banner). The stage sets it where it records the step; renderers
// read it and never the step's name, so a renamed step keeps its heatmap. A closed set: the
// kinds the renderers tell apart, and no more.
enum class Role {
  Value,           // anything else: inputs, queries, keys, context vectors, sums
  Parameter,       // an nn.Parameter: printed after "Parameter containing:"
  Scores,          // attention scores, before or after masking (-inf marks a hidden cell)
  Weights,         // softmax weights (or weights times a 0/1 mask): heatmaps on the fixed 0..1 scale
  DroppedWeights,  // dropout applied to a (T, T) matrix: kept values scaled by 1/(1-p), its own range
  MaskHidden,      // a 0/1 mask where 1 marks a hidden cell (torch.triu): fixed 0..1 scale
  MaskKept,        // a 0/1 mask where 1 marks a kept cell (torch.tril): fixed 0..1 scale
  Series,          // a 1-D sequence (a training run's losses): HTML draws a line plot too
};

// What a step holds for print(), one of four payloads (Step::payload). Every step also has
// `value`, its numbers: what JSON's "data" carries (except for words) and what checks read.
// A tensor: print(value), or print() of a part of it (the rows of a 50257-row table that can
// be nonzero: print(t.grad[[ids]])); JSON and HTML still carry all of value.
struct TensorPayload {
  std::optional<Tensor> printed_part;
};
// Words rather than numbers (the text, its BPE pieces, the top tokens): JSON carries the words
// as the step's data, and no torch.Size is shown; `printed` is how print() shows them.
struct WordsPayload {
  std::vector<std::string> words;
  std::string printed;
};
// A Python number the notebook prints, as Python prints it ("1.0", "2360064"), and its type
// ("float", "int": shown where a tensor shows its torch.Size); value holds it as a 0-dim float32.
struct PythonNumberPayload {
  std::string printed;
  std::string type;
};
// Text shown verbatim instead of the tensor (a Python list, a block's one-line summary); JSON
// still carries value.
struct PrintedTextPayload {
  std::string text;
};
using Payload = std::variant<TensorPayload, WordsPayload, PythonNumberPayload, PrintedTextPayload>;

struct Step {
  std::string name;   // the chapter's variable name: "attn_scores_2", "sa_v2.W_query.weight"
  std::string title;  // what the step is, one line; filled by localize() from src/lang/
  Tensor value;
  Role role = Role::Value;
  Payload payload;  // a tensor unless the stage says otherwise
  // How the notebook shows it: results of autograd ops carry "grad_fn=<...>" /
  // "requires_grad=True" suffixes.
  std::vector<std::string> suffixes;  // e.g. {"grad_fn=<SoftmaxBackward0>"}
  // Filled by localize() (src/lang/): one to three sentences on what, why and shapes.
  std::string explanation;
  // Extra lines shown under the tensor (e.g. its shape as the notebook prints it), then
  // the parameter table if it has one.
  std::vector<std::string> details;
  ParameterTable parameter_table;
  // Where the notebook prints more than str(tensor): the label its print() puts before
  // the value ("Attention weights:") of a tensor or a Python number.
  std::string print_label;
  // A step the chapter does not have (attn-walk's own demonstration): its title says so.
  bool beyond_chapter = false;
  // A step meant to hold an infinity or a NaN (the naive softmax overflowing): holds_nonfinite
  // does not count it.
  bool shows_nonfinite = false;
  // When only text is rendered (Walk::summaries_only), a tensor that print() summarises is
  // kept as the part it shows (shown_part, tensor_summary.h): then `summarized` is set and
  // `full_shape` is the tensor's real shape.
  bool summarized = false;
  Shape full_shape;
  const Shape& shape() const { return summarized ? full_shape : value.shape; }
  // The book's section the step belongs to ("3.4.2", "2.5"), from Walk::section when it was
  // recorded; empty for a stage the notebooks do not have. The page links it (§).
  std::string section;
  // Picks the text "<stage>/<step>#<variant>" (src/lang/) when the step means something
  // different for this config (dropout with p = 0); empty: the plain text.
  std::string variant;
  // Placeholders for this step's texts only, over the walk's vars: a step recorded once
  // per token in a loop says which token ({t}) with the same text key.
  std::map<std::string, std::string> vars;
  // Heatmaps of a (B, H, T, T) step: heads that belong together, as one group index per
  // head (dimension 1), and the ui text that names a group (src/lang/, "{}" the group, then
  // "{}" its heads). Empty when every head stands alone. A stage sets them (GQA: the heads
  // that share one key/value group); renderers only draw the groups.
  std::vector<int64_t> head_groups;
  std::string head_group_text;
  // An integer tensor (token ids, exact in float32): printed as torch prints int64.
  bool is_int64 = false;
  // A Series step's axis titles, as the ui text keys (src/lang/) the stage picks: the HTML line
  // plot names its axes by them, not by the step's name. Empty: untitled axes.
  struct SeriesAxes {
    std::string x_key, y_key;
  } series_axes;
};

// A check a learner would make, computed from the walk's own tensors.
struct Check {
  std::string id;     // "softmax_rows_sum_to_1": the key of its label in src/lang/
  std::string label;  // filled by localize(); the id until then
  bool passed = false;
  double max_diff = 0.0;  // the largest absolute difference found
  size_t after_step = 0;  // shown after steps[after_step - 1]
  // What max_diff measures, filled by localize(): "largest difference", or the check's own
  // words where a large value is the expected outcome ("largest |row sum − 1|").
  std::string measure;
};

struct Walk {
  Walk(std::string stage_name, const Config& cfg)
      : stage(std::move(stage_name)), config(cfg), summaries_only(cfg.summaries_only) {}

  std::string stage;  // "causal"
  Config config;      // everything that shaped the numbers, tokens included
  // The JSON output's "config": set by the request layer (make_walks) from the option table;
  // empty for a walk made otherwise (a test's).
  ConfigRecord config_record;
  std::deque<Step> steps;          // a deque: add() hands out references that must stay valid
  std::vector<std::string> notes;  // one-line remarks shown once (e.g. which dropout kernel)
  std::vector<Check> checks;
  // Named values the texts of src/lang/ may use: {query}, {d_k}, {seed1}, ...
  std::map<std::string, std::string> vars;
  // The book's section of the steps recorded next (Step::section): a stage sets it where
  // the notebook's heading would be, before the cells under it ("3.4.2").
  std::string section;
  // Only text will be rendered: steps need only what print() shows (see record() and
  // summarize()). JSON, HTML and heatmaps need every value, so they leave this off.
  bool summaries_only = false;

  // Record a step; returns its value so stages read top to bottom:
  //   auto attn_weights = walk.add("attn_weights", Role::Weights, softmax(attn_scores));
  // The role (Role::Value when left out) says what renderers draw besides the print.
  // Titles and explanations are not written here: localize() (src/lang/) looks them up
  // by stage and step name and fills in walk.vars.
  const Tensor& add(std::string name, Tensor value, std::vector<std::string> suffixes = {});
  const Tensor& add(std::string name, Role role, Tensor value, std::vector<std::string> suffixes = {});
  const Tensor& add_parameter(std::string name, Tensor value, bool requires_grad = true);
  // A Python number the notebook prints, as Python prints it ("1.0", "2360064").
  void add_python(std::string name, double value, std::string printed, std::string type);
  // Words the notebook prints (the text, its pieces), shown as `printed`; value stays as given.
  void add_words(std::string name, std::vector<std::string> words, std::string printed, Tensor value = {});
  // As add(), for a value the stage does not read again: with summaries_only, a large
  // tensor is cut to what print() shows at once, so the whole of it need not stay in memory
  // (the (B, H, T, T) scores and weights). Compute checks on it before recording it.
  // Given a const reference, only the part kept is copied.
  void record(std::string name, Tensor&& value, std::vector<std::string> suffixes = {});
  void record(std::string name, const Tensor& value, std::vector<std::string> suffixes = {});
  void record(std::string name, Role role, Tensor&& value, std::vector<std::string> suffixes = {});
  void record(std::string name, Role role, const Tensor& value, std::vector<std::string> suffixes = {});
  // The step recorded last, to set what its record call does not (a variant, details).
  Step& last() { return steps.back(); }
  // Record a check, shown after the latest step; its label comes from src/lang/ by id.
  void add_check(std::string id, bool passed, double max_diff);
  // While a long step is computed: `part` of its `parts` are done (Config::on_part). Records
  // nothing; only a caller showing how far the walk has come hears of it.
  void part_done(const std::string& step, int64_t part, int64_t parts) const;
};

// With walk.summaries_only: cut every step's tensor to what print() shows (record() does
// it for one step at once). Run when the stage has finished with its values.
void summarize(Walk& walk);
// Put `first`'s steps, checks and notes before `walk`'s (steps localized already keep
// their texts); `walk`'s checks move along with their steps.
void prepend_steps(Walk& walk, Walk&& first);

// Whether a step's tensor holds a NaN or +inf where nothing was meant to (-inf is how the causal
// mask writes its blanks). The inputs are finite, so a float32 overflowed on the way or 0 was
// divided by 0, and what a text says of finite numbers (a row of weights summing to 1) need
// not hold for it.
bool holds_nonfinite(const Step& step);
// The first such step: a note naming it ("note.nonfinite", with the vars {nonfinite_index} and
// {nonfinite_step}), as the checks show from there. Run before summarize(), on every value.
void note_nonfinite(Walk& walk);

// --only: keep the steps named in `keep`, and the checks shown after them.
void keep_only(Walk& walk, const std::set<std::string>& keep);

}  // namespace attn
