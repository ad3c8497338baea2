// The fields of a walk request (WalkRequest) and of the command line (Options), and the error
// an option's misuse throws. The options table (option_table.h) names which field each option
// fills; request.h says what is done with a request. Apart from both, so that the table and
// make_config(), which reads the table, do not include each other.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/config.h"
#include "input/input_stream.h"  // kDefaultMaxInputMb
#include "render/heatmap.h"          // HeatmapScale (--heatmap-scale)
#include "text/text_options.h"

namespace attn {

// How a walk is written (--format): one renderer each (src/cli/cli.cpp).
enum class Format { Text, Json, JsonCompact, Html };
// --color: only on a terminal without NO_COLOR, always, or never.
enum class ColorMode { Auto, Always, Never };
const std::vector<EnumName<Format>>& enum_names(Format);
const std::vector<EnumName<HeatmapScale>>& enum_names(HeatmapScale);
const std::vector<EnumName<ColorMode>>& enum_names(ColorMode);

// Misuse of an option (exit code 2). The message names the option.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct WalkRequest {
  std::string stage = "dot-product";  // a stage name, "all" (the chapter) or "bonus"

  // The input, the first of these that is given; else the chapter's six tokens.
  TextOptions text;                    // --text, --text-file: the learner's own sentence
  std::string random_input;            // "TxD": torch.randn(T, D) embeddings
  std::string input;                   // --input: a file (.json or .npy); "-": stdin
  std::string input_json;              // the page's table: embeddings as JSON text
  uint64_t max_input_mb = kDefaultMaxInputMb;  // --max-input-mb: larger inputs are refused

  // The knobs (src/request/option_table.cpp says which Config field each one sets).
  int64_t query = 2;
  bool query_given = false;  // else a one-token --text uses x(1)
  uint64_t seed = 0;
  bool seed_given = false;   // else the chapter's 123 and 789
  int64_t d_out = 2;
  int64_t heads = 2;
  bool d_out_given = false, heads_given = false;  // else the bonus stages use their own
  double dropout = 0.5;
  double attn_dropout = 0.0;
  int64_t batch = 2;
  bool qkv_bias = false;
  InitKind init = InitKind::Rand;
  DropoutKernel dropout_rng = DropoutKernel::Default;
  std::string blas_kernel;             // --blas-kernel: "" = the one OpenBLAS picks on this machine
  CausalSoftmax causal_softmax;        // --softmax-dim, --torch-threads
  BonusConfig bonus;                   // --kv-groups, --window, --rope-base, --block, --latent-dim
  TrainConfig train;                   // --steps, --lr, --weight-decay, --grad-step, --optimizer (the backward stage)
  bool weight_decay_given = false;     // else AdamW's 0.1 (chapter 5's), SGD's 0 (torch.optim.SGD's)
  // --stage gpt: the weights file and what to open (Config::gpt).
  std::string weights;                 // --weights FILE
  int64_t layer = -1, head = -1;       // --layer L, --head H; -1: not given
  int64_t max_new_tokens = 0;          // --max-new-tokens N

  // What the caller shows, which decides what the walk keeps.
  bool keep_all_values = false;  // JSON, HTML and heatmaps read every value; text may keep summaries
  bool explain = false;          // attach each step's explanation (--explain; always on a page)
  bool heatmap = false;          // --heatmap: attention matrices drawn in the terminal
  HeatmapScale heatmap_scale = HeatmapScale::Fixed;
  std::string lang = "en";
  std::vector<std::string> only;  // keep only these steps
  bool list_steps = false;        // --list-steps: every step's name is wanted (gpt shortens text otherwise)
  // The document the walks become (text, json or html): its size counts in the memory check.
  Format document = Format::Text;
  // Told of each step as it is recorded (Config::on_step): the page's engine reports a long
  // walk's progress with it. Empty for the command line.
  std::function<void(const std::string& stage, const std::string& step)> on_step;
  // Told of the parts of a long step as they are done (Config::on_part). Empty for the command line.
  std::function<void(const std::string& stage, const std::string& step, int64_t part, int64_t parts)> on_part;
};

// The command line: a walk request, and where and how to write it.
struct Options {
  WalkRequest walk;
  Format format = Format::Text;
  std::string output = "-";
  bool list_stages = false;
  bool list_steps = false;
  ColorMode color = ColorMode::Auto;
  bool step = false;            // pause after each step (terminal only)
  bool stats = false;           // time and peak memory on stderr
};

}  // namespace attn
