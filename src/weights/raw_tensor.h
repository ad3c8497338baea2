// What the three readers (safetensors, PyTorch's zip, the unpickler) hand the GPT mapping: a
// tensor's dtype, shape and strides, and where its first element lies in the mapped file.
// Nothing is converted yet; gpt_weights.cpp widens and places the parameters.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace attn::weights {

// A read-only run of bytes (inside the mapping, or a fuzzer's input).
struct Bytes {
  const uint8_t* data = nullptr;
  size_t size = 0;
};

// The element types a weights file may name. Only F32, F16 and BF16 hold parameters (widened
// to float32 exactly); the integer and boolean ones may hold a causal mask.
enum class DType {
  F32,
  F16,
  BF16,
  F64,
  I64,
  I32,
  I16,
  I8,
  U8,
  Bool,
  Other
};
size_t dtype_size(DType t);  // bytes per element (0 for Other)

struct RawTensor {
  std::string name;  // the key in the file (prefix included)
  DType dtype = DType::Other;
  std::string dtype_name;  // as the file spells it ("F32", "torch.HalfStorage")
  Shape shape;
  std::vector<int64_t> stride;                  // in elements; row-major for safetensors
  const uint8_t* data = nullptr;                // element [0, 0, ...]; every strided element lies in the file
  bool row_major() const;                       // strides are the contiguous ones (sizes of 1 ignored)
  float element(int64_t flat_row_major) const;  // the value at a logical row-major index, as float32
};

// Little-endian reads (the caller has checked the bounds).
inline uint16_t le16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
inline uint32_t le32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
         (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
}
inline uint64_t le64(const uint8_t* p) {
  return static_cast<uint64_t>(le32(p)) | (static_cast<uint64_t>(le32(p + 4)) << 32);
}

// float16 and bfloat16 to float32, exactly (every value of either is a float32): float16 as
// c10::detail::fp16_ieee_to_fp32_value computes it (a signalling NaN comes out quiet, as
// on PyTorch's copy), bfloat16 as its 16 bits on top of 16 zero bits, as c10::BFloat16 does.
float half_to_float(uint16_t h);
float bfloat16_to_float(uint16_t b);

}  // namespace attn::weights
