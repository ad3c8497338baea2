// The command line: an options struct, its CLI11 binding, validation, and running it.
// Parsing and doing are apart; only main() turns errors into exit codes.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "config.h"
#include "input_stream.h"

namespace attn {

// Misuse of an option (exit code 2). The message names the option.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Options {
  std::string stage = "dot-product";  // a stage name, or "all"
  std::string input;                   // empty: the built-in journey embeddings; "-": stdin
  std::string random_input;            // "TxD": torch.randn(T, D) embeddings instead
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

  bool explain = false;
  std::string lang = "en";
  bool heatmap = false;
  std::string color = "auto";          // auto, always, never
  bool step = false;                   // pause after each step (terminal only)
  bool stats = false;                  // time and peak memory on stderr
  uint64_t max_input_mb = kDefaultMaxInputMb;  // --max-input-mb: larger inputs are refused
};

// Parse argv and run. Returns the exit code; throws InputError/UsageError/OutputError.
int run_cli(int argc, char** argv);

// Everything run_cli checks before it reads an input file or runs a walk: parsing, option
// combinations, --random-input and whether the walk fits in memory. Writes nothing (not even
// --help) and touches no file; throws UsageError/InputError. For the argv fuzzer.
void check_cli(const std::vector<std::string>& args);

}  // namespace attn
