// The command line: parsing argv (the walk's options are the request's table, bench's and
// check's their own), running the walks, check or bench, and writing what they give.
// Parsing and doing are apart; only main() turns errors into exit codes.
#pragma once

#include <string>
#include <vector>

#include "request/request.h"

namespace attn {

// Parse argv and run. Returns the exit code; throws InputError/UsageError/OutputError.
int run_cli(int argc, char** argv);

// Everything run_cli checks before it reads an input file or runs a walk: parsing, option
// combinations, --random-input and whether the walk fits in memory. Writes nothing (not even
// --help) and touches no file; throws UsageError/InputError. For the argv fuzzer.
void check_cli(const std::vector<std::string>& args);

}  // namespace attn
