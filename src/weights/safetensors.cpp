#include "weights/safetensors.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "weights/gpt_weights.h"

namespace attn::weights {

namespace {

// safetensors' own limit on the header (MAX_HEADER_SIZE): no valid file has a larger one.
constexpr uint64_t kSafetensorsMaxHeader = 100'000'000;

DType safetensors_dtype(const std::string& s) {
  static const std::pair<const char*, DType> names[] = {
      // clang-format off
      {"F32", DType::F32}, {"F16", DType::F16}, {"BF16", DType::BF16}, {"F64", DType::F64},
      {"I64", DType::I64}, {"I32", DType::I32}, {"I16", DType::I16}, {"I8", DType::I8},
      {"U8", DType::U8},   {"BOOL", DType::Bool}};
  // clang-format on
  for (const auto& [name, t] : names)
    if (s == name) return t;
  return DType::Other;
}

// The other dtypes safetensors knows: sized, so the offsets can still be checked; none is read.
size_t other_dtype_size(const std::string& s) {
  if (s == "U16") return 2;
  if (s == "U32") return 4;
  if (s == "U64") return 8;
  if (s == "F8_E5M2" || s == "F8_E4M3") return 1;
  return 0;
}

std::string safetensors_shape_text(const nlohmann::json& shape) { return shape.dump(); }

}  // namespace

bool looks_like_safetensors(Bytes file) { return file.size >= 9 && file.data[8] == '{'; }

std::vector<RawTensor> read_safetensors(Bytes file, const std::string& path) {
  if (file.size < 8) throw WeightsError("st_truncated", {{"path", path}, {"bytes", std::to_string(file.size)}});
  const uint64_t header_len = le64(file.data);
  if (header_len > file.size - 8)
    throw WeightsError("st_header_past_end",
                       {{"path", path}, {"length", std::to_string(header_len)}, {"bytes", std::to_string(file.size)}});
  if (header_len > kSafetensorsMaxHeader)
    throw WeightsError("st_header_too_long", {{"path", path}, {"length", std::to_string(header_len)}});
  const char* text = reinterpret_cast<const char*>(file.data + 8);
  const nlohmann::json header = nlohmann::json::parse(text, text + header_len, nullptr, false);
  if (header.is_discarded() || !header.is_object())
    throw WeightsError("st_header_not_object", {{"path", path}, {"end", std::to_string(8 + header_len)}});
  const uint8_t* data = file.data + 8 + header_len;
  const uint64_t data_size = file.size - 8 - header_len;

  std::vector<RawTensor> tensors;
  std::vector<std::pair<uint64_t, uint64_t>> spans;  // (begin, end) per tensor
  for (const auto& [key, info] : header.items()) {
    if (key == "__metadata__") continue;
    const std::string& name = key;                                           // (a lambda may not capture a structured binding before C++20)
    const auto at = [&path, &name](const char* id, WeightsErrorVars vars) {  // an error of this tensor's entry
      vars["path"] = path;
      vars["key"] = name;
      return WeightsError(id, std::move(vars));
    };
    if (!info.is_object() || !info.contains("dtype") || !info["dtype"].is_string() ||
        !info.contains("shape") || !info["shape"].is_array() || !info.contains("data_offsets") ||
        !info["data_offsets"].is_array() || info["data_offsets"].size() != 2)
      throw at("st_entry_fields", {});
    RawTensor t;
    t.name = key;
    t.dtype_name = info["dtype"].get<std::string>();
    t.dtype = safetensors_dtype(t.dtype_name);
    size_t item = t.dtype == DType::Other ? other_dtype_size(t.dtype_name) : dtype_size(t.dtype);
    if (item == 0) throw at("st_unknown_dtype", {{"dtype", t.dtype_name}});
    uint64_t numel = 1;
    bool overflow = false;
    for (const auto& d : info["shape"]) {
      if (!d.is_number_unsigned())
        throw at("st_shape_not_sizes", {{"shape", safetensors_shape_text(info["shape"])}});
      const uint64_t n = d.get<uint64_t>();
      if (n > (uint64_t{1} << 48)) overflow = true;
      else if (numel && n > (uint64_t{1} << 62) / numel) overflow = true;
      else numel *= n;
      t.shape.push_back(static_cast<int64_t>(std::min<uint64_t>(n, uint64_t{1} << 48)));
    }
    if (t.shape.size() > 8)
      throw at("st_shape_dims", {{"shape", safetensors_shape_text(info["shape"])}});
    const auto& offs = info["data_offsets"];
    if (!offs[0].is_number_unsigned() || !offs[1].is_number_unsigned())
      throw at("st_offsets_not_numbers", {{"offsets", offs.dump()}});
    const uint64_t begin = offs[0].get<uint64_t>(), end = offs[1].get<uint64_t>();
    if (end < begin)
      throw at("st_offsets_backwards", {{"offsets", offs.dump()}});
    if (end > data_size)
      throw at("st_offsets_outside", {{"offsets", offs.dump()}, {"bytes", std::to_string(data_size)}});
    if (overflow || numel * item != end - begin)
      throw at(overflow ? "st_offsets_size_overflow" : "st_offsets_size",
               {{"offsets", offs.dump()},
                {"bytes", std::to_string(end - begin)},
                {"dtype", t.dtype_name},
                {"shape", safetensors_shape_text(info["shape"])},
                {"need", overflow ? std::string() : std::to_string(numel * item)}});
    t.stride.assign(t.shape.size(), 1);
    for (size_t d = t.shape.size(); d-- > 1;) t.stride[d - 1] = t.stride[d] * t.shape[d];
    t.data = data + begin;
    tensors.push_back(std::move(t));
    spans.emplace_back(begin, end);
  }
  // No two tensors share bytes (an empty tensor holds none).
  std::vector<size_t> order(tensors.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return spans[a] < spans[b]; });
  size_t last = SIZE_MAX;
  for (size_t i : order) {
    if (spans[i].first == spans[i].second) continue;
    if (last != SIZE_MAX && spans[i].first < spans[last].second)
      throw WeightsError("st_overlap", {{"path", path},
                                        {"key", tensors[i].name},
                                        {"begin", std::to_string(spans[i].first)},
                                        {"end", std::to_string(spans[i].second)},
                                        {"other", tensors[last].name},
                                        {"other_begin", std::to_string(spans[last].first)},
                                        {"other_end", std::to_string(spans[last].second)}});
    last = i;
  }
  return tensors;
}

}  // namespace attn::weights
