// Internal: what the command line's two halves share. cli_options.cpp binds the options with
// CLI11 and checks them; cli.cpp runs what they ask for.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bench/bench.h"
#include "check/check.h"
#include "request/request.h"

namespace attn::cli_detail {

// attn-walk check DUMP: its own --stage (chosen from the dump when missing), format and
// tolerances, plus every option that decides the walk's numbers.
struct CheckOptions {
  std::string dump, stage, format = "text";
  Tolerance tol;
};

struct ParsedArgs {
  Options o;
  BenchOptions bench;
  bool is_bench = false;
  CheckOptions check;
  bool is_check = false;
};

// cli_options.cpp: argv into ParsedArgs (an exit code when --help or --version ended the run).
std::optional<int> parse_args(int argc, char** argv, ParsedArgs& p, bool print);

// bench's own checks: heads divide d_model, and the forward fits in memory.
void check_bench(const BenchOptions& b);

}  // namespace attn::cli_detail
