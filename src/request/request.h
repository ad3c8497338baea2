// A walk request: what to walk (the stage), on what (the input), with which knobs, and what
// the caller will show of it. The command line (src/cli/), the page (src/web/) and `attn-walk
// check` each fill one and hand it to make_walks(); nothing below them reads a flag.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/config.h"
#include "core/walk.h"
#include "input/embeddings.h"
#include "input/input_stream.h"
#include "render/render.h"
#include "text/text_options.h"

namespace attn {

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
  std::string init = "rand";
  std::string dropout_rng = "default";
  CausalSoftmax causal_softmax;        // --softmax-dim, --torch-threads
  BonusConfig bonus;                   // --kv-groups, --window, --rope-base, --block, --latent-dim
  TrainConfig train;                   // --steps, --lr, --weight-decay (the backward stage)
  std::string optimizer = "adamw";     // --optimizer (the backward stage): adamw or sgd

  // What the caller shows, which decides what the walk keeps.
  bool keep_all_values = false;  // JSON, HTML and heatmaps read every value; text may keep summaries
  bool explain = false;          // attach each step's explanation (--explain; always on a page)
  bool heatmap = false;          // --heatmap: attention matrices drawn in the terminal
  std::string heatmap_scale = "fixed";  // --heatmap-scale: fixed (weights on 0..1) or matrix (each its own)
  std::string lang = "en";
  std::vector<std::string> only;  // keep only these steps
  // The document the walks become (text, json or html): its size counts in the memory check.
  std::string document = "text";
};

// The command line: a walk request, and where and how to write it.
struct Options {
  WalkRequest walk;
  std::string format = "text";  // text, json or html
  std::string output = "-";
  bool list_stages = false;
  bool list_steps = false;
  std::string color = "auto";   // auto, always, never
  bool step = false;            // pause after each step (terminal only)
  bool stats = false;           // time and peak memory on stderr
};

// What the command line's format asks of the walk: JSON, HTML and heatmaps read every value,
// and a page carries every explanation.
void set_document(Options& o);

// The embeddings the request asks for (--text, --random-input, --input file or stdin, the
// page's table, or the chapter's six), with the name messages and the JSON give them. Checks
// that the walk fits in memory (InputError) and parses --random-input (UsageError).
struct LoadedInput {
  Embeddings emb;
  std::string name;
  std::optional<text::TextEmbeddings> text;  // --text: its pieces, ids and chapter 2's steps
};
LoadedInput load_input(const WalkRequest& r);

// The walk's Config, whole: the input, every knob, and the checks that need the input (the
// query against the token count) or several options together (each selected stage's misuse
// rule). Throws UsageError.
Config make_config(const WalkRequest& r, LoadedInput in);

// The walks of r.stage on the request's input, localized, and --only applied. Fills `ro`
// (language, explain, heatmap; colour is left to the caller). Throws UsageError for option
// combinations that need the input (--query, --heads) and for unknown --only names.
std::vector<Walk> make_walks(const WalkRequest& r, RenderOptions* ro);

// "1024x768" -> {1024, 768}; UsageError naming --random-input otherwise.
std::pair<int64_t, int64_t> parse_size(const std::string& s);

// Throws UsageError if the request cannot walk c's input with c's knobs: the query past the
// last token, or a selected stage's misuse rule (StageInfo::misuse). Reads c's sizes only.
void check_walk_options(const WalkRequest& r, const Config& c);

// Throws InputError if the walk's tensors cannot fit in memory (`what` names the input).
void check_walk_fits(const WalkRequest& r, int64_t T, int64_t d_in, const std::string& what);

}  // namespace attn
