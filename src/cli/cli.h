// The command line: an options struct, its CLI11 binding, validation, and running it.
// Parsing and doing are apart; only main() turns errors into exit codes.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "core/config.h"
#include "input/embeddings.h"
#include "render/render.h"
#include "core/walk.h"
#include "text/text_options.h"
#include "input/input_stream.h"

namespace attn {

// Misuse of an option (exit code 2). The message names the option.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Options {
  std::string stage = "dot-product";  // a stage name, "all" (the chapter) or "bonus"
  std::string input;                   // empty: the built-in journey embeddings; "-": stdin
  std::string random_input;            // "TxD": torch.randn(T, D) embeddings instead
  TextOptions text;                    // --text, --text-file: the learner's own sentence
  std::string format = "text";         // text, json or html
  std::string output = "-";
  bool list_stages = false;
  bool list_steps = false;
  std::vector<std::string> only;       // keep only these steps

  int64_t query = 2;
  uint64_t seed = 0;
  bool seed_given = false;
  int64_t d_out = 2;
  int64_t heads = 2;
  double dropout = 0.5;
  double attn_dropout = 0.0;
  int64_t batch = 2;
  bool qkv_bias = false;
  std::string init = "rand";
  std::string dropout_rng = "default";
  CausalSoftmax causal_softmax;        // --softmax-dim, --torch-threads
  bool d_out_given = false, heads_given = false;  // else the bonus stages use their own
  bool query_given = false;  // else a one-token --text uses x(1)
  BonusConfig bonus;                   // --kv-groups, --window, --rope-base, --block
  TrainConfig train;                   // --steps, --lr, --weight-decay (backward)
  std::string optimizer = "adamw";     // --optimizer (backward)

  bool explain = false;
  std::string lang = "en";
  bool heatmap = false;
  std::string heatmap_scale = "fixed";  // fixed (weights on 0..1) or matrix (each its own)
  std::string color = "auto";          // auto, always, never
  bool step = false;                   // pause after each step (terminal only)
  bool stats = false;                  // time and peak memory on stderr
  uint64_t max_input_mb = kDefaultMaxInputMb;  // --max-input-mb: larger inputs are refused
};

// The walk options alone (no bench, no output or terminal options needed), parsed with the
// same CLI11 binding and checks as the command line: the page (src/web/) passes the same
// arguments. `args` excludes the program name. Throws UsageError.
Options parse_walk_options(const std::vector<std::string>& args);

// Every option of the binding, machine-readable, for the page's controls: a JSON array of
// {"name": "d-out", "flag": bool, "type": "INT", "choices": [...], "default": "2", "help": "..."}.
std::string options_json();

// The embeddings the options ask for (--text, --input file, --random-input, or the chapter's six).
Embeddings load_input(const Options& o);

// The walks of o.stage on `emb`, localized, and --only applied. Fills `ro` (language,
// explain, heatmap; colour is left to the caller). Throws UsageError for option combinations
// that need the input (--query, --heads) and for unknown --only names.
std::vector<Walk> make_walks(Options o, Embeddings emb, RenderOptions* ro);

// Parse argv and run. Returns the exit code; throws InputError/UsageError/OutputError.
int run_cli(int argc, char** argv);

// Everything run_cli checks before it reads an input file or runs a walk: parsing, option
// combinations, --random-input and whether the walk fits in memory. Writes nothing (not even
// --help) and touches no file; throws UsageError/InputError. For the argv fuzzer.
void check_cli(const std::vector<std::string>& args);

}  // namespace attn
