#include "analyzer/zip_directory.h"

#include <algorithm>

#include "analyzer/error.h"

namespace kc {
namespace {

constexpr uint32_t kEndSignature = 0x06054b50;       // end of central directory record
constexpr uint32_t kZip64EndSignature = 0x06064b50;  // zip64 end of central directory record
constexpr uint32_t kZip64LocatorSignature = 0x07064b50;
constexpr uint32_t kEntrySignature = 0x02014b50;  // central directory file header
constexpr uint32_t kLocalHeaderSignature = 0x04034b50;
constexpr uint64_t kLocalHeaderSize = 30;
constexpr uint64_t kEndSize = 22, kZip64EndSize = 56, kLocatorSize = 20, kEntrySize = 46;
constexpr uint64_t kMaxComment = 0xffff;
constexpr uint32_t kZip64Marker = 0xffffffff;  // a 32-bit field whose value is in the zip64 extra field
constexpr uint16_t kZip64ExtraId = 0x0001;
constexpr uint16_t kDeflated = 8;
// Deflate codes at most 258 bytes (one match) in at least 2 bits (a length and a distance
// symbol, each at least 1 bit long; RFC 1951 3.2.5), so a deflated record inflates to at most
// 258 * 8 / 2 = 1032 bytes per byte it takes in the file.
constexpr uint64_t kMaxDeflateRatio = 1032;

bool read_exactly(const ByteSource& file, uint64_t pos, std::vector<unsigned char>& buf) {
  return pos <= file.size && buf.size() <= file.size - pos && file.read(pos, buf.data(), buf.size()) == buf.size();
}

}  // namespace

std::optional<ZipDirectory> read_zip_directory(const ByteSource& file) {
  const uint64_t size = file.size;
  if (size < kEndSize) return std::nullopt;
  // The end record is the last signature with room for the record after it (a comment may follow).
  const uint64_t scan_from = size > kEndSize + kMaxComment ? size - kEndSize - kMaxComment : 0;
  std::vector<unsigned char> end(size - scan_from);
  if (!read_exactly(file, scan_from, end)) return std::nullopt;
  size_t at = end.size() - kEndSize + 1;
  while (at-- > 0 && le(&end[at], 4) != kEndSignature) {
  }
  if (at == static_cast<size_t>(-1)) return std::nullopt;
  const unsigned char* e = &end[at];
  ZipDirectory dir;
  dir.tail_at = scan_from + at;
  uint64_t entries = le(e + 10, 2), dir_size = le(e + 12, 4), dir_at = le(e + 16, 4);
  if (dir.tail_at >= kLocatorSize + kZip64EndSize) {
    std::vector<unsigned char> locator(kLocatorSize), end64(kZip64EndSize);
    if (read_exactly(file, dir.tail_at - kLocatorSize, locator) && le(locator.data(), 4) == kZip64LocatorSignature &&
        read_exactly(file, le(locator.data() + 8, 8), end64) && le(end64.data(), 4) == kZip64EndSignature) {
      dir.tail_at -= kLocatorSize;
      entries = le(end64.data() + 32, 8);
      dir_size = le(end64.data() + 40, 8);
      dir_at = le(end64.data() + 48, 8);
    }
  }
  if (dir_at > size || dir_size > size - dir_at || entries > dir_size / kEntrySize) return std::nullopt;
  std::vector<unsigned char> cd(dir_size);
  if (!read_exactly(file, dir_at, cd)) return std::nullopt;
  size_t p = 0;
  for (uint64_t i = 0; i < entries; ++i) {
    if (cd.size() - p < kEntrySize || le(&cd[p], 4) != kEntrySignature) return std::nullopt;
    const unsigned char* h = &cd[p];
    const size_t name_len = le(h + 28, 2), extra_len = le(h + 30, 2), comment_len = le(h + 32, 2);
    if (cd.size() - p - kEntrySize < name_len + extra_len + comment_len) return std::nullopt;
    ZipRecord r;
    r.name.assign(reinterpret_cast<const char*>(h + kEntrySize), name_len);
    r.method = le(h + 10, 2);
    r.crc32 = static_cast<uint32_t>(le(h + 16, 4));
    r.compressed = le(h + 20, 4);
    r.uncompressed = le(h + 24, 4);
    r.local_header = le(h + 42, 4);
    r.method_at = dir_at + p + 10;
    r.compressed_at = dir_at + p + 20;
    // A zip64 extra field holds, in this order, each of the sizes and the offset whose 32-bit
    // field is the marker.
    const bool big_uncompressed = r.uncompressed == kZip64Marker, big_compressed = r.compressed == kZip64Marker,
               big_offset = r.local_header == kZip64Marker;
    for (size_t x = p + kEntrySize + name_len, x_end = x + extra_len; x + 4 <= x_end;) {
      const uint64_t id = le(&cd[x], 2), len = le(&cd[x + 2], 2);
      // An extra field running past the record's extras ends them: libtorch's zip reader
      // ignores extras it does not need, so the directory still stands and its sizes must
      // still be checked.
      if (len > x_end - x - 4) break;
      if (id == kZip64ExtraId) {
        size_t v = x + 4;
        auto next = [&](uint64_t* field, bool present) {
          if (!present) return true;
          if (v + 8 > x + 4 + len) return false;
          *field = le(&cd[v], 8);
          v += 8;
          return true;
        };
        const size_t compressed_slot = v + (big_uncompressed ? 8 : 0);
        if (!next(&r.uncompressed, big_uncompressed) || !next(&r.compressed, big_compressed) ||
            !next(&r.local_header, big_offset))
          return std::nullopt;
        if (big_compressed) {
          r.compressed_at = dir_at + compressed_slot;
          r.compressed_width = 8;
        }
      }
      x += 4 + len;
    }
    dir.records.push_back(std::move(r));
    p += kEntrySize + name_len + extra_len + comment_len;
  }
  return dir;
}

std::optional<uint64_t> record_data_at(const ByteSource& file, const ZipRecord& r) {
  unsigned char local[kLocalHeaderSize];
  if (r.local_header > file.size || file.size - r.local_header < kLocalHeaderSize ||
      file.read(r.local_header, local, kLocalHeaderSize) != kLocalHeaderSize || le(local, 4) != kLocalHeaderSignature)
    return std::nullopt;
  return r.local_header + kLocalHeaderSize + le(local + 26, 2) + le(local + 28, 2);
}

void check_deflated_sizes(const ZipDirectory& dir) {
  for (const ZipRecord& r : dir.records) {
    if (r.method != kDeflated) continue;
    const uint64_t least = r.uncompressed / kMaxDeflateRatio + (r.uncompressed % kMaxDeflateRatio != 0);
    check(least <= r.compressed, "zip record " + r.name + " claims " + std::to_string(r.uncompressed) +
                                     " bytes inflated from " + std::to_string(r.compressed) + ", more than deflate's " +
                                     std::to_string(kMaxDeflateRatio) + " to 1 allows (a damaged size field)");
  }
}

uint64_t le(const unsigned char* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace kc
