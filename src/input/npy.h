// Reading embeddings from NumPy's .npy files (np.save), for inputs too large to type as JSON.
//
// Accepted: a 2-D array (tokens x embedding width) of float32 ('<f4') or float64 ('<f8'),
// little-endian, C (row-major) order, format version 1.0, 2.0 or 3.0. float64 values are
// rounded to float32, as tensor.float() does. Tokens are named x1..xT.
// Every problem throws InputError with a message that names the file and says how to fix it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "input/input_types.h"

namespace attn {

// True when `bytes` starts with the NumPy magic string "\x93NUMPY".
bool starts_with_npy_magic(const std::string& bytes);

// Parses the bytes of a .npy file; `source` names it in messages.
Embeddings parse_npy(const std::string& bytes, const std::string& source);

// The three parts of parse_npy, for a reader that validates the header before it reads the
// data (load_embeddings): where the header ends, the header itself, then the values.
struct NpyLayout {
  size_t data_start;  // bytes before the values: magic, version, header length, header
  uint64_t rows, cols;
  size_t item;  // 4 (float32) or 8 (float64)
  uint64_t data_bytes() const { return rows * cols * item; }
};
// Needs the 10 or 12 bytes of the preamble (fewer: a "truncated" message).
size_t npy_header_end(const std::string& bytes, const std::string& source);
// Needs the bytes up to npy_header_end; checks dtype, order and shape.
NpyLayout parse_npy_header(const std::string& bytes, const std::string& source);
// Needs every byte of the file: refuses truncated data and trailing bytes, NaN and inf.
Embeddings npy_values(const NpyLayout& layout, const std::string& bytes, const std::string& source);

}  // namespace attn
