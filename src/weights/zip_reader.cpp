#include "weights/zip_reader.h"

#include <array>

#include "weights/gpt_weights.h"

namespace attn::weights {

namespace {

constexpr uint32_t kZipLocalSig = 0x04034b50, kZipCentralSig = 0x02014b50, kZipEndSig = 0x06054b50,
                   kZip64EndSig = 0x06064b50, kZip64LocatorSig = 0x07064b50;
constexpr uint32_t kZipMax32 = 0xFFFFFFFFu;

std::string zip_hex(uint64_t v) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  do {
    s.insert(s.begin(), digits[v & 15]);
    v >>= 4;
  } while (v);
  return "0x" + s;
}

// The Zip64 extended information extra field (id 1): the 64-bit values of those 32-bit fields
// that are 0xFFFFFFFF, in the order uncompressed size, compressed size, local header offset.
void zip64_extra(const uint8_t* extra, size_t len, uint64_t& usize, uint64_t& csize, uint64_t* offset,
                 const WeightsErrorVars& at) {
  size_t p = 0;
  while (p + 4 <= len) {
    const uint16_t id = le16(extra + p), n = le16(extra + p + 2);
    if (p + 4 + n > len) throw WeightsError("zip_extra_past_entry", at);
    if (id == 1) {
      size_t q = p + 4;
      auto take = [&](uint64_t& v) {
        if (v != kZipMax32) return;
        if (q + 8 > p + 4 + n) throw WeightsError("zip64_extra_short", at);
        v = le64(extra + q);
        q += 8;
      };
      take(usize);
      take(csize);
      if (offset) take(*offset);
    }
    p += 4 + n;
  }
}

}  // namespace

bool looks_like_zip(Bytes file) {
  return file.size >= 4 && file.data[0] == 'P' && file.data[1] == 'K' &&
         ((file.data[2] == 3 && file.data[3] == 4) || (file.data[2] == 5 && file.data[3] == 6));
}

std::vector<ZipEntry> read_zip(Bytes file, const std::string& path) {
  const WeightsErrorVars where = {{"path", path}};
  const auto with = [](WeightsErrorVars vars, const WeightsErrorVars& more) {
    vars.insert(more.begin(), more.end());
    return vars;
  };
  const uint8_t* b = file.data;
  const size_t size = file.size;
  // The end of central directory record: 22 bytes and a comment of up to 65535, at the end.
  if (size < 22) throw WeightsError("zip_truncated", where);
  size_t eocd = SIZE_MAX;
  const size_t lowest = size >= 22 + 65535 ? size - 22 - 65535 : 0;
  for (size_t p = size - 22 + 1; p-- > lowest;) {
    if (le32(b + p) == kZipEndSig && p + 22 + le16(b + p + 20) == size) {
      eocd = p;
      break;
    }
  }
  if (eocd == SIZE_MAX)
    throw WeightsError("zip_no_end_record", where);
  uint64_t entries = le16(b + eocd + 10), cd_size = le32(b + eocd + 12), cd_offset = le32(b + eocd + 16);
  if (eocd >= 20 && le32(b + eocd - 20) == kZip64LocatorSig) {
    const uint64_t z64 = le64(b + eocd - 20 + 8);
    if (z64 > eocd - 20 || eocd - 20 - z64 < 56 || le32(b + z64) != kZip64EndSig)
      throw WeightsError("zip64_end_record", with(where, {{"offset", std::to_string(z64)}}));
    entries = le64(b + z64 + 32);
    cd_size = le64(b + z64 + 40);
    cd_offset = le64(b + z64 + 48);
  }
  if (cd_offset > size || cd_size > size - cd_offset)
    throw WeightsError("zip_directory_outside", with(where, {{"offset", std::to_string(cd_offset)},
                                                             {"length", std::to_string(cd_size)},
                                                             {"bytes", std::to_string(size)}}));
  if (entries > cd_size / 46)
    throw WeightsError("zip_too_many_entries",
                       with(where, {{"entries", std::to_string(entries)}, {"length", std::to_string(cd_size)}}));

  std::vector<ZipEntry> out;
  out.reserve(static_cast<size_t>(entries));
  size_t p = static_cast<size_t>(cd_offset);
  const size_t cd_end = static_cast<size_t>(cd_offset + cd_size);
  for (uint64_t i = 0; i < entries; ++i) {
    const WeightsErrorVars at0 = with(where, {{"index", std::to_string(i)}, {"offset", std::to_string(p)}});
    if (p + 46 > cd_end || le32(b + p) != kZipCentralSig)
      throw WeightsError("zip_not_directory_entry", at0);
    const uint16_t flags = le16(b + p + 8), method = le16(b + p + 10);
    const uint32_t crc = le32(b + p + 16);
    uint64_t csize = le32(b + p + 20), usize = le32(b + p + 24);
    const uint16_t name_len = le16(b + p + 28), extra_len = le16(b + p + 30), comment_len = le16(b + p + 32);
    uint64_t local = le32(b + p + 42);
    if (p + 46 + name_len + extra_len + comment_len > cd_end)
      throw WeightsError("zip_entry_past_directory", at0);
    ZipEntry e;
    e.name.assign(reinterpret_cast<const char*>(b + p + 46), name_len);
    e.crc32 = crc;
    const WeightsErrorVars at = with(where, {{"entry", e.name}});
    zip64_extra(b + p + 46 + name_len, extra_len, usize, csize, &local, at);
    p += 46 + name_len + extra_len + comment_len;

    if (method != 0)
      throw WeightsError(method == 8 ? "zip_deflated" : "zip_compressed", with(at, {{"method", std::to_string(method)}}));
    if (flags & 1) throw WeightsError("zip_encrypted", at);
    if (csize != usize)
      throw WeightsError("zip_stored_sizes",
                         with(at, {{"compressed", std::to_string(csize)}, {"uncompressed", std::to_string(usize)}}));
    if (local > size || size - local < 30 || le32(b + local) != kZipLocalSig)
      throw WeightsError("zip_local_missing", with(at, {{"offset", std::to_string(local)}}));
    const uint8_t* lh = b + local;
    const uint16_t lname = le16(lh + 26), lextra = le16(lh + 28);
    if (size - local - 30 < static_cast<uint64_t>(lname) + lextra)
      throw WeightsError("zip_local_past_end", at);
    if (le16(lh + 8) != method || std::string(reinterpret_cast<const char*>(lh + 30), lname) != e.name)
      throw WeightsError("zip_local_disagrees", with(at, {{"offset", std::to_string(local)}}));
    if (!(le16(lh + 6) & 8)) {  // no data descriptor: the local header carries the sizes too
      uint64_t lcsize = le32(lh + 18), lusize = le32(lh + 22);
      zip64_extra(lh + 30 + lname, lextra, lusize, lcsize, nullptr, at);
      if (lcsize != csize || lusize != usize)
        throw WeightsError("zip_local_sizes",
                           with(at, {{"uncompressed", std::to_string(usize)}, {"local", std::to_string(lusize)}}));
    }
    const uint64_t start = local + 30 + lname + lextra;
    if (usize > size - start)
      throw WeightsError("zip_data_past_end", with(at, {{"length", std::to_string(usize)},
                                                        {"offset", std::to_string(start)},
                                                        {"bytes", std::to_string(size)}}));
    e.data = {b + start, static_cast<size_t>(usize)};
    out.push_back(std::move(e));
  }
  return out;
}

