// The fields of a walk request (WalkRequest: the walk's Config and what to walk) and of the
// command line (Options), and the error an option's misuse throws. The options table
// (option_table.h) names which field each option fills; request.h says what is done with a
// request. Apart from both, so that the table and make_config(), which reads the table, do
// not include each other.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/config.h"
#include "core/stage_place.h"
#include "input/input_stream.h"  // kDefaultMaxInputMb
#include "render/heatmap.h"      // HeatmapScale (--heatmap-scale)
#include "text/text_options.h"

namespace attn {

// How a walk is written (--format): one renderer each (src/cli/cli.cpp).
enum class Format {
  Text,
  Json,
  JsonCompact,
  Html
};
// --color: only on a terminal without NO_COLOR, always, or never.
enum class ColorMode {
  Auto,
  Always,
  Never
};
const std::vector<EnumName<Format>>& enum_names(Format);
const std::vector<EnumName<HeatmapScale>>& enum_names(HeatmapScale);
const std::vector<EnumName<ColorMode>>& enum_names(ColorMode);

// Misuse of an option (exit code 2). The message names the option.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// --stage: StageChoice, core/stage_place.h's (check chooses a stage too).
// Whether --stage `choice` walks stage s (core's stage_selected on the choice's name).
bool stage_selected(const StagePlace& s, StageChoice choice);

// A walk request is the walk's Config (core/config.h: every knob, declared there once, with its
// default; the option table binds the command line to its fields) and what the Config does
// not hold: what to walk, on which input, which options were given, and what the caller
// shows. make_config() fills in the rest of the Config: the input and what follows from it.
struct WalkRequest : Config {
  StageChoice stage = StageChoice::DotProduct;

  // The input, the first of these that is given; else the chapter's six tokens. (`text` is
  // the request's --text; Config::text, which it hides here, is the text make_config reads.)
  TextOptions text;                            // --text, --text-file: the learner's own sentence
  std::string random_input;                    // "TxD": torch.randn(T, D) embeddings
  std::string input;                           // --input: a file (.json or .npy); "-": stdin
  std::string input_json;                      // the page's table: embeddings as JSON text
  uint64_t max_input_mb = kDefaultMaxInputMb;  // --max-input-mb: larger inputs are refused

  // Which knobs were given; make_config derives the others from them.
  bool query_given = false;                       // else a one-token --text uses x(1)
  bool seed_given = false;                        // else the chapter's 123 and 789; given, --seed (seed1) is both
  bool d_out_given = false, heads_given = false;  // else the bonus stages use their own
  bool weight_decay_given = false;                // else AdamW's 0.1 (chapter 5's), SGD's 0 (torch.optim.SGD's)

  // What the caller shows, which decides what the walk keeps. (Config::on_step and on_part
  // tell a caller of the walk's progress: the page's engine.)
  bool keep_all_values = false;  // JSON, HTML and heatmaps read every value; text may keep summaries
  bool explain = false;          // attach each step's explanation (--explain; always on a page)
  bool heatmap = false;          // --heatmap: attention matrices drawn in the terminal
  HeatmapScale heatmap_scale = HeatmapScale::Fixed;
  std::string lang = "en";
  std::vector<std::string> only;  // keep only these steps
  bool list_steps = false;        // --list-steps: every step's name is wanted (gpt shortens text otherwise)
  // The document the walks become (text, json or html): its size counts in the memory check.
  Format document = Format::Text;
};

// The command line: a walk request, and where and how to write it.
struct Options {
  WalkRequest walk;
  Format format = Format::Text;
  std::string output = "-";
  bool list_stages = false;
  bool list_steps = false;
  ColorMode color = ColorMode::Auto;
  bool step = false;   // pause after each step (terminal only)
  bool stats = false;  // time and peak memory on stderr
};

}  // namespace attn
