#include "weights/torch_zip.h"

#include <unordered_map>
#include <unordered_set>

#include "weights/gpt_weights.h"
#include "weights/unpickler.h"
#include "weights/zip_reader.h"

namespace attn::weights {

bool looks_like_legacy_torch_save(Bytes file) {
  return file.size >= 3 && file.data[0] == 0x80 && file.data[1] == 0x02 && file.data[2] == 0x8a;
}

std::vector<RawTensor> read_torch_zip(Bytes file, const std::string& path) {
  const std::vector<ZipEntry> entries = read_zip(file, path);
  // torch.save puts every record in one folder named after the file ("book/data.pkl").
  if (entries.empty()) throw WeightsError("zip_empty", {{"path", path}});
  const std::string& first = entries.front().name;
  const size_t slash = first.find('/');
  if (slash == std::string::npos)
    throw WeightsError("zip_no_folder", {{"path", path}, {"entry", first}});
  const std::string prefix = first.substr(0, slash + 1);
  std::unordered_map<std::string, const ZipEntry*> by_name;
  for (const auto& e : entries) by_name.emplace(e.name, &e);
  const auto pkl = by_name.find(prefix + "data.pkl");
  if (pkl == by_name.end())
    throw WeightsError("zip_no_pickle", {{"path", path}, {"entry", prefix + "data.pkl"}});
  check_zip_crc(*pkl->second, path);
  const std::vector<PickledTensor> pickled = unpickle_state_dict(pkl->second->data, path + ": " + pkl->first);

  std::vector<RawTensor> out;
  std::unordered_set<std::string> checked;
  for (const PickledTensor& p : pickled) {
    const std::string record = prefix + "data/" + p.storage_key;
    const auto it = by_name.find(record);
    if (it == by_name.end())
      throw WeightsError("storage_missing", {{"path", path}, {"key", p.name}, {"record", record}});
    const ZipEntry& e = *it->second;
    size_t item = dtype_size(p.dtype);
    if (item == 0) item = 1;  // sized dtypes only are read; the mapping refuses the others by name
    if (static_cast<uint64_t>(p.storage_numel) * item != e.data.size && p.dtype != DType::Other)
      throw WeightsError("storage_size", {{"path", path},
                                          {"key", p.name},
                                          {"record", record},
                                          {"bytes", std::to_string(e.data.size)},
                                          {"numel", std::to_string(p.storage_numel)},
                                          {"storage", p.storage_class}});
    if (checked.insert(record).second) check_zip_crc(e, path);
    RawTensor t;
    t.name = p.name;
    t.dtype = p.dtype;
    t.dtype_name = p.storage_class;
    t.shape = p.shape;
    t.stride = p.stride;
    t.data = e.data.data + static_cast<size_t>(p.storage_offset) * item;
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace attn::weights
