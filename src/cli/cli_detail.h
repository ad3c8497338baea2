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
#include "cli/cli.h"

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

// The checks (cli_options.cpp says what each one refuses).
std::pair<int64_t, int64_t> parse_size(const std::string& s);
void check_walk_options(const Options& o, int64_t T);
void check_walk_fits(const Options& o, int64_t T, int64_t d_in, const std::string& what);
void check_bench(const BenchOptions& b);

}  // namespace attn::cli_detail
