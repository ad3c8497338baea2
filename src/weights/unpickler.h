// A restricted unpickler for the data.pkl of PyTorch's zip format, following PyTorch 1.13's
// torch/_weights_only_unpickler.py (torch.load(..., weights_only=True)): the same opcodes, and
// GLOBAL only for the names that file allows (collections.OrderedDict, torch.nn.Parameter,
// torch.Size, the storage and tensor classes, dtypes, torch._utils' _rebuild_* functions).
// A pickle naming anything else (os.system, builtins.eval ...) is refused at its GLOBAL, by
// name. Nothing is ever called: REDUCE of an allowed function builds a description of the
// tensor it would rebuild. Memory grows at most linearly with the pickle's length (every
// opcode adds at most one object; tuples and sizes are shared, never copied per use).
#pragma once

#include <string>
#include <vector>

#include "weights/raw_tensor.h"

namespace attn::weights {

// A tensor as the pickle describes it: which storage record (data/<key>), its element type,
// and the strided view into it (what _rebuild_tensor_v2 receives).
struct PickledTensor {
  std::string name;           // the state dict's key
  std::string storage_key;    // the record data/<storage_key>
  std::string storage_class;  // "torch.FloatStorage"
  DType dtype = DType::Other;
  int64_t storage_numel = 0;  // elements of the storage (persistent id's numel)
  int64_t storage_offset = 0;
  Shape shape;
  std::vector<int64_t> stride;
};

// The state dict the pickle builds: a dict or OrderedDict from names to tensors (or
// Parameters), in the order the keys were first set. Throws WeightsError naming `where` and
// the offset, opcode or global at fault.
std::vector<PickledTensor> unpickle_state_dict(Bytes pickle, const std::string& where);

}  // namespace attn::weights
