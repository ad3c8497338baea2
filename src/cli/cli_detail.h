// Internal: what the command line's two halves share. cli_options.cpp binds the options with
// CLI11 and checks them; cli.cpp runs what they ask for; cli_docs.cpp writes them into the
// man page, the completions and the README.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bench/bench.h"
#include "check/check.h"
#include "request/option_table.h"
#include "request/request.h"

namespace attn {

// bench's report: text or JSON.
enum class ReportFormat {
  Text,
  Json
};
const std::vector<EnumName<ReportFormat>>& enum_names(ReportFormat);
// check's report: text, JSON, or an HTML fragment (the notebook's display).
enum class CheckFormat {
  Text,
  Json,
  Html
};
const std::vector<EnumName<CheckFormat>>& enum_names(CheckFormat);

namespace cli_detail {

// attn-walk check DUMP: its own --stage (chosen from the dump when missing), format and
// tolerances, plus every option that decides the walk's numbers.
struct CheckOptions {
  std::string dump;
  StageChoice stage = StageChoice::DotProduct;  // one stage, not a group
  bool stage_given = false;                     // else chosen from the dump (or --weights)
  CheckFormat format = CheckFormat::Text;
  Tolerance tol;
};

struct ParsedArgs;
// What a command does once its options are parsed: run (run_cli) or only check (check_cli).
using Command = int (*)(ParsedArgs&);
struct Commands {
  Command walk, bench, check;
};

struct ParsedArgs {
  Options o;
  BenchOptions bench;
  ReportFormat bench_format = ReportFormat::Text;
  CheckOptions check;
  // The command the command line chose: walk, unless a subcommand's callback chose its own.
  Command command = nullptr;
  // The walk's options given on the command line that no stage of --stage uses (a note each).
  std::vector<UnusedOption> unused;
  // attn-walk check: the walk's options given, in the options table's order, with their values
  // as given ("" for a flag).
  std::vector<std::pair<const OptionRow*, std::string>> check_walk_args;
};

// The whole command line bound to `p`: the walk's options, bench's and check's; each
// subcommand's callback sets p.command from `commands`.
void bind_all(CLI::App& app, ParsedArgs& p, const Commands& commands);

// cli_options.cpp: argv into ParsedArgs (an exit code when --help or --version ended the run).
std::optional<int> parse_args(int argc, char** argv, ParsedArgs& p, const Commands& commands, bool print);

// bench's own checks: heads divide d_model, and the forward fits in memory.
void check_bench(const BenchOptions& b);

// The man page's, the README's and the completions' name for an option's value, for the
// options outside the table (bench's and check's own): "T", "FILE". Empty: none declared.
std::string own_metavar(const std::string& command, const std::string& long_name);

}  // namespace cli_detail
}  // namespace attn
