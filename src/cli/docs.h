// The parts of the docs that list the options, written from the command line's own binding
// (the option table, src/request/option_table.cpp, and bench's and check's options): the man
// page's synopsis and OPTIONS, the README's usage and options table, the bash, fish and zsh
// completions, and docs/json-schema.md's list of the option behind each key of the JSON config. `make docs` writes them (tools/make_docs.cpp); tests/test_docs.cpp fails when a
// committed file differs from what they generate.
#pragma once

#include <string>
#include <vector>

namespace attn {

// One generated text: a whole file (region empty) or the lines between a file's markers
// "BEGIN GENERATED <region>" and "END GENERATED <region>" (each on a line of its own, in the
// file's comment syntax).
struct GeneratedDoc {
  std::string file;    // relative to the repository's root: "docs/attn-walk.1"
  std::string region;  // "options"; empty: the whole file
  std::string text;    // what belongs there, ending in a newline
};

std::vector<GeneratedDoc> generated_docs();

// `file_text` with `doc` in place: the whole text, or its region's lines replaced. Throws
// std::runtime_error naming the file and the region when the markers are missing.
std::string with_generated(const std::string& file_text, const GeneratedDoc& doc);

}  // namespace attn
