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
                 const std::string& at) {
  size_t p = 0;
  while (p + 4 <= len) {
    const uint16_t id = le16(extra + p), n = le16(extra + p + 2);
    if (p + 4 + n > len) throw WeightsError(at + "an extra field runs past its entry");
    if (id == 1) {
      size_t q = p + 4;
      auto take = [&](uint64_t& v) {
        if (v != kZipMax32) return;
        if (q + 8 > p + 4 + n) throw WeightsError(at + "its Zip64 extra field is too short");
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
  const std::string where = path + ": (zip) ";
  const uint8_t* b = file.data;
  const size_t size = file.size;
  // The end of central directory record: 22 bytes and a comment of up to 65535, at the end.
  if (size < 22) throw WeightsError(where + "truncated: no end of central directory record");
  size_t eocd = SIZE_MAX;
  const size_t lowest = size >= 22 + 65535 ? size - 22 - 65535 : 0;
  for (size_t p = size - 22 + 1; p-- > lowest;) {
    if (le32(b + p) == kZipEndSig && p + 22 + le16(b + p + 20) == size) {
      eocd = p;
      break;
    }
  }
  if (eocd == SIZE_MAX)
    throw WeightsError(where + "no end of central directory record: the archive is truncated or damaged");
  uint64_t entries = le16(b + eocd + 10), cd_size = le32(b + eocd + 12), cd_offset = le32(b + eocd + 16);
  if (eocd >= 20 && le32(b + eocd - 20) == kZip64LocatorSig) {
    const uint64_t z64 = le64(b + eocd - 20 + 8);
    if (z64 > eocd - 20 || eocd - 20 - z64 < 56 || le32(b + z64) != kZip64EndSig)
      throw WeightsError(where + "the Zip64 end of central directory record at offset " +
                         std::to_string(z64) + " is missing or damaged");
    entries = le64(b + z64 + 32);
    cd_size = le64(b + z64 + 40);
    cd_offset = le64(b + z64 + 48);
  }
  if (cd_offset > size || cd_size > size - cd_offset)
    throw WeightsError(where + "the central directory (offset " + std::to_string(cd_offset) + ", " +
                       std::to_string(cd_size) + " bytes) lies outside the file (" + std::to_string(size) +
                       " bytes): truncated?");
  if (entries > cd_size / 46)
    throw WeightsError(where + "the central directory claims " + std::to_string(entries) +
                       " entries, more than its " + std::to_string(cd_size) + " bytes hold");

  std::vector<ZipEntry> out;
  out.reserve(static_cast<size_t>(entries));
  size_t p = static_cast<size_t>(cd_offset);
  const size_t cd_end = static_cast<size_t>(cd_offset + cd_size);
  for (uint64_t i = 0; i < entries; ++i) {
    const std::string at0 =
        where + "central directory entry " + std::to_string(i) + " (offset " + std::to_string(p) + "): ";
    if (p + 46 > cd_end || le32(b + p) != kZipCentralSig)
      throw WeightsError(at0 + "not a central directory entry");
    const uint16_t flags = le16(b + p + 8), method = le16(b + p + 10);
    const uint32_t crc = le32(b + p + 16);
    uint64_t csize = le32(b + p + 20), usize = le32(b + p + 24);
    const uint16_t name_len = le16(b + p + 28), extra_len = le16(b + p + 30), comment_len = le16(b + p + 32);
    uint64_t local = le32(b + p + 42);
    if (p + 46 + name_len + extra_len + comment_len > cd_end)
      throw WeightsError(at0 + "its name and fields run past the central directory");
    ZipEntry e;
    e.name.assign(reinterpret_cast<const char*>(b + p + 46), name_len);
    e.crc32 = crc;
    const std::string at = where + "entry '" + e.name + "': ";
    zip64_extra(b + p + 46 + name_len, extra_len, usize, csize, &local, at);
    p += 46 + name_len + extra_len + comment_len;

    if (method != 0)
      throw WeightsError(at + "is compressed (method " + std::to_string(method) +
                         (method == 8 ? ", deflate" : "") +
                         "); torch.save stores its records uncompressed, and attn-walk reads only stored entries");
    if (flags & 1) throw WeightsError(at + "is encrypted");
    if (csize != usize)
      throw WeightsError(at + "lies about its size: stored, yet " + std::to_string(csize) +
                         " bytes compressed and " + std::to_string(usize) + " uncompressed");
    if (local > size || size - local < 30 || le32(b + local) != kZipLocalSig)
      throw WeightsError(at + "its local header (offset " + std::to_string(local) + ") is missing");
    const uint8_t* lh = b + local;
    const uint16_t lname = le16(lh + 26), lextra = le16(lh + 28);
    if (size - local - 30 < static_cast<uint64_t>(lname) + lextra)
      throw WeightsError(at + "its local header runs past the end of the file");
    if (le16(lh + 8) != method || std::string(reinterpret_cast<const char*>(lh + 30), lname) != e.name)
      throw WeightsError(at + "its local header (offset " + std::to_string(local) +
                         ") disagrees with the central directory");
    if (!(le16(lh + 6) & 8)) {  // no data descriptor: the local header carries the sizes too
      uint64_t lcsize = le32(lh + 18), lusize = le32(lh + 22);
      zip64_extra(lh + 30 + lname, lextra, lusize, lcsize, nullptr, at);
      if (lcsize != csize || lusize != usize)
        throw WeightsError(at + "lies about its size: the central directory says " + std::to_string(usize) +
                           " bytes, its local header " + std::to_string(lusize));
    }
    const uint64_t start = local + 30 + lname + lextra;
    if (usize > size - start)
      throw WeightsError(at + "its " + std::to_string(usize) + " bytes at offset " + std::to_string(start) +
                         " run past the end of the file (" + std::to_string(size) + " bytes): truncated?");
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
    throw WeightsError(path + ": (zip) entry '" + entry.name + "': its bytes do not match its CRC-32 (" +
                       zip_hex(entry.crc32) + " recorded, " + zip_hex(c) + " found): the file is damaged");
}

}  // namespace attn::weights
