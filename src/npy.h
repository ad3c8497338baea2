// Reading embeddings from NumPy's .npy files (np.save), for inputs too large to type as JSON.
//
// Accepted: a 2-D array (tokens x embedding width) of float32 ('<f4') or float64 ('<f8'),
// little-endian, C (row-major) order, format version 1.0, 2.0 or 3.0. float64 values are
// rounded to float32, as tensor.float() does. Tokens are named x1..xT.
// Every problem throws InputError with a message that names the file and says how to fix it.
#pragma once

#include <string>

#include "embeddings.h"

namespace attn {

// True when `bytes` starts with the NumPy magic string "\x93NUMPY".
bool starts_with_npy_magic(const std::string& bytes);

// Parses the bytes of a .npy file; `source` names it in messages.
Embeddings parse_npy(const std::string& bytes, const std::string& source);

}  // namespace attn
