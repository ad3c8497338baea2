// PyTorch's zip format (torch.save since 1.6): <archive>/data.pkl, the pickled state dict, and
// <archive>/data/<key>, one stored record per storage. Read as torch.load(path,
// weights_only=True) reads it, through the stored-only zip reader and the restricted unpickler.
#pragma once

#include <string>
#include <vector>

#include "weights/raw_tensor.h"

namespace attn::weights {

// Every tensor of the state dict, viewing its storage record in the file (strides as pickled).
// Checks each record used against its CRC-32 and its size. Throws WeightsError naming `path`.
std::vector<RawTensor> read_torch_zip(Bytes file, const std::string& path);

// Whether `file` is the legacy (pre-1.6, _use_new_zipfile_serialization=False) torch.save
// format: a bare pickle protocol 2 whose first object is the magic number.
bool looks_like_legacy_torch_save(Bytes file);

}  // namespace attn::weights
