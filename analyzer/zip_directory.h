// The central directory of a zip archive (PKWARE APPNOTE 4.3.12-4.3.16): each record's name,
// compression method and sizes, and where in the file those facts are stored, so that a reader
// can serve the archive with some of them changed. Reads the directory only, never a record.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kc {

// Random access to a file's bytes: its size, and a reader of up to n bytes at pos that returns
// how many it read.
struct ByteSource {
  uint64_t size = 0;
  std::function<size_t(uint64_t pos, void* buf, size_t n)> read;
};

// The little-endian unsigned integer of `bytes` bytes at p (zip fields are little-endian).
uint64_t le(const unsigned char* p, int bytes);

struct ZipRecord {
  std::string name;
  uint16_t method = 0;  // 0 stored, 8 deflated
  uint64_t compressed = 0, uncompressed = 0;
  uint32_t crc32 = 0;
  uint64_t local_header = 0;  // file offset of the record's local header
  uint64_t method_at = 0;     // file offset of the method field in the directory entry
  // File offset and width (4, or 8 in a zip64 extra field) of the compressed size in the
  // directory entry.
  uint64_t compressed_at = 0;
  int compressed_width = 4;
};

struct ZipDirectory {
  std::vector<ZipRecord> records;
  // The bytes from the zip64 end-of-directory locator (or the end-of-directory record when
  // there is none) to the end of the file: what a zip reader looks for at the end.
  uint64_t tail_at = 0;
};

// The directory of the archive `file` reads, or nullopt when its end records or entries are
// not where and what the format says (libtorch's reader gives the error for such an archive).
std::optional<ZipDirectory> read_zip_directory(const ByteSource& file);

// Where record r's bytes start in `file` (past its local header, whose name and extra field
// lengths may differ from the directory's), or nullopt when no local header is where the
// directory says.
std::optional<uint64_t> record_data_at(const ByteSource& file, const ZipRecord& r);

// Throws Error naming the first deflated record whose uncompressed size no deflate stream of
// its compressed size can reach: a lying size field, which a zip reader would allocate before
// inflating. Stored records need no check (their size is bounded by the file's).
void check_deflated_sizes(const ZipDirectory& dir);

}  // namespace kc
