// The zip archive torch.save writes (PyTorch's zip format, 1.6 and later): a stored-only
// reader, Zip64 included. torch.save stores every record uncompressed and 64-byte aligned, so
// a record is read where it lies. A compressed entry, or one whose sizes disagree, is refused.
#pragma once

#include <string>
#include <vector>

#include "weights/raw_tensor.h"

namespace attn::weights {

// Whether `file` begins as a zip archive does ("PK\3\4", or "PK\5\6" for an empty one).
bool looks_like_zip(Bytes file);

struct ZipEntry {
  std::string name;
  Bytes data;          // the stored bytes, inside the file
  uint32_t crc32 = 0;  // as the central directory records it
};

// The entries of the central directory, each checked: stored, sizes that agree between the
// central directory and the local header, data inside the file. Throws WeightsError naming
// `path` and the entry or offset at fault.
std::vector<ZipEntry> read_zip(Bytes file, const std::string& path);

// Checks an entry's bytes against its CRC-32 (throws WeightsError naming it); a recorded CRC
// of 0 is taken as not computed (torch.save's compute_crc32=False).
void check_zip_crc(const ZipEntry& entry, const std::string& path);

}  // namespace attn::weights