void check_zip_crc(const ZipEntry& entry, const std::string& path) {
  // CRC-32 (zip's polynomial, reflected), eight bytes a step ("slicing by 8"). torch.load does
  // not check it (PyTorch builds miniz with MINIZ_DISABLE_ZIP_READER_CRC32_CHECKS); attn-walk does, so that a
  // damaged file is refused rather than walked. A recorded 0 means "not computed" (torch.save
  // with compute_crc32=False, PyTorch 2.x), as an empty entry's CRC is 0 anyway.
  if (entry.crc32 == 0) return;
  static const std::array<std::array<uint32_t, 256>, 8> table = [] {
    std::array<std::array<uint32_t, 256>, 8> t{};
    for (uint32_t n = 0; n < 256; ++n) {
      uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[0][n] = c;
    }
    for (uint32_t n = 0; n < 256; ++n)
      for (size_t k = 1; k < 8; ++k) t[k][n] = (t[k - 1][n] >> 8) ^ t[0][t[k - 1][n] & 0xFF];
    return t;
  }();
  uint32_t c = 0xFFFFFFFFu;
  const uint8_t* p = entry.data.data;
  size_t n = entry.data.size;
  for (; n >= 8; n -= 8, p += 8) {
    const uint32_t lo = le32(p) ^ c, hi = le32(p + 4);
    c = table[7][lo & 0xFF] ^ table[6][(lo >> 8) & 0xFF] ^ table[5][(lo >> 16) & 0xFF] ^ table[4][lo >> 24] ^
        table[3][hi & 0xFF] ^ table[2][(hi >> 8) & 0xFF] ^ table[1][(hi >> 16) & 0xFF] ^ table[0][hi >> 24];
  }
  for (; n > 0; --n, ++p) c = table[0][(c ^ *p) & 0xFF] ^ (c >> 8);
  c ^= 0xFFFFFFFFu;
  if (c != entry.crc32)
    throw WeightsError("zip_crc", {{"path", path}, {"entry", entry.name}, {"recorded", zip_hex(entry.crc32)}, {"found", zip_hex(c)}});
}

}  // namespace attn::weights
