#include "weights/raw_tensor.h"

#include <cstring>

#include "core/float_bits.h"

namespace attn::weights {

size_t dtype_size(DType t) {
  // clang-format off
  switch (t) {
    case DType::F64: case DType::I64: return 8;
    case DType::F32: case DType::I32: return 4;
    case DType::F16: case DType::BF16: case DType::I16: return 2;
    case DType::I8: case DType::U8: case DType::Bool: return 1;
    case DType::Other: return 0;
  }
  // clang-format on
  return 0;
}

bool RawTensor::row_major() const {
  int64_t expected = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] != 1 && stride[d] != expected) return false;
    expected *= shape[d];
  }
  return true;
}

float half_to_float(uint16_t h) {
  // c10/util/Half.h, fp16_ieee_to_fp32_value: normal numbers rebias the exponent by a float
  // multiplication, subnormals come from a magic-number subtraction.
  const uint32_t w = static_cast<uint32_t>(h) << 16;
  const uint32_t sign = w & 0x80000000u;
  const uint32_t two_w = w + w;
  const uint32_t exp_offset = 0xE0u << 23;
  const float exp_scale = bits_to_float(0x7800000u);  // 0x1.0p-112f
  const float normalized = bits_to_float((two_w >> 4) + exp_offset) * exp_scale;
  const uint32_t magic_mask = 126u << 23;
  const float magic_bias = 0.5f;
  const float denormalized = bits_to_float((two_w >> 17) | magic_mask) - magic_bias;
  const uint32_t denormalized_cutoff = 1u << 27;
  return bits_to_float(sign | (two_w < denormalized_cutoff ? float_to_bits(denormalized)
                                                           : float_to_bits(normalized)));
}

float bfloat16_to_float(uint16_t b) { return bits_to_float(static_cast<uint32_t>(b) << 16); }

float RawTensor::element(int64_t flat) const {
  int64_t offset = 0;  // the strided element offset of the logical row-major index
  for (size_t d = shape.size(); d-- > 0;) {
    const int64_t i = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
    offset += i * stride[d];
  }
  const uint8_t* p = data + static_cast<size_t>(offset) * dtype_size(dtype);
  // clang-format off
  switch (dtype) {
    case DType::F32: return bits_to_float(le32(p));
    case DType::F16: return half_to_float(le16(p));
    case DType::BF16: return bfloat16_to_float(le16(p));
    case DType::F64: { const uint64_t u = le64(p); double v; std::memcpy(&v, &u, 8); return static_cast<float>(v); }
    case DType::I64: return static_cast<float>(static_cast<int64_t>(le64(p)));
    case DType::I32: return static_cast<float>(static_cast<int32_t>(le32(p)));
    case DType::I16: return static_cast<float>(static_cast<int16_t>(le16(p)));
    case DType::I8: return static_cast<float>(static_cast<int8_t>(p[0]));
    case DType::U8: case DType::Bool: return static_cast<float>(p[0]);
    case DType::Other: break;
  }
  // clang-format on
  return 0.0f;
}

}  // namespace attn::weights
