// Writing a finished document: whole or not at all.
#pragma once

#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>

namespace attn {

// The output could not be written (exit code 1). The message names the file.
struct OutputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// "-" writes to stdout. A file is written to a temporary name beside it, flushed,
// and renamed over the target, so readers never see half a document.
void write_output(const std::string& path, const std::string& content);
// The same document given in pieces, written one after the other (a header and a tensor's
// bytes, without a copy of them joined).
// (A name of its own: as an overload, clang takes write_output(path, {a_string}) for the
// string form, GCC for this one.)
void write_output_pieces(const std::string& path, std::initializer_list<std::string_view> content);

}  // namespace attn
