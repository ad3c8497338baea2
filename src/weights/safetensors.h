// The safetensors format (Hugging Face's, and safetensors.torch.save_file's): an 8-byte
// little-endian header length N, N bytes of JSON {"key": {"dtype", "shape", "data_offsets":
// [begin, end]}, "__metadata__": {...}}, then the data, offsets counted from its start.
#pragma once

#include <string>
#include <vector>

#include "weights/raw_tensor.h"

namespace attn::weights {

// Whether `file` looks like safetensors: at least 9 bytes, the 9th the JSON header's '{'.
bool looks_like_safetensors(Bytes file);

// Every tensor of the file, in the header's order, each checked: a known dtype, a shape whose
// bytes are what its data_offsets hold, inside the data, overlapping no other. Throws
// WeightsError naming `path` and the key or offset at fault.
std::vector<RawTensor> read_safetensors(Bytes file, const std::string& path);

}  // namespace attn::weights
